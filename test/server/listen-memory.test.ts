/**
 * An open `subscriptions/listen` stream keeps what it needs (its id, its filter, its channel),
 * not the request it came in: a server may hold 10,000 of them for hours (memory per
 * open stream). Checked with a forced garbage collection and a WeakRef to the request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { coreOf, type Inbound } from '../../src/spi/index.js';
import { createServer } from '../../src/server/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('an open listen stream does not keep its request; it still delivers, then ends', async () => {
  const server = createServer({ name: 'listen-memory', version: '1.0.0' });
  server.tool('first', () => 'one');
  const core = coreOf(server);
  const sent: Array<Record<string, unknown>> = [];
  const inbound: Inbound = { transport: 'http', send: (m) => void sent.push(m as unknown as Record<string, unknown>) };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'listener', version: '1' },
  };
  let request: Record<string, unknown> | undefined = {
    jsonrpc: '2.0',
    id: 'listen-1',
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: meta },
  };
  const kept = new WeakRef(request);
  const open = core.handle(request, inbound);
  request = undefined;
  for (let i = 0; i < 3; i++) {
    await turn();
    gc();
  }
  assert.equal(kept.deref(), undefined, 'the listen request was collected while its stream is open');
  assert.equal(sent[0]?.method, 'notifications/subscriptions/acknowledged');
  server.tool('second', () => 'two');
  await turn();
  assert.ok(
    sent.some((m) => m.method === 'notifications/tools/list_changed'),
    'the stream still delivers',
  );
  server.close();
  await open;
  assert.deepEqual((sent.at(-1) as { id?: unknown }).id, 'listen-1', 'the stream ended with its final result');
});
