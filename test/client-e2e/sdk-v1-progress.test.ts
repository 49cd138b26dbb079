/**
 * Interop with a client no one here wrote: the official TypeScript SDK v1
 * (`@modelcontextprotocol/sdk` 1.32.2, installed with the conformance package) against this
 * server, over stdio (the everything fixture as a child process) and over Streamable HTTP. Every
 * progress notification of a progress-reporting tool must reach the client's `onprogress`
 * (stdio interop: the SDK handles a chunk's responses at once and its notifications a
 * microtask later, so a response read together with the last progress made it drop that
 * progress as "unknown token"). v1 speaks the handshake era only (up to 2025-11-25).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { EVERYTHING_STDIO } from '../support/stdio-peer.js';

const CALLS = 8;

/** Calls the everything fixture's progress tool CALLS times; returns the progress values each call saw, and the client's errors. */
async function progressRounds(transport: Transport): Promise<{ seen: number[][]; errors: string[] }> {
  const client = new Client({ name: 'sdk-v1-progress', version: '1.32.2' });
  const errors: string[] = [];
  client.onerror = (e) => errors.push(String(e));
  await client.connect(transport);
  const seen: number[][] = [];
  try {
    for (let i = 0; i < CALLS; i++) {
      const values: number[] = [];
      const result = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
        onprogress: (p) => values.push(p.progress),
      });
      assert.deepEqual(result.content, [{ type: 'text', text: 'Progress test completed' }]);
      seen.push(values);
    }
    return { seen, errors };
  } finally {
    await client.close();
  }
}

const EVERY = Array.from({ length: CALLS }, () => [0, 50, 100]);

test('SDK v1 client over stdio: every progress notification of every call arrives, none is dropped as unknown', {
  timeout: 60_000,
}, async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_STDIO], stderr: 'ignore' });
  const { seen, errors } = await progressRounds(transport);
  assert.deepEqual(errors, []);
  assert.deepEqual(seen, EVERY);
});

test('SDK v1 client over Streamable HTTP: every progress notification of every call arrives', { timeout: 60_000 }, async () => {
  const http = await serveHttp(createEverythingServer());
  try {
    const { seen, errors } = await progressRounds(new StreamableHTTPClientTransport(http.url));
    assert.deepEqual(errors, []);
    assert.deepEqual(seen, EVERY);
  } finally {
    await http.close();
  }
});
