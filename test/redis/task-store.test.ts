/**
 * Task records across instances (tasks extension; docs/scale-out.md §Tasks). The `TaskStore`
 * contract runs against `InMemoryTaskStore` and against the `TASK_STORE` of a `redisCluster` on a
 * real redis-server; then what only a shared store has: two instances on one Redis (a create
 * is found on the other at once, signals reach the instance that runs the task and no other),
 * the keys and their expiry, and Redis frozen or killed mid-way (every call rejects within the
 * command timeout, then the store works again).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { createClient } from 'redis';
import { InMemoryTaskStore } from '../../src/extensions/tasks/memory-store.js';
import type { TaskSignal, TaskStore } from '../../src/extensions/tasks/store.js';
import { JanusError } from '../../src/errors/index.js';
import { TASK_STORE } from '../../src/extensions/tasks/index.js';
import { redisCluster, RedisTaskStore, type RedisCluster, type RedisClusterOptions } from '../../src/redis/index.js';
import { until } from '../support/wait.js';
import { startRedis, uniquePrefix, type RedisServer } from './support.js';
import { newTask, taskLeaseContract, taskStoreContract } from './task-store-contract.js';

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

const openMemory = async () => {
  const store = new InMemoryTaskStore();
  return { store, close: async () => store.close() };
};
taskStoreContract('InMemoryTaskStore', openMemory);
taskLeaseContract('InMemoryTaskStore', openMemory);

/** A cluster's task store: `redisCluster` keeps a `RedisTaskStore` under `TASK_STORE`. */
function tasksOf(cluster: RedisCluster): RedisTaskStore {
  const store = cluster.stores.get(TASK_STORE);
  assert.ok(store instanceof RedisTaskStore, 'the cluster keeps a RedisTaskStore under TASK_STORE');
  return store;
}

const openRedis = async () => {
  const cluster = await redisCluster({ url: redis.url, prefix: uniquePrefix() });
  return { store: tasksOf(cluster), close: () => cluster.close() };
};
taskStoreContract('RedisTaskStore', openRedis);
taskLeaseContract('RedisTaskStore', openRedis);

/** `n` instances on `url` under one prefix. */
async function instances(n: number, url: string, options: Omit<RedisClusterOptions, 'url'> = {}) {
  const prefix = options.prefix ?? uniquePrefix();
  const clusters: RedisCluster[] = [];
  for (let i = 0; i < n; i++) clusters.push(await redisCluster({ ...options, url, prefix }));
  return { clusters, prefix, close: () => Promise.all(clusters.map((c) => c.close())).then(() => undefined) };
}

/** A plain connection for looking at the keys, and for publishing what a store would not. */
async function rawClient(url: string) {
  const client = createClient({ url });
  await client.connect();
  return client;
}

test('a task created on A is found on B at once; changes through either are seen on both', async () => {
  const { clusters, close } = await instances(2, redis.url);
  const [a, b] = clusters.map(tasksOf) as [RedisTaskStore, RedisTaskStore];
  try {
    assert.notEqual(a.instanceId, b.instanceId);
    const record = newTask(a);
    await a.create(record);
    assert.deepEqual(await b.get(record.taskId), record, 'no polling: create resolves once Redis has the record');
    const asked = await b.addInput(record.taskId, 'name', { method: 'elicitation/create' });
    assert.deepEqual(await a.get(record.taskId), asked);
    const answered = await a.answer(record.taskId, { name: { action: 'decline' } });
    assert.equal(answered?.record.status, 'working');
    const fromB = newTask(b);
    await b.create(fromB);
    assert.deepEqual(
      (await a.list('alice', undefined, 10)).records.map((r) => [r.taskId, r.runner]),
      [
        [record.taskId, a.instanceId],
        [fromB.taskId, b.instanceId],
      ],
    );
    const cancelled = await b.update(record.taskId, { status: 'cancelled' });
    assert.equal(await a.update(record.taskId, { status: 'completed' }), undefined, 'terminal is final across instances');
    assert.deepEqual(await a.get(record.taskId), cancelled);
  } finally {
    await close();
  }
});

test("a signal for A's task reaches A, from B or from A itself, and never B", async () => {
  const { clusters, close } = await instances(2, redis.url);
  const [a, b] = clusters.map(tasksOf) as [RedisTaskStore, RedisTaskStore];
  const heard = { a: [] as TaskSignal[], b: [] as TaskSignal[] };
  a.onSignal((s) => heard.a.push(s));
  b.onSignal((s) => heard.b.push(s));
  try {
    const cancel: TaskSignal = { type: 'cancel', taskId: 'on-a' };
    await b.signal(a.instanceId, cancel);
    await until(() => heard.a.length === 1, 'A to hear the signal B sent');
    const input: TaskSignal = { type: 'input', taskId: 'on-a', responses: { k: { action: 'accept', content: {} } } };
    await a.signal(a.instanceId, input);
    await until(() => heard.a.length === 2, 'A to hear its own signal');
    assert.deepEqual(heard.a, [cancel, input]);
    // B's own signal was published after B's to A: had B heard that one, it would have come first.
    const forB: TaskSignal = { type: 'cancel', taskId: 'on-b' };
    await a.signal(b.instanceId, forB);
    await until(() => heard.b.length === 1, 'B to hear the signal for its task');
    assert.deepEqual(heard.b, [forB]);
    assert.equal(heard.a.length, 2);
  } finally {
    await close();
  }
});

test('messages on an instance\u2019s signal channel that are not task signals are reported and ignored', async () => {
  const reported: Error[] = [];
  const { clusters, prefix, close } = await instances(1, redis.url, { onError: (e) => void reported.push(e) });
  const store = tasksOf(clusters[0]!);
  const heard: TaskSignal[] = [];
  store.onSignal((s) => heard.push(s));
  const publisher = await rawClient(redis.url);
  try {
    const channel = `${prefix}tasks:${store.instanceId}`;
    const bad = ['not json', '[]', '{"type":"cancel"}', '{"type":"stop","taskId":"t"}', '{"type":"input","taskId":"t","responses":[]}'];
    for (const message of bad) await publisher.publish(channel, message);
    await publisher.publish(channel, JSON.stringify({ type: 'cancel', taskId: 'good' }));
    // One publisher's messages arrive in order: the good one last.
    await until(() => heard.length === 1, 'the valid signal');
    assert.deepEqual(heard, [{ type: 'cancel', taskId: 'good' }]);
    assert.equal(reported.length, bad.length);
    for (const e of reported) assert.match(e.message, /not a task signal/);
  } finally {
    await publisher.close();
    await close();
  }
});

test('keys: a hash per task expiring at createdAt + ttlMs, kept across changes; per-owner sets trimmed of expired tasks', async () => {
  const { clusters, prefix, close } = await instances(1, redis.url);
  const store = tasksOf(clusters[0]!);
  const raw = await rawClient(redis.url);
  const expiresAt = async (key: string) => Number(await raw.sendCommand(['PEXPIRETIME', key]));
  try {
    const record = newTask(store, { ttlMs: 90_000 });
    const key = `{${prefix}tasks}:task:${record.taskId}`;
    const expected = Date.parse(record.createdAt) + 90_000;
    await store.create(record);
    assert.equal(await raw.type(key), 'hash');
    assert.equal(await expiresAt(key), expected);
    await store.update(record.taskId, { statusMessage: 'x' });
    await store.addInput(record.taskId, 'a', { method: 'elicitation/create' });
    await store.answer(record.taskId, { a: 1 });
    assert.equal(await expiresAt(key), expected, 'update, addInput and answer keep the expiry');
    await store.update(record.taskId, { ttlMs: 120_000 });
    assert.equal(await expiresAt(key), expected + 30_000, 'a new ttlMs counts from createdAt');
    await store.update(record.taskId, { ttlMs: null });
    assert.equal(await expiresAt(key), -1, 'ttlMs null: no expiry');

    const unlimited = newTask(store, { owner: 'o', ttlMs: null });
    await store.create(unlimited);
    assert.equal(await expiresAt(`{${prefix}tasks}:task:${unlimited.taskId}`), -1);

    // Owner 'o': three tasks that expire soon and one that does not; owner 'p': one that expires.
    const soon = [1, 2, 3].map(() => newTask(store, { owner: 'o', ttlMs: 50 }));
    for (const r of soon) await store.create(r);
    const lone = newTask(store, { owner: 'p', ttlMs: 50 });
    await store.create(lone);
    await until(async () => (await raw.exists(soon.map((r) => `{${prefix}tasks}:task:${r.taskId}`))) === 0, 'the short tasks to expire');
    assert.deepEqual(
      (await store.list('o', undefined, 10)).records.map((r) => r.taskId),
      [unlimited.taskId],
    );
    assert.equal(await raw.zCard(`{${prefix}tasks}:task-list:o`), 1, 'listing trimmed the expired ids');
    assert.equal(await raw.zCard(`{${prefix}tasks}:task-expiry:o`), 1);
    assert.equal(await expiresAt(`{${prefix}tasks}:task-list:o`), -1, 'the sets live as long as their longest-lived task');
    await until(
      async () => (await raw.exists([`{${prefix}tasks}:task-list:p`, `{${prefix}tasks}:task-expiry:p`])) === 0,
      "owner p's sets to expire with its last task",
    );
  } finally {
    await raw.close();
    await close();
  }
});

test('leases: one sorted set under the store\u2019s hash tag, scored by Redis\u2019s clock; an overdue task goes to one of two instances; ended and expired tasks leave it', async () => {
  const { clusters, prefix, close } = await instances(2, redis.url);
  const [a, b] = clusters.map(tasksOf) as [RedisTaskStore, RedisTaskStore];
  const raw = await rawClient(redis.url);
  const leases = `{${prefix}tasks}:task-leases`;
  const redisNow = async () => {
    const [s, us] = (await raw.sendCommand(['TIME'])) as [string, string];
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  };
  try {
    const before = await redisNow();
    const record = newTask(a, { runner: a.instanceId, leaseUntil: Date.now() + 300, runs: 1 });
    await a.create(record);
    const score = Number(await raw.zScore(leases, record.taskId));
    assert.ok(
      score >= before && score <= (await redisNow()) + 1300,
      `the lease ends about 300 ms after the create by Redis's clock (${score - before})`,
    );
    assert.equal(Number(await raw.hGet(`{${prefix}tasks}:task:${record.taskId}`, 'leaseUntil')), score);

    await until(async () => (await redisNow()) > score + 1000, 'the lease to run out');
    const [fromA, fromB] = await Promise.all([a.keepLeases(a.instanceId, [], 60_000, 10), b.keepLeases(b.instanceId, [], 60_000, 10)]);
    const claimed = [...fromA.claimed, ...fromB.claimed];
    assert.equal(claimed.length, 1, 'one instance takes it over');
    const taker = fromA.claimed.length === 1 ? a : b;
    assert.equal(claimed[0]!.runner, taker.instanceId);
    assert.ok(Number(await raw.zScore(leases, record.taskId)) > score, 'leased again, for the taker');
    // The one that lost it hears so when it renews.
    const loser = taker === a ? b : a;
    assert.deepEqual((await loser.keepLeases(loser.instanceId, [record.taskId], 60_000, 10)).lost, [record.taskId]);

    await taker.update(record.taskId, { status: 'completed', result: { content: [] } });
    assert.equal(await raw.zScore(leases, record.taskId), null, 'an ended task leaves the set');

    const shortLived = newTask(a, { runner: 'dead', ttlMs: 50, leaseUntil: Date.now() + 10 });
    await a.create(shortLived);
    await until(async () => (await raw.exists(`{${prefix}tasks}:task:${shortLived.taskId}`)) === 0, 'the task to expire');
    assert.deepEqual((await a.keepLeases(a.instanceId, [], 60_000, 10)).claimed, [], 'an expired task is nobody\u2019s');
    assert.equal(await raw.zScore(leases, shortLived.taskId), null, 'and leaves the set');
  } finally {
    await raw.close();
    await close();
  }
});

/** Each command's deadline in the fault tests. */
const COMMAND_TIMEOUT_MS = 300;
/** A call that takes longer than this to reject has hung (generous for a busy machine). */
const REJECT_LIMIT_MS = COMMAND_TIMEOUT_MS + 2000;

/** Every call a store makes to Redis: each must reject, with a JanusError naming Redis, within REJECT_LIMIT_MS. */
async function assertEveryCallRejects(store: TaskStore, known: string, peer: string): Promise<void> {
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['create', () => store.create(newTask(store))],
    ['get', () => store.get(known)],
    ['update', () => store.update(known, { statusMessage: 'x' })],
    ['addInput', () => store.addInput(known, 'k', { method: 'elicitation/create' })],
    ['answer', () => store.answer(known, { k: 1 })],
    ['list', () => store.list('alice', undefined, 10)],
    ['signal', () => store.signal(peer, { type: 'cancel', taskId: known })],
    ['keepLeases', () => store.keepLeases(store.instanceId, [known], 60_000, 10)],
  ];
  for (const [what, call] of calls) {
    const start = performance.now();
    await assert.rejects(call(), (e: unknown) => {
      assert.ok(e instanceof JanusError, `${what}: ${String(e)}`);
      assert.equal(e.code, 'CONNECTION');
      assert.match(e.message, new RegExp(`Task store ${what} failed: Redis is unavailable`));
      return true;
    });
    const ms = performance.now() - start;
    assert.ok(ms < REJECT_LIMIT_MS, `${what} rejected after ${Math.round(ms)} ms`);
  }
}

for (const outage of ['frozen (SIGSTOP: nothing answers)', 'killed (connections refused)'] as const) {
  test(`Redis ${outage} mid-way: every call rejects within the command timeout, a signal to this instance still arrives, and the store works once Redis is back`, {
    timeout: 60_000,
  }, async () => {
    const own = await startRedis();
    const reported: Error[] = [];
    const { clusters, close } = await instances(2, own.url, {
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      onError: (e) => void reported.push(e),
    });
    const [a, b] = clusters.map(tasksOf) as [RedisTaskStore, RedisTaskStore];
    const heard: TaskSignal[] = [];
    a.onSignal((s) => heard.push(s));
    try {
      const record = newTask(a);
      await a.create(record);
      if (outage.startsWith('frozen')) own.freeze();
      else await own.kill();
      await assertEveryCallRejects(a, record.taskId, b.instanceId);
      await a.signal(a.instanceId, { type: 'cancel', taskId: record.taskId });
      assert.deepEqual(heard, [{ type: 'cancel', taskId: record.taskId }], 'its own tasks need no Redis');

      if (outage.startsWith('frozen')) own.thaw();
      else await own.restart(); // empty: the scripts are loaded again
      const again = newTask(a);
      await until(
        () =>
          a.create(again).then(
            () => true,
            () => false,
          ),
        'a create to succeed again',
        15_000,
      );
      // B's connections come back on their own schedule (node-redis retries at most every 2 s).
      await until(
        () =>
          b.get(again.taskId).then(
            (r) => r?.taskId === again.taskId,
            () => false,
          ),
        'B to read the new task',
        15_000,
      );
      assert.deepEqual(await b.get(again.taskId), again);
      const probe: TaskSignal = { type: 'cancel', taskId: 'probe' };
      await until(
        async () => {
          await b.signal(a.instanceId, probe).catch(() => undefined);
          return heard.some((s) => s.taskId === 'probe');
        },
        "A's subscription to be back",
        15_000,
      );
      if (outage.startsWith('frozen')) assert.deepEqual(await b.get(record.taskId), record, 'a frozen Redis kept its data');
    } finally {
      own.thaw();
      await close();
      await own.stop();
    }
  });
}
