/**
 * Legacy Streamable HTTP sessions served by any instance: three instances of one
 * server on one Redis. A session initialized on A is served by B and C with what it negotiated,
 * its log level and its subscriptions; an elicitation request goes out on A's GET stream and
 * its answer, POSTed to C, reaches the handler on B; a GET stream dropped on A resumes on B
 * with `Last-Event-ID`; list changes missed while no stream was open are announced on any
 * instance; DELETE on C ends the session on A and B.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, type SessionHandle } from '../../src/server/index.js';
import { ClusterStores, type Cluster } from '../../src/spi/index.js';
import { SESSION_STORE } from '../../src/server/legacy/spi.js';
import { TASK_STORE } from '../../src/extensions/tasks/index.js';
import type { RedisCluster } from '../../src/redis/index.js';
import { HttpPeer, nextMessage, type Served } from '../http-e2e/support.js';
import { until } from '../support/wait.js';
import { startInstances, startRedis, uniquePrefix, type RedisServer } from './support.js';

const REV = '2025-11-25';
const WATCHED = 'test://watched';

interface Seen {
  readonly closed: string[];
  readonly initialized: string[];
}

/** `shape`: the cluster as the server is given it (a test may take a part away). */
function definer(seen: Seen, shape: (cluster: RedisCluster) => Cluster = (c) => c) {
  let n = 0;
  return (cluster: RedisCluster) => {
    const label = 'ABC'[n++] ?? '?';
    const server = createServer({
      name: 'scaled',
      version: '1.0.0',
      cluster: shape(cluster),
      sessions: {
        onInitialized: (s) => void seen.initialized.push(`${label}:${s.id}`),
        onClosed: (s) => void seen.closed.push(`${label}:${s.id}`),
      },
    });
    server.tool('whoami', { description: 'the instance that serves the call' }, (_args, ctx) => `${label} ${ctx.sessionId}`);
    server.tool('log_both', { description: 'logs at debug and at error' }, (_args, ctx) => {
      ctx.log('debug', 'quiet');
      ctx.log('error', 'loud');
      return 'logged';
    });
    server.tool('ask_on_session', { description: "asks on the session's own stream" }, async (_args, ctx) => {
      const answer = await ctx.session!.elicit({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return `${label} got ${answer.action === 'accept' ? String(answer.content?.name) : answer.action}`;
    });
    server.resource(WATCHED, { name: 'watched' }, 'watched text');
    return server;
  };
}

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

/** A peer of the session `sid` talking to `at`. */
function peerOn(at: Served, sid: string): HttpPeer {
  const peer = new HttpPeer(at.url, REV);
  peer.sessionId = sid;
  return peer;
}

const text = (o: { messages: Array<Record<string, any>> }): string => o.messages.at(-1)?.result?.content?.[0]?.text;

async function three(seen: Seen = { closed: [], initialized: [] }, shape?: (cluster: RedisCluster) => Cluster) {
  const { instances, close } = await startInstances(3, redis.target, uniquePrefix(), definer(seen, shape));
  const [a, b, c] = instances.map((i) => i.served) as [Served, Served, Served];
  const onA = new HttpPeer(a.url, REV);
  await onA.initialize({ elicitation: {} });
  const sid = onA.sessionId!;
  return { a, b, c, onA, onB: peerOn(b, sid), onC: peerOn(c, sid), sid, seen, close };
}

test('a session initialized on A is served by B and C with its version, capabilities, log level and subscriptions', async () => {
  const t = await three();
  try {
    assert.deepEqual(t.seen.initialized, [`A:${t.sid}`], 'onInitialized runs once, where the session initialized');
    assert.equal(text(await t.onB.request('tools/call', { name: 'whoami', arguments: {} })), `B ${t.sid}`);
    assert.equal(text(await t.onC.request('tools/call', { name: 'whoami', arguments: {} })), `C ${t.sid}`);

    // The level set through B holds on C.
    assert.equal((await t.onB.request('logging/setLevel', { level: 'warning' })).status, 200);
    const logged = await t.onC.request('tools/call', { name: 'log_both', arguments: {} });
    const logs = logged.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.data);
    assert.deepEqual(logs, ['loud']);

    // A's GET stream hears of a resource the client subscribed to through C, updated through B, once.
    const stream = await t.onA.get();
    assert.equal(stream.status, 200);
    assert.equal((await t.onC.request('resources/subscribe', { uri: WATCHED })).status, 200);
    t.b.server.resourceUpdated(WATCHED);
    const updated = await nextMessage(stream);
    assert.deepEqual(updated, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: WATCHED } });
    assert.equal((await t.onB.request('resources/unsubscribe', { uri: WATCHED })).status, 200);
    t.c.server.resourceUpdated(WATCHED);
    t.b.server.tool('marker', () => 'm');
    // Unsubscribed: the next message is the marker's list change, not a second update.
    assert.equal((await nextMessage(stream)).method, 'notifications/tools/list_changed');
    stream.abort();
    for (const p of [t.onA, t.onB, t.onC]) p.assertClean();
  } finally {
    await t.close();
  }
});

for (const [how, shape] of [
  ['the cluster event store', undefined],
  ['pub/sub to the holder (no shared event store)', (c: RedisCluster): Cluster => ({ ...c, stores: withoutEventStore(c.stores) })],
] as const) {
  test(`an elicitation asked on B goes out on A's GET stream, and the answer POSTed to C reaches B's handler (${how})`, async () => {
    await elicitAcross(await three(undefined, shape));
  });
}

/** A cluster's stores without its SSE event store (`EVENT_STORE`): the sessions' and the tasks' kept. */
function withoutEventStore(stores: ClusterStores): ClusterStores {
  return new ClusterStores().set(SESSION_STORE, stores.get(SESSION_STORE)!).set(TASK_STORE, stores.get(TASK_STORE)!);
}

async function elicitAcross(t: Awaited<ReturnType<typeof three>>): Promise<void> {
  try {
    const stream = await t.onA.get();
    assert.equal(stream.status, 200);
    // B learns where the GET stream is when it serves its first request of the session.
    await until(
      async () => text(await t.onB.request('tools/call', { name: 'whoami', arguments: {} })) === `B ${t.sid}`,
      'B serves the session',
    );
    const call = t.onB.open({ jsonrpc: '2.0', id: 'ask-1', method: 'tools/call', params: { name: 'ask_on_session', arguments: {} } });
    const ask = await nextMessage(stream);
    assert.equal(ask.method, 'elicitation/create');
    assert.equal(ask.params.message, 'Your name?');
    const answered = await t.onC.post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ada' } } });
    assert.equal(answered.status, 202);
    const outcome = await t.onB.finish(await call);
    assert.equal(text(outcome), 'B got Ada');
    stream.abort();
    for (const p of [t.onA, t.onB, t.onC]) p.assertClean();
  } finally {
    await t.close();
  }
}

test('a GET stream dropped on A resumes on B with Last-Event-ID: missed messages replayed, later ones live', async () => {
  const t = await three();
  const handleOn = (served: Served): SessionHandle => served.server.session(t.sid)!;
  try {
    // C serves the session once, so it holds a handle to it.
    assert.equal((await t.onC.request('ping')).status, 200);
    const first = await t.onA.get();
    assert.equal(first.status, 200);
    // The stream is read from its priming event on: one stored before it (the headers go out
    // first) is not on this connection, so C speaks once the client has the priming event.
    assert.equal((await first.next()).data, '');
    handleOn(t.c).log('info', 'one');
    let one = await first.next();
    while (one.message === undefined) one = await first.next();
    assert.equal(one.message.params.data, 'one');
    assert.ok(one.id, 'a resumable stream gives every event an id');
    first.abort();
    // Sent while the stream is down (or before A noticed): kept on Redis for the resumption either way.
    handleOn(t.c).log('info', 'two');
    const resumed = await t.onB.get({ 'last-event-id': one.id });
    assert.equal(resumed.status, 200);
    assert.equal((await nextMessage(resumed)).params.data, 'two');
    handleOn(t.c).log('info', 'three');
    assert.equal((await nextMessage(resumed)).params.data, 'three');
    resumed.abort();
  } finally {
    await t.close();
  }
});

test('a list changed while no GET stream is open is announced on the next response, on any instance, until fetched', async () => {
  const t = await three();
  try {
    t.b.server.tool('added', () => 'new');
    const announced = async (peer: HttpPeer) =>
      (await peer.request('ping')).messages.some((m) => m.method === 'notifications/tools/list_changed');
    await until(() => announced(t.onC), 'C announces the change made through B');
    assert.equal(await announced(t.onA), true, 'A announces it too: the client has not fetched the list');
    assert.equal((await t.onB.request('tools/list')).status, 200);
    assert.equal(await announced(t.onA), false, 'fetched through B: nothing to announce on A');
    assert.equal(await announced(t.onC), false);
  } finally {
    await t.close();
  }
});

test('DELETE on C ends the session on A and B: their streams end, their requests get 404, onClosed runs once', async () => {
  const t = await three();
  try {
    assert.equal((await t.onB.request('ping')).status, 200);
    const stream = await t.onA.get();
    assert.equal(stream.status, 200);
    const deleted = await t.onC.send({ method: 'DELETE', headers: t.onC.sessionHeaders() });
    assert.equal(deleted.status, 200);
    await stream.ended;
    assert.equal((await t.onA.request('ping')).status, 404);
    assert.equal((await t.onB.request('ping')).status, 404);
    assert.equal((await t.onC.request('ping')).status, 404);
    assert.deepEqual(t.seen.closed, [`C:${t.sid}`]);
  } finally {
    await t.close();
  }
});
