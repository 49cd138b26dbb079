/**
 * `janus-mcp/testing`: the in-memory client/server pair and the message recorder, through
 * the public entry, in both eras; the recorded transcript is exact and schema-valid.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { connectInMemory, createMemoryPair, MessageRecorder } from '../../src/testing/index.js';
import { wireValidator } from '../support/wire-schema.js';

function greeter() {
  const server = createServer({ name: 'greeter', version: '1.0.0' });
  server.tool('greet', { input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }, (args, ctx) => {
    ctx.progress(1, 1);
    return `Hello, ${String(args.name)}!`;
  });
  return server;
}

test('connectInMemory: a modern client (detected) calls a tool; the recorder holds the exact transcript', async () => {
  const { client, recorder, close } = await connectInMemory(greeter());
  try {
    assert.equal(client.era, 'modern');
    const result = await client.callTool('greet', { name: 'Ada' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
    assert.deepEqual(recorder.transcript(), ['client: server/discover', 'server: result', 'client: tools/call', 'server: result']);
    assert.equal(recorder.fromClient('tools/call').length, 1);
    assert.equal(recorder.fromServer().length, 2);
    const methodOf = new Map(recorder.fromClient().flatMap((m) => ('method' in m && 'id' in m ? [[m.id, m.method] as const] : [])));
    for (const { from, message } of recorder.messages) {
      if (from === 'client') wireValidator().assertClientMessage('2026-07-28', message);
      else
        wireValidator().assertServerMessage('2026-07-28', message, {
          requestMethod: (id) => (id === undefined ? undefined : methodOf.get(id)),
        });
    }
  } finally {
    await close();
  }
});

test('connectInMemory: { era: "legacy" } initializes a session; progress, errors and clear() are recorded', async () => {
  const { client, recorder, close } = await connectInMemory(greeter(), { era: 'legacy' });
  try {
    assert.equal(client.era, 'legacy');
    assert.deepEqual(recorder.transcript(), ['client: initialize', 'server: result', 'client: notifications/initialized']);
    recorder.clear();
    await client.callTool('greet', { name: 'Bo' }, { onProgress: () => {} });
    assert.equal((await client.callTool('greet', {})).isError, true, 'invalid arguments are a tool error (tools.mdx §Error Handling)');
    await assert.rejects(client.callTool('nope', {}), /nope/);
    assert.deepEqual(recorder.transcript(), [
      'client: tools/call',
      'server: notifications/progress',
      'server: result',
      'client: tools/call',
      'server: result',
      'client: tools/call',
      'server: error -32602',
    ]);
  } finally {
    await close();
  }
});

test('MessageRecorder.wrap records both directions of any transport, batches message by message', async () => {
  const [a, b] = createMemoryPair();
  const recorder = new MessageRecorder();
  const recorded = recorder.wrap(a, 'client');
  const got: unknown[] = [];
  await recorded.start({ onMessage: (m) => got.push(m) });
  await b.start({ onMessage: () => {} });
  await recorded.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  await b.send([
    { jsonrpc: '2.0', id: 1, result: {} },
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } },
  ]);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(recorder.transcript(), ['client: ping', 'server: result', 'server: notifications/message']);
  assert.equal(got.length, 1, 'the batch reached the handler as one value');
  await recorded.close();
});
