/**
 * Each instance answers a shared legacy session's requests from its own copy of the session's
 * record (docs/scale-out.md §Legacy sessions), on a real Redis: a request served from a copy
 * sends Redis nothing; a write through one instance holds on the very next request to another
 * (read-your-writes), over many alternating writes and reads, also when what Redis publishes
 * reaches the instances late or not at all; a DELETE on one is 404 on the other at once; copies
 * go with a lost subscription (Redis restarted empty: the session is 404, not served from a copy).
 */
import assert from 'node:assert/strict';
import { createConnection, createServer as createTcpServer, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { createClient } from 'redis';
import { createServer, type Server } from '../../src/server/index.js';
import { ClusterStores, type Cluster } from '../../src/spi/index.js';
import { SESSION_STORE } from '../../src/server/legacy/spi.js';
import { LOGGING_LEVELS, type LoggingLevel } from '../../src/protocol/index.js';
import { RedisSessionStore, redisLink, type RedisCluster } from '../../src/redis/index.js';
import { HttpPeer, type Outcome, type Served } from '../http-e2e/support.js';
import { until } from '../support/wait.js';
import { startInstances, startRedis, uniquePrefix, type RedisServer } from './support.js';

const REV = '2025-11-25';

function define(cluster: Cluster, index: number): Server {
  const server = createServer({ name: 'copies', version: '1.0.0', cluster });
  server.tool('whoami', { description: 'the instance that serves the call' }, () => 'AB'[index] ?? '?');
  server.tool('log_all', { description: 'logs once at every level' }, (_args, ctx) => {
    for (const level of LOGGING_LEVELS) ctx.log(level, level);
    return 'logged';
  });
  return server;
}

let redis: RedisServer;
let admin: ReturnType<typeof createClient>;
before(async () => {
  redis = await startRedis();
  admin = createClient({ url: redis.url });
  admin.on('error', () => undefined); // a test below restarts Redis: this client reconnects
  await admin.connect();
});
after(async () => {
  await admin?.close();
  await redis?.stop();
});

/**
 * A TCP proxy to the test's Redis that holds back what Redis sends on subscribed connections
 * (those whose client sent SUBSCRIBE) for `lagMs`, in order: published messages reach the
 * instances later than the replies to their commands, as under load or over a slower path.
 * `hold()` keeps them back until `release()`, the connections staying up: a subscription that
 * silently delivers nothing, which its client cannot tell from a quiet one.
 */
async function lagProxy(lagMs: number): Promise<{ url: string; hold(): void; release(): void; close(): Promise<void> }> {
  const target = new URL(redis.url);
  const sockets = new Set<Socket>();
  let held: Array<() => void> | undefined;
  const proxy = createTcpServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    let subscriber = false;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => {
      if (/SUBSCRIBE/i.test(chunk.toString('latin1'))) subscriber = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!subscriber) client.write(chunk);
      else if (held !== undefined) held.push(() => client.write(chunk));
      else setTimeout(() => client.write(chunk), lagMs);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    hold: () => void (held ??= []),
    release: () => {
      const writes = held ?? [];
      held = undefined;
      for (const write of writes) write();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

/** Two instances on the test's Redis (or on `url`), and a session initialized on A. */
async function two(http: { sessionIdleMs?: number } = {}, url = redis.url) {
  const { instances, close } = await startInstances(2, url, uniquePrefix(), define, {}, http);
  const [a, b] = instances.map((i) => i.served) as [Served, Served];
  const onA = new HttpPeer(a.url, REV);
  await onA.initialize();
  const onB = new HttpPeer(b.url, REV);
  onB.sessionId = onA.sessionId;
  return { a, b, onA, onB, close };
}

/** Every command Redis has run so far (INFO commandstats), less the INFO calls that asked. */
async function commandsRun(): Promise<number> {
  const stats = await admin.info('commandstats');
  let total = 0;
  for (const m of stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (m[1] !== 'info') total += Number(m[2]);
  return total;
}

/** The levels of the log messages a `log_all` call delivered: what the serving instance takes the session's level to be. */
async function levelsLogged(peer: HttpPeer): Promise<string[]> {
  const o: Outcome = await peer.request('tools/call', { name: 'log_all', arguments: {} });
  assert.equal(o.status, 200);
  return o.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.level as string);
}

const atOrAbove = (level: LoggingLevel): string[] => LOGGING_LEVELS.slice(LOGGING_LEVELS.indexOf(level));

test('a session known to both instances is served from their copies: 200 requests alternating between them send Redis almost nothing', async () => {
  const t = await two();
  try {
    // Each instance loads the session once.
    assert.equal((await t.onA.request('tools/call', { name: 'whoami', arguments: {} })).status, 200);
    assert.equal((await t.onB.request('tools/call', { name: 'whoami', arguments: {} })).status, 200);
    const before = await commandsRun();
    for (let i = 0; i < 200; i++) {
      const o = await (i % 2 === 0 ? t.onA : t.onB).request('tools/call', { name: 'whoami', arguments: {} });
      assert.equal(o.messages[0]?.result?.content?.[0]?.text, i % 2 === 0 ? 'A' : 'B');
    }
    const sent = (await commandsRun()) - before;
    // Reloading before each request would be 2 commands per request (400); what remains is the
    // lease renewals (one per instance every 2.5 s) and the expiry sweeps (one per instance per second).
    assert.ok(sent < 40, `Redis ran ${sent} commands for 200 requests`);
    t.onA.assertClean();
    t.onB.assertClean();
  } finally {
    await t.close();
  }
});

test('read-your-writes across instances, with what Redis publishes reaching them 25 ms late: each log level set through one instance is the level of the very next call on the other, 100 times in a row; a DELETE is 404 on the other at once', async () => {
  const proxy = await lagProxy(25);
  const t = await two({}, proxy.url);
  try {
    // Both hold a copy from the start.
    assert.deepEqual(await levelsLogged(t.onA), [...LOGGING_LEVELS], 'no level set: the server logs everything');
    assert.deepEqual(await levelsLogged(t.onB), [...LOGGING_LEVELS]);
    for (let i = 0; i < 100; i++) {
      const [writer, reader] = i % 2 === 0 ? [t.onA, t.onB] : [t.onB, t.onA];
      // Every level differs from the one before it, so a stale copy shows.
      const level = LOGGING_LEVELS[(i * 3) % LOGGING_LEVELS.length]!;
      const set = await writer.request('logging/setLevel', { level });
      assert.equal(set.messages[0]?.error, undefined, JSON.stringify(set.messages));
      assert.deepEqual(await levelsLogged(reader), atOrAbove(level), `round ${i}: set to ${level} through the other instance`);
      // The writer's own copy holds it too.
      if (i % 10 === 0) assert.deepEqual(await levelsLogged(writer), atOrAbove(level), `round ${i}, on the writer`);
    }
    const deleted = await t.onA.send({ method: 'DELETE', headers: t.onA.sessionHeaders() });
    assert.equal(deleted.status, 200);
    assert.equal((await t.onB.request('ping')).status, 404, 'ended through A: B answers from no copy');
    assert.equal((await t.onA.request('ping')).status, 404);
  } finally {
    await t.close();
    await proxy.close();
  }
});

test("a write while the other instance's subscription silently delivers nothing still holds there: the write waits out the other's lease", async () => {
  // A short idle time, so that a lease (a quarter of it, 500 ms) is short too.
  const proxy = await lagProxy(0);
  const t = await two({ sessionIdleMs: 2000 }, proxy.url);
  try {
    assert.deepEqual(await levelsLogged(t.onA), [...LOGGING_LEVELS]);
    for (const [i, level] of (['error', 'debug', 'critical'] as const).entries()) {
      // B's copy is fresh; then nothing Redis publishes reaches either instance (no drop, no confirmation).
      assert.deepEqual((await levelsLogged(t.onB)).length > 0, true);
      proxy.hold();
      try {
        const set = await t.onA.request('logging/setLevel', { level });
        assert.equal(set.messages[0]?.error, undefined, JSON.stringify(set.messages));
        assert.deepEqual(await levelsLogged(t.onB), atOrAbove(level), `round ${i}: set to ${level} through A`);
      } finally {
        proxy.release();
      }
    }
  } finally {
    await t.close();
    await proxy.close();
  }
});

test("Redis restarted empty: an instance's copies go with its lost subscription, so the old session is 404 there though the copy's lease (60 s) has not ended", async () => {
  const prefix = uniquePrefix();
  // Session stores with a lease far longer than the test: only losing the subscription can end the copy.
  const links = await Promise.all([0, 1].map(() => redisLink({ url: redis.url, onError: () => undefined })));
  const stores = links.map((link) => new RedisSessionStore(link, { prefix, copyLeaseMs: 60_000, onError: () => undefined }));
  await Promise.all(stores.map((store) => store.start()));
  const withStore = (cluster: RedisCluster, index: number): Server =>
    define({ ...cluster, stores: new ClusterStores().set(SESSION_STORE, stores[index]!) }, index);
  const { instances, close } = await startInstances(2, redis.url, prefix, withStore, { onError: () => undefined });
  const [a, b] = instances.map((i) => i.served) as [Served, Served];
  try {
    const onA = new HttpPeer(a.url, REV);
    await onA.initialize();
    const onB = new HttpPeer(b.url, REV);
    onB.sessionId = onA.sessionId;
    assert.equal((await onB.request('ping')).status, 200, 'B holds a copy');
    await redis.kill();
    await redis.restart();
    await until(async () => (await onB.request('ping')).status === 404, 'the old session to be 404 on B', 15_000);
    await until(async () => (await onA.request('ping')).status === 404, 'and on A', 15_000);
  } finally {
    for (const s of [a, b]) s.errors.splice(0); // the outage's failures, reported
    await close();
    await Promise.all(links.map((link) => link.close()));
  }
});
