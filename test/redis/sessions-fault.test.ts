/**
 * Legacy Streamable HTTP sessions while Redis is unreachable (docs/scale-out.md
 * §Failure behaviour): three instances of one server on one redis-server, which is killed (it
 * refuses connections at once) or frozen with SIGSTOP (connections stay open, nothing
 * answers). An instance that already serves a session goes on with what it knows; writes that
 * need the store get -32603 "retry later"; a session the instance does not know gets 503, a
 * DELETE that could not remove the record 503, a GET resuming from the event store 503; none
 * hangs. Once Redis is back empty, the old session is 404 on every instance, new sessions
 * work and fan-out to their GET streams resumes; recovery times are reported.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, test, type TestContext } from 'node:test';
import { createServer } from '../../src/server/index.js';
import type { RedisCluster } from '../../src/redis/index.js';
import type { Msg } from '../support/common.js';
import { delay, until } from '../support/wait.js';
import { HttpPeer, type Outcome, type RawReply, type Served } from '../http-e2e/support.js';
import { startInstances, startRedis, uniquePrefix, type RedisServer } from './support.js';

const REV = '2025-11-25';
const WATCHED = 'test://watched';
/** Each Redis command's deadline (the cluster's commandTimeoutMs): what a frozen Redis costs a request per command. */
const COMMAND_TIMEOUT_MS = 300;
/** Longer than anything Redis-bound may take: a request past it hangs. */
const REQUEST_LIMIT_MS = 5000;
/** How long Redis stays away once the checks have run. */
const OUTAGE_MS = 500;
/** Generous: node-redis retries at most every 2 s. */
const RECOVERY_LIMIT_MS = 15_000;
const UNAVAILABLE = /shared session store is unavailable; retry later/;

function define(cluster: RedisCluster) {
  const server = createServer({ name: 'scaled', version: '1.0.0', cluster });
  server.tool('whoami', { description: 'the instance that serves the call' }, (_args, ctx) => `${ctx.sessionId}`);
  server.resource(WATCHED, { name: 'watched' }, 'watched text');
  return server;
}

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  redis?.thaw(); // in case a failed test left it stopped
  await redis?.stop();
});

/** Three instances on the test's Redis; `lost` collects what the clusters report. */
async function three(lost: Error[]) {
  const { instances, close } = await startInstances(3, redis.url, uniquePrefix(), define, {
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    onError: (e) => void lost.push(e),
  });
  const [a, b, c] = instances.map((i) => i.served) as [Served, Served, Served];
  return { a, b, c, close };
}

/** A peer of the session `sid` talking to `at`. */
function peerOn(at: Served, sid: string | undefined): HttpPeer {
  const peer = new HttpPeer(at.url, REV);
  peer.sessionId = sid;
  return peer;
}

/** A session initialized on `at`, and served once by each of `servedBy` (so they hold a replica). */
async function session(at: Served, ...servedBy: Served[]): Promise<string> {
  const peer = new HttpPeer(at.url, REV);
  await peer.initialize();
  for (const s of servedBy) assert.equal((await peerOn(s, peer.sessionId).request('ping')).status, 200);
  return peer.sessionId!;
}

/** `reply`, with how long it took; fails when it takes longer than REQUEST_LIMIT_MS (a hang). */
async function timed<T>(what: string, reply: Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${REQUEST_LIMIT_MS} ms`)), REQUEST_LIMIT_MS);
  });
  try {
    const value = await Promise.race([reply, hang]);
    return { value, ms: Math.round(performance.now() - start) };
  } finally {
    clearTimeout(timer);
  }
}

const only = (o: Outcome): Msg => {
  assert.equal(o.messages.length, 1, JSON.stringify(o.messages));
  return o.messages[0]!;
};
const text = (o: Outcome): unknown => only(o).result?.content?.[0]?.text;

/** The JSON-RPC error -32603 "… retry later" of a write that needs the store, on an HTTP 200 (legacy: an error is an answer). */
function refusedRetryLater(o: Outcome, what: string): void {
  assert.equal(o.status, 200, what);
  const m = only(o);
  assert.equal(m.error?.code, -32603, `${what}: ${JSON.stringify(m)}`);
  assert.match(m.error.message, UNAVAILABLE, what);
}

/** HTTP 503 with a JSON-RPC -32603 body. */
function unavailable(o: Outcome, what: string): void {
  assert.equal(o.status, 503, `${what}: ${JSON.stringify(o.messages)}`);
  assert.equal(only(o).error?.code, -32603, what);
}

/** A GET stream's cursor: the id of its first logged message (from the server's own handle of the session). */
async function cursorOf(at: Served, peer: HttpPeer): Promise<string> {
  const stream = await peer.get();
  assert.equal(stream.status, 200);
  at.server.session(peer.sessionId!)!.log('info', 'before the outage');
  let e = await stream.next();
  while (e.message === undefined) e = await stream.next();
  assert.ok(e.id, 'a resumable stream gives every event an id');
  stream.abort();
  await stream.ended;
  return e.id;
}

/** What the servers reported through onError: each a Redis failure, nothing else (emptied, so close() does not throw). */
function drainReported(servers: readonly Served[]): number {
  const reported = servers.flatMap((s) => s.errors.splice(0));
  for (const e of reported)
    assert.match(String((e as Error)?.message ?? e), /unavailable|Redis|retry later|offline|[Ss]ocket closed|ECONNREFUSED/, String(e));
  return reported.length;
}

/**
 * While Redis is away (killed or frozen): what each kind of request gets, each within
 * REQUEST_LIMIT_MS. `sid` was opened on A and served by B; C never served it; `cursor` is an
 * event id of `sid`'s GET stream; `doomed` a session A and B serve, deleted here.
 */
async function duringOutage(
  t: TestContext,
  s: { a: Served; b: Served; c: Served },
  sid: string,
  cursor: string,
  doomed: string,
): Promise<void> {
  const times: string[] = [];
  const run = async (what: string, reply: Promise<Outcome>) => {
    const { value, ms } = await timed(what, reply);
    times.push(`${what} ${ms} ms`);
    return value;
  };
  const onB = peerOn(s.b, sid);

  // B serves the session already: it goes on with what it knows.
  assert.equal(text(await run('tools/call on B (replica)', onB.request('tools/call', { name: 'whoami', arguments: {} }))), sid);
  assert.equal((await run('ping on B (replica)', onB.request('ping'))).status, 200);

  // Writes that need the store are refused, saying the client may retry.
  refusedRetryLater(await run('logging/setLevel on B', onB.request('logging/setLevel', { level: 'error' })), 'logging/setLevel');
  refusedRetryLater(await run('resources/subscribe on B', onB.request('resources/subscribe', { uri: WATCHED })), 'resources/subscribe');
  refusedRetryLater(
    await run('resources/unsubscribe on B', onB.request('resources/unsubscribe', { uri: WATCHED })),
    'resources/unsubscribe',
  );
  const opening = await run(
    'initialize on A',
    new HttpPeer(s.a.url, REV).request('initialize', {
      protocolVersion: REV,
      capabilities: {},
      clientInfo: { name: 'late', version: '1' },
    }),
  );
  refusedRetryLater(opening, 'initialize of a new session');
  assert.equal(opening.headers['mcp-session-id'], undefined, 'no session id for a session that was not opened');

  // C does not know the session: it cannot load it.
  unavailable(await run('ping on C (unknown)', peerOn(s.c, sid).request('ping')), 'a session C never served');
  // The event store cannot tell what came after the cursor.
  const resumed = await timed('GET + Last-Event-ID on A', peerOn(s.a, sid).get({ 'last-event-id': cursor }));
  times.push(`GET + Last-Event-ID on A ${resumed.ms} ms`);
  assert.equal(resumed.value.status, 503);
  resumed.value.abort();
  // The record cannot be removed: the client is told to DELETE again.
  const doomedOnB = peerOn(s.b, doomed);
  const deleted = await run(
    'DELETE on B',
    doomedOnB.send({ method: 'DELETE', headers: doomedOnB.sessionHeaders() }).then((r) => doomedOnB.finish(r)),
  );
  assert.equal(deleted.status, 503);
  t.diagnostic(`answers while Redis is away: ${times.join(', ')}`);
}

test('Redis killed, then back empty: replicas go on, writes and unknown sessions are refused; afterwards the old session is 404 everywhere, new ones work, fan-out resumes', async (t) => {
  const lost: Error[] = [];
  const s = await three(lost);
  try {
    const sid = await session(s.a, s.b);
    const doomed = await session(s.a, s.b);
    const cursor = await cursorOf(s.a, peerOn(s.a, sid));

    await redis.kill();
    try {
      await duringOutage(t, s, sid, cursor, doomed);
      await delay(OUTAGE_MS);
    } finally {
      await redis.restart();
    }
    const restartedAt = performance.now();
    // The records are gone: every instance says so (A and B held replicas, C never served it), whatever it answered while reconnecting.
    const goneEverywhere = async () => {
      for (const at of [s.a, s.b, s.c]) {
        await until(
          async () => (await peerOn(at, sid).request('ping')).status === 404,
          `the old session to be 404 on ${at.url}`,
          RECOVERY_LIMIT_MS,
        );
      }
      return performance.now();
    };
    // A new session opens on C, is served by A, and A's GET stream of it hears a change made on B.
    const newSession = async () => {
      const peer = new HttpPeer(s.c.url, REV);
      await until(
        async () => {
          const o = await peer.request('initialize', { protocolVersion: REV, capabilities: {}, clientInfo: { name: 'new', version: '1' } });
          return o.status === 200 && only(o).result !== undefined && o.headers['mcp-session-id'];
        },
        'a new session to open on C',
        RECOVERY_LIMIT_MS,
      ).then((id) => (peer.sessionId = id as string));
      assert.equal((await peer.notify('notifications/initialized')).status, 202);
      const openedAt = performance.now();
      const onA = peerOn(s.a, peer.sessionId);
      // A serves it once its own connection to Redis is back, which may be a moment after C's:
      // until then it refuses a session it cannot look up (503), as during the outage.
      await until(
        async () => text(await onA.request('tools/call', { name: 'whoami', arguments: {} })) === peer.sessionId,
        'A to serve the session opened on C',
        RECOVERY_LIMIT_MS,
      );
      return { onA, openedAt };
    };
    const [goneAt, fresh2] = await Promise.all([goneEverywhere(), newSession()]);
    const stream = await fresh2.onA.get();
    try {
      assert.equal(stream.status, 200);
      assert.equal(only(await fresh2.onA.request('resources/subscribe', { uri: WATCHED })).error, undefined);
      const fanOutAt = await heardFrom(s.b, stream);
      t.diagnostic(
        `recovery after redis-server restarted empty: old session 404 on all three ${Math.round(goneAt - restartedAt)} ms, ` +
          `a new session opened ${Math.round(fresh2.openedAt - restartedAt)} ms, fan-out B -> A's GET stream ${Math.round(fanOutAt - restartedAt)} ms`,
      );
    } finally {
      stream.abort();
    }
    // The session DELETE could not end is gone with the rest: a later DELETE finds nothing.
    const later = peerOn(s.a, doomed);
    assert.equal((await later.send({ method: 'DELETE', headers: later.sessionHeaders() })).status, 404);

    assert.ok(lost.length >= 1, 'the clusters reported the lost connections');
    t.diagnostic(`onError: clusters ${lost.length} lost connections, servers ${drainReported([s.a, s.b, s.c])} failures`);
  } finally {
    for (const at of [s.a, s.b, s.c]) at.errors.splice(0);
    await s.close();
  }
});

/** Publishes `resources/updated` from `from` until `stream` (subscribed on another instance) hears it; when it did (performance.now()). */
async function heardFrom(from: Served, stream: RawReply): Promise<number> {
  const heard = () => stream.events.some((e) => e.message?.method === 'notifications/resources/updated');
  await until(
    () => {
      if (!heard()) from.server.resourceUpdated(WATCHED);
      return heard();
    },
    'the change to reach the GET stream',
    RECOVERY_LIMIT_MS,
  );
  return performance.now();
}

test("Redis frozen (SIGSTOP): no request hangs (none waits longer than its Redis commands' deadlines); after SIGCONT the sessions are served on every instance again", async (t) => {
  const lost: Error[] = [];
  const s = await three(lost);
  try {
    const sid = await session(s.a, s.b);
    const doomed = await session(s.a, s.b);
    const cursor = await cursorOf(s.a, peerOn(s.a, sid));

    redis.freeze();
    try {
      await duringOutage(t, s, sid, cursor, doomed);
      await delay(OUTAGE_MS);
    } finally {
      redis.thaw();
    }
    const thawedAt = performance.now();
    // Nothing was lost: C, which never served the session, loads it.
    const onC = peerOn(s.c, sid);
    await until(async () => (await onC.request('ping')).status === 200, 'C to serve the session again', RECOVERY_LIMIT_MS);
    const servedAt = performance.now();
    assert.equal(text(await onC.request('tools/call', { name: 'whoami', arguments: {} })), sid);
    // The writes refused meanwhile work now.
    assert.equal(only(await onC.request('logging/setLevel', { level: 'error' })).error, undefined);
    // A GET stream on C hears a change made on A.
    const stream = await onC.get();
    try {
      assert.equal(stream.status, 200);
      assert.equal(only(await onC.request('resources/subscribe', { uri: WATCHED })).error, undefined);
      const fanOutAt = await heardFrom(s.a, stream);
      t.diagnostic(
        `recovery after SIGCONT: the session served on C ${Math.round(servedAt - thawedAt)} ms, fan-out A -> C's GET stream ${Math.round(fanOutAt - thawedAt)} ms`,
      );
    } finally {
      stream.abort();
    }
    // The DELETE refused meanwhile: a later one ends the session (or finds it ended: the refused one reached Redis once it ran again).
    const later = peerOn(s.c, doomed);
    const again = await later.send({ method: 'DELETE', headers: later.sessionHeaders() });
    assert.ok([200, 404].includes(again.status), `a later DELETE: ${again.status}`);
    for (const at of [s.a, s.b, s.c]) assert.equal((await peerOn(at, doomed).request('ping')).status, 404);
    t.diagnostic(
      `a later DELETE got ${again.status}; onError: clusters ${lost.length}, servers ${drainReported([s.a, s.b, s.c])} failures`,
    );
  } finally {
    redis.thaw();
    for (const at of [s.a, s.b, s.c]) at.errors.splice(0);
    await s.close();
  }
});

test('notifications/initialized while Redis is killed: refused with an HTTP error and -32603 "retry later", the session left uninitialized so the retry counts', async () => {
  const lost: Error[] = [];
  const s = await three(lost);
  try {
    const fresh = new HttpPeer(s.a.url, REV);
    const opened = await fresh.request('initialize', {
      protocolVersion: REV,
      capabilities: {},
      clientInfo: { name: 'fresh', version: '1' },
    });
    fresh.sessionId = opened.headers['mcp-session-id'] as string;
    await redis.kill();
    try {
      const { value: told } = await timed('notifications/initialized on A', fresh.notify('notifications/initialized'));
      // 2025-11-25 transports §Sending Messages: input the server cannot accept gets an HTTP error status, a JSON-RPC error without id MAY be the body.
      assert.ok(told.status >= 400, `notifications/initialized got ${told.status}`);
      refusedRetryLaterBody(told);
      const call = await timed('tools/call on A', fresh.request('tools/call', { name: 'whoami', arguments: {} }));
      assert.equal(only(call.value).error?.code, -32600, 'the session is not initialized on A either');
    } finally {
      await redis.restart();
    }
  } finally {
    for (const at of [s.a, s.b, s.c]) at.errors.splice(0);
    await s.close();
  }
});

function refusedRetryLaterBody(o: Outcome): void {
  const m = only(o);
  assert.equal(m.error?.code, -32603, JSON.stringify(m));
  assert.match(m.error.message, UNAVAILABLE);
}
