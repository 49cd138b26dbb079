/**
 * The transport seam's `watch` for a `subscriptions/listen` stream (transport-seam.ts): on a
 * channel that has it, the core's `handle` settles once the stream is open, and the stream's
 * end is told by `unwatch`, after its last message, so an open stream costs no promise. On a
 * channel without it, and whenever middleware waits on the stream, `handle` settles when the
 * stream ends.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coreOf, type Inbound } from '../../src/spi/index.js';
import { createServer } from '../../src/server/index.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'listener', version: '1' },
};
const listen = (id: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'subscriptions/listen',
  params: { notifications: { toolsListChanged: true }, _meta: meta },
});
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A channel with `watch`, recording what it is sent and told, in order. */
function watchedChannel() {
  const events: string[] = [];
  let watcher: { abort(): void } | undefined;
  const inbound: Inbound = {
    transport: 'http',
    send: (m: JsonRpcMessage) => void events.push('method' in m ? `send ${m.method}` : `send response ${String(m.id)}`),
    watch: (w) => {
      watcher = w;
      events.push('watch');
    },
    unwatch: (w) => {
      assert.equal(w, watcher, 'unwatch names the watcher that watched');
      watcher = undefined;
      events.push('unwatch');
    },
  };
  return { inbound, events, gone: () => watcher?.abort(), watched: () => watcher !== undefined };
}

/** Whether `p` has settled after a few turns. */
async function settledSoon(p: Promise<void>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  for (let i = 0; i < 3; i++) await turn();
  return settled;
}

test('watched: handle settles once the stream is open; server.close sends the final result, then unwatches', async () => {
  const server = createServer({ name: 'listen-watch', version: '1.0.0' });
  server.tool('first', () => 'one');
  const channel = watchedChannel();
  const handled = coreOf(server).handle(listen('L1'), channel.inbound);
  assert.equal(await settledSoon(handled), true, 'handle settled while the stream is open');
  assert.equal(channel.watched(), true);
  server.tool('second', () => 'two');
  await turn();
  server.close();
  assert.deepEqual(channel.events, [
    'send notifications/subscriptions/acknowledged',
    'watch',
    'send notifications/tools/list_changed',
    'send response L1',
    'unwatch',
  ]);
});

test('watched: a channel that goes away ends the stream with an unwatch and nothing sent', async () => {
  const server = createServer({ name: 'listen-watch', version: '1.0.0' });
  server.tool('first', () => 'one');
  const channel = watchedChannel();
  await coreOf(server).handle(listen('L2'), channel.inbound);
  assert.equal(server.stats().listenStreams, 1);
  channel.gone();
  assert.deepEqual(channel.events, ['send notifications/subscriptions/acknowledged', 'watch', 'unwatch']);
  assert.equal(server.stats().listenStreams, 0);
  server.close();
});

test('with middleware, handle settles only when the stream ends, watched or not (next() resolves then)', async () => {
  const server = createServer({ name: 'listen-watch', version: '1.0.0' });
  server.tool('first', () => 'one');
  const ended: string[] = [];
  server.use(async (ex, next) => {
    const result = await next();
    ended.push(ex.method);
    return result;
  });
  const channel = watchedChannel();
  const handled = coreOf(server).handle(listen('L3'), channel.inbound);
  assert.equal(await settledSoon(handled), false, 'middleware is still waiting on the open stream');
  server.close();
  await handled;
  assert.deepEqual(ended, ['subscriptions/listen']);
  assert.deepEqual(channel.events.slice(-2), ['send response L3', 'unwatch']);
});

test('a channel without watch: handle settles when the stream ends', async () => {
  const server = createServer({ name: 'listen-watch', version: '1.0.0' });
  server.tool('first', () => 'one');
  const sent: string[] = [];
  const inbound: Inbound = { transport: 'memory', send: (m) => void sent.push('method' in m ? m.method : `response ${String(m.id)}`) };
  const handled = coreOf(server).handle(listen('L4'), inbound);
  assert.equal(await settledSoon(handled), false, 'the stream is open');
  server.close();
  await handled;
  assert.deepEqual(sent, ['notifications/subscriptions/acknowledged', 'response L4']);
});
