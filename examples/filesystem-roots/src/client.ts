#!/usr/bin/env node
/**
 * A client to try the server from a terminal: `node dist/client.js <folder> <tool> [arguments]`.
 * It starts the server (dist/main.js) over stdio, shares `<folder>` as its only root, calls the
 * tool with the arguments (a JSON object) and prints what the tool returned. The same handler
 * answers the server's `roots/list` on a 2025 session and its `input_required` rounds on
 * 2026-07-28: the Janus client picks the era by itself.
 */
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect } from 'janus-mcp/client';

const [folder, tool, json = '{}'] = process.argv.slice(2);
if (folder === undefined || tool === undefined) {
  console.error('usage: node dist/client.js <folder> <tool> [arguments as a JSON object]');
  process.exit(2);
}
const root = resolve(folder);
const client = await connect(
  { command: process.execPath, args: [fileURLToPath(new URL('main.js', import.meta.url))], stderr: 'ignore' },
  { onRoots: async () => [{ uri: pathToFileURL(root).href, name: basename(root) }] },
);
try {
  const result = await client.callTool(tool, JSON.parse(json) as Record<string, unknown>);
  for (const block of result.content) console.log(block.type === 'text' ? block.text : JSON.stringify(block));
  if (result.isError) process.exitCode = 1;
} finally {
  await client.close();
}
