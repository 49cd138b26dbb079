/**
 * Typed structured output (2025-11-25 server/tools.mdx §Output Schema): with a Standard
 * Schema `output`, the published `outputSchema` is the schema's output side, and what is
 * sent is the validated value, so defaults are filled in and unknown keys stripped, and the
 * result conforms to what was published. A tool error skips the check; content that does not
 * match is a server bug: -32603, never sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { createServer, toolError, type Server } from '../../src/server/index.js';
import type { Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';

const OUTPUT = z.object({ sum: z.number(), unit: z.string().default('m') });

function outputServer(): Server {
  const server = createServer({ name: 'output', version: '1.0.0' });
  const input = z.object({ a: z.number(), b: z.number() });
  server.tool('add', { input, output: OUTPUT }, ({ a, b }) => ({ sum: a + b }));
  server.tool('add_with_text', { input, output: OUTPUT }, ({ a, b }) => ({
    content: [{ type: 'text', text: `${a} + ${b} = ${a + b}` }],
    structuredContent: { sum: a + b, unit: 'cm' },
  }));
  server.tool('refuse', { input, output: OUTPUT }, ({ a }) => (a < 0 ? toolError('negative numbers are not supported') : { sum: a }));
  server.tool('wrong', { output: OUTPUT }, () => ({ sum: 'two' }) as never);
  return server;
}

const withPeer = (fn: (peer: MemoryPeer) => Promise<void>) => withMemoryPeer(outputServer(), fn, { revision: '2025-11-25', handshake: {} });

const call = (peer: MemoryPeer, name: string, args: Msg = { a: 1, b: 1 }) => peer.request('tools/call', { name, arguments: args });

test('the published outputSchema is the output side: a field with a default is required there', async () => {
  await withPeer(async (peer) => {
    const tool = ((await peer.call('tools/list')).tools as Msg[]).find((t) => t.name === 'add')!;
    assert.equal(tool.outputSchema.type, 'object');
    assert.deepStrictEqual([...tool.outputSchema.required].sort(), ['sum', 'unit']);
  });
});

test('a returned object is sent as validated: defaults filled in, in structuredContent and in its JSON text', async () => {
  await withPeer(async (peer) => {
    assert.deepStrictEqual((await call(peer, 'add')).result, {
      content: [{ type: 'text', text: '{"sum":2,"unit":"m"}' }],
      structuredContent: { sum: 2, unit: 'm' },
    });
  });
});

test('a returned CallToolResult keeps its own content; its structuredContent is checked', async () => {
  await withPeer(async (peer) => {
    assert.deepStrictEqual((await call(peer, 'add_with_text')).result, {
      content: [{ type: 'text', text: '1 + 1 = 2' }],
      structuredContent: { sum: 2, unit: 'cm' },
    });
  });
});

test('toolError skips the output check; structured content that does not match is -32603 and is not sent', async () => {
  await withPeer(async (peer) => {
    const refused = await call(peer, 'refuse', { a: -1, b: 0 });
    assert.deepStrictEqual(refused.result, { content: [{ type: 'text', text: 'negative numbers are not supported' }], isError: true });
    const wrong = await call(peer, 'wrong', {});
    assert.equal(wrong.error?.code, -32603, JSON.stringify(wrong));
    assert.match(wrong.error.message, /tool "wrong" returned structured content that does not match its output schema: sum/);
  });
});
