/**
 * The server's own limits (`createServer({ limits })`): each has a
 * documented default and a clear error when reached.
 * - listen streams per server (20,000; -32603) and distinct URIs per stream (1,000; -32602,
 *   HTTP 400), so no stream holds or echoes a huge list (subscriptions.mdx §Acknowledgment),
 *   and as many resources/subscribe subscriptions per legacy session;
 * - requests in flight per legacy session and per message channel (1,000; -32600);
 * - server-to-client requests waiting on one session (100; the ask throws, a tool error);
 * - questions per MRTR round (16; -32603) and rounds per request (16; -32600) (mrtr.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type Server, type ServerLimits } from '../../src/server/index.js';
import { JanusError } from '../../src/errors/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { handshake, modernMeta, withMemoryPeer, type MemoryPeer } from '../support/peer.js';
import { deferred } from '../support/wait.js';
import { HttpPeer, serve } from '../http-e2e/support.js';

function limitedServer(limits: ServerLimits, errors: unknown[] = []): Server {
  const server = createServer({ name: 'limited', version: '1.0.0', limits, onError: (e) => errors.push(e) });
  server.resource('test://a', { name: 'a' }, 'a');
  return server;
}

/** Opens a listen stream on the peer's channel and returns its acknowledgement (or its error response). */
async function openListen(peer: MemoryPeer, notifications: Msg): Promise<{ id: number; first: Msg }> {
  const id = peer.id();
  peer.sendRaw({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications, _meta: modernMeta() } });
  const first = await peer.next((m) => m.id === id || m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === id);
  return { id, first };
}

test('listen: 250,000 resourceSubscriptions are refused with -32602 before anything is kept; nothing is echoed', async () => {
  const server = limitedServer({});
  await withMemoryPeer(
    server,
    async (peer) => {
      const uris = Array.from({ length: 250_000 }, (_, i) => `test://r/${i}`);
      const { first } = await openListen(peer, { resourceSubscriptions: uris });
      assert.equal(first.error?.code, -32602, JSON.stringify(first).slice(0, 300));
      assert.match(first.error.message, /at most 1000 distinct resourceSubscriptions per stream \(got 250000 entries\)/);
      assert.ok(JSON.stringify(first).length < 300, 'the refusal does not echo the list');
    },
    { revision: MODERN },
  );
});

test('listen: up to maxListenUris distinct URIs are honoured, duplicates counted once, one more refused', async () => {
  await withMemoryPeer(
    limitedServer({ maxListenUris: 3 }),
    async (peer) => {
      const dup = await openListen(peer, { resourceSubscriptions: ['test://a', 'test://a', 'test://b', 'test://c', 'test://c'] });
      assert.equal(dup.first.method, 'notifications/subscriptions/acknowledged');
      assert.deepEqual(dup.first.params.notifications, { resourceSubscriptions: ['test://a', 'test://b', 'test://c'] });
      const over = await openListen(peer, { resourceSubscriptions: ['test://a', 'test://b', 'test://c', 'test://d'] });
      assert.equal(over.first.error?.code, -32602);
      peer.notify('notifications/cancelled', { requestId: dup.id });
    },
    { revision: MODERN },
  );
});

test('legacy resources/subscribe: a session holds at most maxListenUris subscriptions; one more is -32602, an unsubscribe makes room', async () => {
  await withMemoryPeer(limitedServer({ maxListenUris: 3 }), async (peer) => {
    await handshake(peer, '2025-11-25');
    for (const uri of ['test://a', 'test://b', 'test://c', 'test://a']) {
      assert.deepEqual((await peer.request('resources/subscribe', { uri })).result, {}, uri);
    }
    const over = await peer.request('resources/subscribe', { uri: 'test://d' });
    assert.equal(over.error?.code, -32602);
    assert.match(over.error.message, /at most 3 resources per session/);
    assert.deepEqual((await peer.request('resources/unsubscribe', { uri: 'test://a' })).result, {});
    assert.deepEqual((await peer.request('resources/subscribe', { uri: 'test://d' })).result, {});
  });
});

test('listen: the server holds at most maxListenStreams streams; one more is -32603, and a closed one makes room', async () => {
  await withMemoryPeer(
    limitedServer({ maxListenStreams: 2 }),
    async (peer) => {
      const a = await openListen(peer, { toolsListChanged: true });
      const b = await openListen(peer, { toolsListChanged: true });
      for (const s of [a, b]) assert.equal(s.first.method, 'notifications/subscriptions/acknowledged');
      const c = await openListen(peer, { toolsListChanged: true });
      assert.deepEqual(c.first.error, { code: -32603, message: 'Server busy: 2 subscriptions/listen streams are open' });
      peer.notify('notifications/cancelled', { requestId: a.id });
      await peer.barrier();
      const d = await openListen(peer, { toolsListChanged: true });
      assert.equal(d.first.method, 'notifications/subscriptions/acknowledged');
      for (const s of [b, d]) peer.notify('notifications/cancelled', { requestId: s.id });
    },
    { revision: MODERN },
  );
});

test('HTTP: a listen with too many resourceSubscriptions gets 400 and -32602 (streamable-http.mdx)', async () => {
  const s = await serve(limitedServer({ maxListenUris: 2 }));
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const o = await peer.modern('subscriptions/listen', { notifications: { resourceSubscriptions: ['test://1', 'test://2', 'test://3'] } });
    assert.equal(o.status, 400);
    assert.equal(o.messages[0]?.error?.code, -32602);
  } finally {
    await s.close();
  }
});

/** A server whose `wait` tool runs until the test lets it go. */
function waitingServer(limits: ServerLimits) {
  const gate = deferred();
  const server = limitedServer(limits);
  server.tool('wait', async () => {
    await gate.promise;
    return 'done';
  });
  return { server, release: gate.resolve };
}

test('a legacy session holds at most maxInFlightPerSession requests: one more is -32600 at once; finished ones make room', async () => {
  const { server, release } = waitingServer({ maxInFlightPerSession: 2 });
  await withMemoryPeer(
    server,
    async (peer) => {
      const running = [
        peer.request('tools/call', { name: 'wait', arguments: {} }),
        peer.request('tools/call', { name: 'wait', arguments: {} }),
      ];
      const refused = await peer.request('tools/call', { name: 'wait', arguments: {} });
      assert.deepEqual(refused.error, { code: -32600, message: 'Invalid Request: more than 2 requests in flight on this session' });
      // 2026-07-28 requests on the same channel count too.
      const modern = await peer.modern('tools/list');
      assert.equal(modern.error?.code, -32600);
      release();
      for (const r of await Promise.all(running)) assert.deepEqual(r.result?.content, [{ type: 'text', text: 'done' }]);
      assert.ok((await peer.request('tools/call', { name: 'wait', arguments: {} })).result);
    },
    { revision: '2025-11-25', handshake: {} },
  );
});

test('a session has at most maxPendingClientRequests requests to the client waiting: one more makes that ask fail, a tool error', async () => {
  const server = limitedServer({ maxPendingClientRequests: 1 });
  server.tool('two_roots', async (_a, ctx) => {
    const [a, b] = await Promise.all([ctx.roots(), ctx.roots()]);
    return `${a.length + b.length}`;
  });
  await withMemoryPeer(
    server,
    async (peer) => {
      const call = peer.request('tools/call', { name: 'two_roots', arguments: {} });
      const ask = await peer.next((m) => m.method === 'roots/list');
      const r = await call;
      assert.equal(r.result?.isError, true, JSON.stringify(r));
      assert.equal(r.result.content[0].text, 'roots/list not sent: 1 requests to the client are already waiting for an answer');
      peer.respond(ask.id, { roots: [] });
      await peer.assertNone((m) => m.method === 'roots/list', 'a second roots/list');
    },
    { revision: '2025-11-25', handshake: { roots: {} } },
  );
});

test('MRTR: a round asks at most maxInputRequests questions (-32603, reported); a request takes at most maxInputRounds rounds (-32600)', async () => {
  const errors: unknown[] = [];
  const server = limitedServer({ maxInputRequests: 2, maxInputRounds: 1 }, errors);
  server.tool('three_at_once', async (_a, ctx) => {
    await Promise.all([ctx.roots({ key: 'a' }), ctx.roots({ key: 'b' }), ctx.roots({ key: 'c' })]);
    return 'never';
  });
  server.tool('two_rounds', async (_a, ctx) => {
    await ctx.roots({ key: 'first' });
    await ctx.roots({ key: 'second' });
    return 'never';
  });
  await withMemoryPeer(
    server,
    async (peer) => {
      const call = (name: string, extra: Msg = {}) => peer.modern('tools/call', { name, arguments: {}, ...extra }, { caps: { roots: {} } });
      const many = await call('three_at_once');
      assert.deepEqual(many.error, { code: -32603, message: 'one input round may ask at most 2 questions (limits.maxInputRequests)' });
      const r1 = await call('two_rounds');
      assert.equal(r1.result?.resultType, 'input_required');
      const r2 = await call('two_rounds', { requestState: r1.result.requestState, inputResponses: { first: { roots: [] } } });
      assert.deepEqual(r2.error, {
        code: -32600,
        message: "Invalid Request: tools/call needs more than 1 input rounds (the server's limit)",
      });
    },
    { revision: MODERN },
  );
  assert.equal(errors.length, 1, 'the round that asked too much is a server bug: reported');
});

test('a limit must be a positive integer: anything else fails createServer with a JanusError', () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    assert.throws(
      () => createServer({ name: 'x', version: '1', limits: { maxJsonDepth: bad } }),
      (e: unknown) =>
        e instanceof JanusError && e.code === 'REGISTRATION' && /limits\.maxJsonDepth must be a positive integer/.test(e.message),
    );
  }
});
