/**
 * What a legacy session's SSE answers cost in the event store, with the real server (before
 * these bounds, 400 sessions that each got a 1 MiB result over SSE and were deleted
 * used to leave 106 MB behind). A session's streams are freed when it ends: DELETE
 * (2025-11-25 transports §Session Management item 5), idle expiry, server shutdown; the store's
 * byte bound holds however many sessions never end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { InMemoryEventStore } from '../../src/transports/http/index.js';
import { withClock } from '../support/wait.js';
import { HttpPeer, serve } from './support.js';

const MiB = 1024 * 1024;

/** A server with one tool that reports progress (so the answer is an SSE stream) and returns `kib` KiB of text. */
function bigResultServer() {
  const server = createServer({ name: 'big', version: '1.0.0' });
  server.tool('big', async (_args, ctx) => {
    ctx.progress(1, 1);
    return 'x'.repeat(MiB);
  });
  return server;
}

async function sessionWithBigAnswer(peer: HttpPeer): Promise<void> {
  await peer.initialize();
  const o = await peer.request('tools/call', { name: 'big', arguments: {}, _meta: { progressToken: 1 } });
  assert.equal(o.kind, 'sse');
  assert.equal(o.messages.length, 2, 'the progress notification and the result');
}

test("DELETE frees the session's stored SSE events at once (2025-11-25 §Session Management item 5)", async () => {
  const store = new InMemoryEventStore();
  const s = await serve(bigResultServer(), { eventStore: store });
  try {
    const peer = new HttpPeer(s.url, '2025-11-25');
    await sessionWithBigAnswer(peer);
    assert.ok(store.bytes > MiB, `the answer is stored for resumption (${store.bytes} bytes)`);
    const deleted = await peer.send({ method: 'DELETE', headers: peer.sessionHeaders() });
    assert.equal(deleted.status, 200);
    assert.equal(store.size, 0);
    assert.equal(store.bytes, 0);
  } finally {
    await s.close();
  }
});

test('a session that idles out frees its stored SSE events, and so does server shutdown', async () => {
  await withClock(async (clock) => {
    const store = new InMemoryEventStore();
    const s = await serve(bigResultServer(), { eventStore: store, sessionIdleMs: 60_000, maxSessions: 1 });
    try {
      await sessionWithBigAnswer(new HttpPeer(s.url, '2025-11-25'));
      assert.ok(store.bytes > MiB);
      clock.now += 60_001;
      const second = new HttpPeer(s.url, '2025-11-25');
      await second.initialize(); // the full table sweeps the idle session
      assert.equal(store.size, 0, 'the expired session took its streams with it');
      const o = await second.request('tools/call', { name: 'big', arguments: {}, _meta: { progressToken: 2 } });
      assert.equal(o.kind, 'sse');
      assert.ok(store.bytes > MiB);
    } finally {
      await s.close();
    }
    assert.equal(store.size, 0, 'shutdown ends every session and frees its streams');
  });
});

test('sessions that never end: the store holds at most maxBytes however many 1 MiB answers it saw', async () => {
  const store = new InMemoryEventStore({ maxBytes: 4 * MiB });
  const s = await serve(bigResultServer(), { eventStore: store });
  try {
    for (let i = 0; i < 12; i++) {
      await sessionWithBigAnswer(new HttpPeer(s.url, '2025-11-25'));
      assert.ok(store.bytes <= 4 * MiB, `after ${i + 1} sessions: ${store.bytes} bytes`);
    }
    assert.equal(s.sessions.size, 12, 'the sessions themselves are still open');
  } finally {
    await s.close();
  }
});
