/**
 * Interop with a client no one here wrote: the official TypeScript SDK v2
 * (`@modelcontextprotocol/client` 2.4.0) against this server, over stdio (the everything fixture
 * as a child process) and over Streamable HTTP, in both eras it speaks: the 2025 handshake (its
 * default, `versionNegotiation` 'legacy') and 2026-07-28 (`{ pin: '2026-07-28' }`). Every progress
 * notification of a progress-reporting tool must reach `onprogress` (stdio interop:
 * the SDK handles a chunk's responses at once and its notifications a microtask later, so a
 * response read together with the last progress made it drop that progress as "unknown token").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { EVERYTHING_STDIO } from '../support/stdio-peer.js';

const CALLS = 8;
const EVERY = Array.from({ length: CALLS }, () => [0, 50, 100]);
const ERAS = [
  ['2025 handshake', undefined],
  ['2026-07-28', { mode: { pin: '2026-07-28' } }],
] as const;

async function progressRounds(transport: Transport, era: (typeof ERAS)[number][1]): Promise<{ seen: number[][]; errors: string[] }> {
  const client = new Client({ name: 'sdk-v2-progress', version: '2.4.0' }, era === undefined ? {} : { versionNegotiation: era });
  const errors: string[] = [];
  client.onerror = (e) => errors.push(String(e));
  await client.connect(transport);
  const seen: number[][] = [];
  try {
    for (let i = 0; i < CALLS; i++) {
      const values: number[] = [];
      const result = await client.callTool(
        { name: 'test_tool_with_progress', arguments: {} },
        { onprogress: (p) => values.push(p.progress) },
      );
      assert.deepEqual(result.content, [{ type: 'text', text: 'Progress test completed' }]);
      seen.push(values);
    }
    return { seen, errors };
  } finally {
    await client.close();
  }
}

for (const [name, era] of ERAS) {
  test(`SDK v2 client over stdio, ${name}: every progress notification of every call arrives`, { timeout: 60_000 }, async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_STDIO], stderr: 'ignore' });
    const { seen, errors } = await progressRounds(transport, era);
    assert.deepEqual(errors, []);
    assert.deepEqual(seen, EVERY);
  });

  test(`SDK v2 client over Streamable HTTP, ${name}: every progress notification of every call arrives`, { timeout: 60_000 }, async () => {
    const http = await serveHttp(createEverythingServer());
    try {
      const { seen, errors } = await progressRounds(new StreamableHTTPClientTransport(http.url), era);
      assert.deepEqual(errors, []);
      assert.deepEqual(seen, EVERY);
    } finally {
      await http.close();
    }
  });
}
