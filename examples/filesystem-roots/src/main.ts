#!/usr/bin/env node
/**
 * filesystem-roots: `node dist/main.js`, started by an MCP host and spoken to over stdio. It
 * reads nothing until a client shares its roots; see README.md.
 */
import { serveStdio } from 'janus-mcp/stdio';
import { createFilesServer } from './server.js';

await serveStdio(createFilesServer());
console.error('filesystem-roots: serving on stdio; files are read only inside the roots the client shares');
