#!/usr/bin/env node
/**
 * notes-sqlite: `node dist/main.js [--db <path>]`, spoken to over stdio by an MCP host.
 * The database is `--db`, else NOTES_DB, else notes.db in the working directory; it is created
 * and migrated on start. Everything this program says goes to stderr: stdout carries MCP only.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { serveStdio } from 'janus-mcp/stdio';
import { openDatabase } from './database.js';
import { NoteStore } from './notes.js';
import { createNotesServer } from './server.js';

const { values } = parseArgs({ options: { db: { type: 'string' } } });
const path = resolve(values.db ?? process.env.NOTES_DB ?? 'notes.db');

let db: ReturnType<typeof openDatabase>;
try {
  db = openDatabase(path);
} catch (e) {
  console.error(`notes-sqlite: cannot open ${path}: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}

const connection = await serveStdio(createNotesServer(new NoteStore(db)));
console.error(`notes-sqlite: serving ${path} on stdio`);
// The host ends the server by closing stdin; the database is then closed cleanly.
await connection.closed;
db.close();
