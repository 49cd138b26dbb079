/**
 * The Redis topologies tests start for real (test/support/redis-topologies.ts): a 3+3 Redis
 * Cluster and a primary with a replica under 3 Sentinels, each losing its primary to SIGKILL.
 * Beyond the topologies themselves, this pins what the scale-out code relies on from node-redis:
 * a key acknowledged by a replica (WAIT) survives the failover, commands find the promoted
 * primary, and subscriptions (classic and sharded on a cluster, classic through Sentinel) are
 * made again by the client itself, so messages published after the failover arrive.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { createCluster, createSentinel } from 'redis';
import { delay } from '../support/wait.js';
import {
  type RedisClusterTopology,
  type RedisSentinelTopology,
  redisCommand,
  startRedisCluster,
  startRedisSentinel,
} from '../support/redis-topologies.js';

/** Only a broken failover takes this long to be usable again (node-redis reconnects with a backoff of up to seconds). */
const RECOVERY_LIMIT_MS = 45_000;
/** How often a message is published until a subscriber hears one. */
const PUBLISH_EVERY_MS = 100;

/** Retries `attempt` until it resolves (a client may fail while it finds the new primary); resolves with its value and the ms taken. */
async function eventually<T>(what: string, attempt: () => Promise<T>, since = performance.now()): Promise<{ value: T; ms: number }> {
  const deadline = performance.now() + RECOVERY_LIMIT_MS;
  let last: unknown;
  for (;;) {
    try {
      const value = await attempt();
      return { value, ms: Math.round(performance.now() - since) };
    } catch (error) {
      last = error;
    }
    if (performance.now() > deadline) assert.fail(`${what} still failed after ${RECOVERY_LIMIT_MS} ms: ${String(last)}`);
    await delay(PUBLISH_EVERY_MS);
  }
}

/** Publishes numbered messages with `publish` until `heard` holds one of them; resolves with the ms since `since`. */
async function publishUntilHeard(
  what: string,
  publish: (message: string) => Promise<unknown>,
  heard: readonly string[],
  since: number,
): Promise<number> {
  const deadline = performance.now() + RECOVERY_LIMIT_MS;
  const sent = new Set<string>();
  for (let n = 0; ; n++) {
    const message = `after-${n}`;
    sent.add(message);
    await publish(message).catch(() => undefined);
    if (heard.some((m) => sent.has(m))) return Math.round(performance.now() - since);
    if (performance.now() > deadline) assert.fail(`${what}: nothing published after the failover was heard within ${RECOVERY_LIMIT_MS} ms`);
    await delay(PUBLISH_EVERY_MS);
  }
}

const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

/** Starts `start` and measures it. */
async function timed<T>(start: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await start();
  return { value, ms: Math.round(performance.now() - started) };
}

let cluster: RedisClusterTopology;
let set: RedisSentinelTopology;
const startMs = { cluster: 0, sentinel: 0 };

// Both topologies start side by side (the suite's time counts); if one fails, the other is stopped.
before(async () => {
  const [c, s] = await Promise.allSettled([timed(() => startRedisCluster()), timed(() => startRedisSentinel())]);
  if (c.status === 'rejected' || s.status === 'rejected') {
    await Promise.all([c.status === 'fulfilled' && c.value.value.stop(), s.status === 'fulfilled' && s.value.value.stop()]);
    throw c.status === 'rejected' ? c.reason : (s as PromiseRejectedResult).reason;
  }
  ({ value: cluster, ms: startMs.cluster } = c.value);
  ({ value: set, ms: startMs.sentinel } = s.value);
});
after(() => Promise.all([cluster?.stop(), set?.stop()]));

describe('Redis Cluster', () => {
  /** The primary killed by the failover test, and the replica that took over. */
  let failover: { killed: string; promoted: string } | undefined;

  test('starts 3 primaries that serve all 16384 slots, each with a replica whose link is up', async (t) => {
    t.diagnostic(`3+3 cluster started in ${startMs.cluster} ms (beside the sentinel set)`);
    assert.equal(cluster.nodes.length, 6);
    const primaries = await cluster.primaries();
    assert.equal(primaries.length, 3);
    const ranges = primaries.flatMap((p) => p.slots).sort((a, b) => a[0] - b[0]);
    let next = 0;
    for (const [from, to] of ranges) {
      assert.equal(from, next, `slots ${next}…${from - 1} are not served`);
      next = to + 1;
    }
    assert.equal(next, 16384);
    const replicas = await Promise.all(primaries.map((p) => cluster.replicasOf(p.address)));
    assert.deepEqual(
      replicas.map((r) => r.length),
      [1, 1, 1],
    );
    for (const replica of replicas.flat()) {
      const role = (await redisCommand(replica, 'ROLE')).split('\n');
      assert.equal(role[0], 'slave');
      assert.equal(role[3], 'connected', `${replica}'s replication link`);
    }
    for (const p of primaries) assert.equal(p.pid, cluster.pidOf(p.address));
  });

  test('a killed primary is replaced by its replica; acknowledged data survives, and node-redis resubscribes', async (t) => {
    const rootNodes = cluster.running().map((a) => ({ url: `redis://${a}` }));
    const client = createCluster({ rootNodes });
    const subscriber = createCluster({ rootNodes });
    const errors: string[] = [];
    client.on('error', (e: Error) => errors.push(`client: ${e.message}`));
    subscriber.on('error', (e: Error) => errors.push(`subscriber: ${e.message}`));
    await client.connect();
    await subscriber.connect();
    try {
      const classic: string[] = [];
      const sharded: string[] = [];
      await subscriber.subscribe('topologies:classic', (m) => classic.push(m));
      // Classic pub/sub runs on one node the client picked: kill that one, with the shard holding the key and sharded channel.
      const victim = subscriber.pubSubNode?.address;
      assert.ok(victim, 'the subscriber has a pub/sub node');
      let tag = '';
      for (let i = 0; !tag; i++) {
        assert.ok(i < 1000, `no hash tag found on ${victim}`);
        if ((await cluster.primaryFor(`{t${i}}`)) === victim) tag = `{t${i}}`;
      }
      const key = `${tag}:before`;
      const channel = `${tag}:sharded`;
      await subscriber.sSubscribe(channel, (m) => sharded.push(m));
      const [replica] = await cluster.replicasOf(victim);

      await client.set(key, 'written before the kill');
      // WAIT runs on the connection that wrote: the replica has the key once it answers 1.
      assert.equal(await client.sendCommand(key, false, ['WAIT', '1', '10000']), 1);
      await client.publish('topologies:classic', 'before');
      await client.sPublish(channel, 'before');
      await eventually('hearing the messages sent before the kill', async () =>
        assert.ok(classic.includes('before') && sharded.includes('before')),
      );

      const { killed, promoted } = await cluster.killPrimary({ address: victim });
      assert.equal(killed, victim);
      const { address, ms } = await promoted;
      const promotedAt = performance.now();
      failover = { killed, promoted: address };
      t.diagnostic(`replica ${address} promoted and cluster_state:ok everywhere ${ms} ms after the kill`);
      assert.equal(address, replica);
      assert.equal(cluster.pidOf(killed), undefined);
      assert.equal(await cluster.primaryFor(key), address);

      const read = await eventually('GET through the cluster client', () => client.get(key), promotedAt);
      assert.equal(read.value, 'written before the kill');
      t.diagnostic(`node-redis cluster client read the key ${read.ms} ms after the promotion`);
      await client.set(`${tag}:after`, 'written after');
      assert.equal(await client.get(`${tag}:after`), 'written after');
      assert.equal(await redisCommand(address, 'GET', `${tag}:after`), 'written after');

      const [classicMs, shardedMs] = await Promise.all([
        publishUntilHeard('classic subscribe', (m) => client.publish('topologies:classic', m), classic, promotedAt),
        publishUntilHeard('sharded subscribe', (m) => client.sPublish(channel, m), sharded, promotedAt),
      ]);
      t.diagnostic(
        `heard again after the promotion: classic in ${classicMs} ms (now on ${subscriber.pubSubNode?.address}), sharded in ${shardedMs} ms`,
      );
      t.diagnostic(`errors the clients reported meanwhile: ${errors.length}`);
    } finally {
      client.destroy();
      subscriber.destroy();
    }
  });

  test('a killed primary started again rejoins as a replica of its successor', async (t) => {
    assert.ok(failover, 'the failover test ran');
    const started = performance.now();
    await cluster.restartNode(failover.killed);
    t.diagnostic(`rejoined in ${Math.round(performance.now() - started)} ms`);
    assert.deepEqual(await cluster.replicasOf(failover.promoted), [failover.killed]);
    const primaries = await cluster.primaries();
    assert.equal(primaries.length, 3);
    assert.ok(primaries.some((p) => p.address === failover!.promoted));
    assert.ok(!primaries.some((p) => p.address === failover!.killed));
  });
});

describe('Redis Sentinel', () => {
  let failover: { killed: string; promoted: string } | undefined;

  test('starts a primary, a replica and 3 sentinels that agree on the primary', async (t) => {
    t.diagnostic(`1 primary + 1 replica + 3 sentinels started in ${startMs.sentinel} ms (beside the cluster)`);
    assert.equal(set.sentinels.length, 3);
    assert.equal(set.nodes.length, 2);
    assert.equal(await set.primary(), set.nodes[0]);
    for (const s of set.sentinels) {
      assert.equal(await redisCommand(s, 'SENTINEL', 'get-master-addr-by-name', set.name), `127.0.0.1\n${portOf(set.nodes[0]!)}`);
    }
    const role = (await redisCommand(set.nodes[1]!, 'ROLE')).split('\n');
    assert.deepEqual([role[0], role[2], role[3]], ['slave', String(portOf(set.nodes[0]!)), 'connected']);
  });

  test('a killed primary is replaced; a createSentinel client keeps its data and its subscription', async (t) => {
    const options = { name: set.name, sentinelRootNodes: set.sentinels.map((a) => ({ host: '127.0.0.1', port: portOf(a) })) };
    const client = createSentinel(options);
    const subscriber = createSentinel(options);
    const errors: string[] = [];
    client.on('error', (e: Error) => errors.push(`client: ${e.message}`));
    subscriber.on('error', (e: Error) => errors.push(`subscriber: ${e.message}`));
    await client.connect();
    await subscriber.connect();
    try {
      const heard: string[] = [];
      await subscriber.subscribe('topologies:sentinel', (m) => heard.push(m));
      await client.set('topologies:before', 'written before the kill');
      // One connection to the primary (the default pool), so WAIT counts the replicas that have the key.
      assert.equal(await client.sendCommand(false, ['WAIT', '1', '10000']), 1);
      await client.publish('topologies:sentinel', 'before');
      await eventually('hearing the message sent before the kill', async () => assert.ok(heard.includes('before')));

      const { killed, promoted } = await set.killPrimary();
      assert.equal(killed, set.nodes[0]);
      const { address, ms } = await promoted;
      const promotedAt = performance.now();
      failover = { killed, promoted: address };
      t.diagnostic(`replica ${address} promoted (every sentinel switched, ROLE master) ${ms} ms after the kill`);
      assert.equal(address, set.nodes[1]);
      assert.equal(await set.primary(), address);

      const read = await eventually('GET through the sentinel client', () => client.get('topologies:before'), promotedAt);
      assert.equal(read.value, 'written before the kill');
      t.diagnostic(`node-redis sentinel client read the key ${read.ms} ms after the promotion`);
      await client.set('topologies:after', 'written after');
      assert.equal(await redisCommand(address, 'GET', 'topologies:after'), 'written after');

      const heardMs = await publishUntilHeard('sentinel subscribe', (m) => client.publish('topologies:sentinel', m), heard, promotedAt);
      t.diagnostic(`subscriber heard again ${heardMs} ms after the promotion; errors the clients reported meanwhile: ${errors.length}`);
    } finally {
      client.destroy();
      subscriber.destroy();
    }
  });

  test('a killed primary started again replicates the new primary, and the sentinels see it healthy', async (t) => {
    assert.ok(failover, 'the failover test ran');
    const started = performance.now();
    await set.restartNode(failover.killed);
    t.diagnostic(`rejoined in ${Math.round(performance.now() - started)} ms`);
    assert.equal(await set.primary(), failover.promoted);
    const role = (await redisCommand(failover.killed, 'ROLE')).split('\n');
    assert.deepEqual([role[0], role[2], role[3]], ['slave', String(portOf(failover.promoted)), 'connected']);
  });
});

test('a missing redis-server is reported with how to install it', async () => {
  const empty = await mkdtemp(join(tmpdir(), 'janus-no-redis-'));
  const path = process.env.PATH;
  process.env.PATH = empty;
  try {
    await assert.rejects(startRedisCluster(), /redis-server is not on PATH: install it with `apt install redis-server`/);
    await assert.rejects(startRedisSentinel(), /redis-server is not on PATH: install it with `apt install redis-server`/);
  } finally {
    process.env.PATH = path;
    await rm(empty, { recursive: true, force: true });
  }
});
