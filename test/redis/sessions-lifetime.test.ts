/**
 * The end of shared legacy sessions, on a real Redis (docs/scale-out.md §Legacy sessions): a
 * session left idle expires in Redis and its `onClosed` runs once across three instances, while
 * a session in use through all of them does not expire; the server's pings run on the instance
 * holding the session's GET stream, move with it, and a ping left unanswered ends the session
 * once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, type SessionOptions } from '../../src/server/index.js';
import { SESSION_STORE } from '../../src/server/legacy/spi.js';
import type { RedisCluster } from '../../src/redis/index.js';
import { HttpPeer, nextMessage, type RawReply, type Served } from '../http-e2e/support.js';
import type { Msg } from '../support/common.js';
import { until } from '../support/wait.js';
import { startInstances, startRedis, uniquePrefix, type RedisServer } from './support.js';

const REV = '2025-11-25';

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

/** Three instances (A, B, C) whose `onClosed` hooks report `<instance>:<session>` into `closed`. */
async function three(sessions: Omit<SessionOptions, 'onClosed'>, http: { sessionIdleMs?: number } = {}) {
  const closed: string[] = [];
  const ids: string[] = [];
  const define = (cluster: RedisCluster, index: number) => {
    const label = 'ABC'[index]!;
    ids[index] = cluster.stores.get(SESSION_STORE)!.instanceId;
    const server = createServer({
      name: 'lifetime',
      version: '1.0.0',
      cluster,
      sessions: { ...sessions, onClosed: (s) => void closed.push(`${label}:${s.id}`) },
    });
    server.tool('whoami', { description: 'the instance that serves the call' }, () => label);
    return server;
  };
  const { instances, close } = await startInstances(3, redis.target, uniquePrefix(), define, {}, http);
  const served = instances.map((i) => i.served) as [Served, Served, Served];
  const peer = (at: Served, sid: string | undefined) => {
    const p = new HttpPeer(at.url, REV);
    p.sessionId = sid;
    return p;
  };
  return { served, ids, closed, peer, close };
}

test('a session left idle expires in Redis and its onClosed runs once across three instances; a session in use through all three does not expire', async () => {
  const IDLE_MS = 3000;
  const t = await three({}, { sessionIdleMs: IDLE_MS });
  const [a, b, c] = t.served;
  try {
    const idle = new HttpPeer(a.url, REV);
    await idle.initialize();
    const active = new HttpPeer(b.url, REV);
    await active.initialize();
    // Each instance serves both once, so each holds a copy of each.
    for (const at of t.served) {
      assert.equal((await t.peer(at, idle.sessionId).request('ping')).status, 200);
      assert.equal((await t.peer(at, active.sessionId).request('ping')).status, 200);
    }
    // The active one is used every 200 ms, through A, B and C in turn, until the idle one has ended and long after.
    let turn = 0;
    const use = async () => {
      const at = t.served[turn++ % 3]!;
      const o = await t.peer(at, active.sessionId).request('tools/call', { name: 'whoami', arguments: {} });
      assert.equal(o.status, 200, `the active session, ${IDLE_MS * 3} ms after it opened: ${JSON.stringify(o.messages)}`);
    };
    const started = performance.now();
    await until(
      async () => {
        await use();
        return t.closed.some((x) => x.endsWith(`:${idle.sessionId}`));
      },
      'onClosed of the idle session',
      20_000,
    );
    // Well past a second idle period and several sweeps of every instance: still once, and only for the idle one.
    while (performance.now() - started < IDLE_MS * 3) {
      await use();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(t.closed.length, 1, `onClosed ran once: ${t.closed.join(', ')}`);
    assert.match(t.closed[0]!, new RegExp(`^[ABC]:${idle.sessionId}$`));
    for (const at of [a, b, c]) {
      assert.equal((await t.peer(at, idle.sessionId).request('ping')).status, 404, 'the expired session is gone everywhere');
      assert.equal((await t.peer(at, active.sessionId).request('ping')).status, 200);
    }
  } finally {
    await t.close();
  }
});

/** The next message on `stream` that is a ping request. */
async function nextPing(stream: RawReply): Promise<Msg> {
  for (;;) {
    const m = await nextMessage(stream, 10_000);
    if (m.method === 'ping') return m;
  }
}

test('server pings run where the GET stream is: they come from A while A holds it, from B once B took it; one left unanswered ends the session once, on B', async () => {
  const t = await three({ ping: { intervalMs: 100, timeoutMs: 1500 } });
  const [a, b, c] = t.served;
  const onA = new HttpPeer(a.url, REV);
  await onA.initialize();
  const sid = onA.sessionId!;
  const onB = t.peer(b, sid);
  // Answers go to C, which neither asked nor holds the stream: the cluster passes them on.
  const onC = t.peer(c, sid);
  const answer = async (ping: Msg) => {
    const o = await onC.post({ jsonrpc: '2.0', id: ping.id, result: {} });
    assert.equal(o.status, 202);
  };
  try {
    const onAStream = await onA.get();
    assert.equal(onAStream.status, 200);
    for (let i = 0; i < 3; i++) {
      const ping = await nextPing(onAStream);
      assert.ok(String(ping.id).startsWith(`${t.ids[0]}.`), `ping ${String(ping.id)} from A (${t.ids[0]})`);
      await answer(ping);
    }
    // B takes the stream: A's ends, and the pings come from B.
    const onBStream = await onB.get();
    assert.equal(onBStream.status, 200);
    await onAStream.ended;
    for (let i = 0; i < 3; i++) {
      const ping = await nextPing(onBStream);
      assert.ok(String(ping.id).startsWith(`${t.ids[1]}.`), `ping ${String(ping.id)} from B (${t.ids[1]})`);
      await answer(ping);
    }
    assert.deepEqual(t.closed, [], 'answered pings keep the session');
    // Unanswered from now on: B ends the session once, everywhere.
    await until(() => t.closed.length > 0, 'the session to end after an unanswered ping', 20_000);
    await onBStream.ended;
    // onClosed runs as the end begins; the record's removal (and every copy's drop) follows it.
    for (const peer of [onA, onB, onC]) {
      await until(async () => (await peer.request('ping')).status === 404, 'the ended session to be 404 on every instance', 10_000);
    }
    assert.deepEqual(t.closed, [`B:${sid}`], 'onClosed ran once, on B, whose ping failed');
  } finally {
    await t.close();
  }
});
