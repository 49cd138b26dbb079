/**
 * Rotating the shared `requestState` sealing secret without a restart (docs/scale-out.md
 * §The sealing secrets). Three
 * instances on one redis-server: a new secret is opened everywhere before anyone seals with
 * it, states sealed with the old one keep working until it is dropped, and automatic rotation
 * adds one secret per period, whichever instance gets there.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient } from 'redis';
import { createServer } from '../../src/server/index.js';
import { RedisSecretRing } from '../../src/redis/secret-ring.js';
import type { SecretRing } from '../../src/spi/index.js';
import type { RedisCluster } from '../../src/redis/index.js';
import { MODERN } from '../support/common.js';
import { until } from '../support/wait.js';
import { HttpPeer } from '../http-e2e/support.js';
import { startInstances, startRedis, uniquePrefix, type Instance, type RedisServer } from './support.js';

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const CAPS = { elicitation: { form: {} } };

function define(cluster: RedisCluster) {
  const server = createServer({ name: 'rotating', version: '1.0.0', cluster });
  server.tool('ask', async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'name' });
    return `Hello, ${String(answer.content?.name)}!`;
  });
  return server;
}

const ringOf = (i: Instance) => i.cluster.requestState.secrets as SecretRing;
/** The instance's ring on Redis, whose `refresh()` is what its timer calls. */
function redisRingOf(i: Instance): RedisSecretRing {
  const ring = i.cluster.requestState.secrets;
  assert.ok(ring instanceof RedisSecretRing, 'a cluster keeps its secrets on Redis');
  return ring;
}
const peerOf = (i: Instance) => new HttpPeer(i.served.url, MODERN);

/** Round 1 of `ask` on `instance`: its `requestState`. */
async function issue(instance: Instance): Promise<string> {
  const o = await peerOf(instance).modern('tools/call', { name: 'ask', arguments: {} }, { caps: CAPS });
  const result = o.messages[0]?.result;
  assert.equal(result?.resultType, 'input_required', JSON.stringify(o.messages));
  return result.requestState;
}

/** The retry of `ask` with `state` on `instance`: the HTTP status and the JSON-RPC reply. */
async function retry(instance: Instance, state: string) {
  const o = await peerOf(instance).modern(
    'tools/call',
    { name: 'ask', arguments: {}, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } }, requestState: state },
    { caps: CAPS },
  );
  return { status: o.status, reply: o.messages[0]! };
}

async function accepted(instance: Instance, state: string, what: string): Promise<void> {
  const { status, reply } = await retry(instance, state);
  assert.equal(status, 200, `${what}: ${JSON.stringify(reply)}`);
  assert.deepEqual(reply.result?.content, [{ type: 'text', text: 'Hello, Ada!' }], `${what}: ${JSON.stringify(reply)}`);
}

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

test('rotateSecret on A: every instance opens with the new secret before any seals with it; old and new states are accepted across instances', async () => {
  const { instances, close } = await startInstances(3, redis.url, uniquePrefix(), define, { secretPropagationMs: 1000 });
  const [a, b, c] = instances as [Instance, Instance, Instance];
  try {
    const old = ringOf(a).sealing();
    for (const i of instances) assert.deepEqual(ringOf(i).opening(), [old], 'one secret, the same on every instance');
    const beforeRotation = await issue(b);

    await a.cluster.rotateSecret();
    const fresh = ringOf(a).opening()[0]!;
    assert.notEqual(fresh, old);
    await until(() => instances.every((i) => ringOf(i).opening().includes(fresh)), 'every instance to open with the new secret');
    // Two-phase: all can open it, none seals with it yet (it seals secretPropagationMs after the rotation).
    for (const i of instances) assert.equal(ringOf(i).sealing(), old, 'the old secret seals until the new one is known everywhere');

    await until(() => instances.every((i) => ringOf(i).sealing() === fresh), 'every instance to seal with the new secret', 10_000);
    for (const i of instances) assert.deepEqual(ringOf(i).opening(), [fresh, old], 'the old secret still opens');
    await accepted(c, beforeRotation, 'a state B sealed before the rotation, retried on C after it');

    for (const [from, to] of [
      [a, b],
      [b, c],
      [c, a],
    ] as const) {
      await accepted(to, await issue(from), 'a state sealed with the new secret, retried on another instance');
    }
  } finally {
    await close();
  }
});

test('a secret is dropped secretRetentionMs after the next one seals: a state it sealed is refused with -32602 on every instance', async () => {
  const { instances, close } = await startInstances(3, redis.url, uniquePrefix(), define, {
    secretPropagationMs: 100,
    secretRetentionMs: 300,
  });
  const [a, b, c] = instances as [Instance, Instance, Instance];
  try {
    const old = ringOf(a).sealing();
    const sealedWithOld = await issue(b);
    await c.cluster.rotateSecret();
    await until(
      () => instances.every((i) => ringOf(i).opening().length === 1 && ringOf(i).sealing() !== old),
      'every instance to drop the old secret',
      10_000,
    );
    for (const i of [a, b, c]) {
      const { status, reply } = await retry(i, sealedWithOld);
      // The server answers a refused requestState (-32602) with HTTP 400.
      assert.equal(status, 400, JSON.stringify(reply));
      assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
      assert.match(reply.error.message, /does not verify .*no longer keeps.*start the request again/);
    }
    await accepted(a, await issue(b), 'a state sealed with the new secret');
  } finally {
    await close();
  }
});

test('secretRotationMs: three instances add one secret per period between them, and keep serving across the rotations', async () => {
  const rotationMs = 400;
  const prefix = uniquePrefix();
  const { instances, close } = await startInstances(3, redis.url, prefix, define, {
    secretRotationMs: rotationMs,
    secretPropagationMs: 100,
  });
  const reader = createClient({ url: redis.url });
  await reader.connect();
  try {
    const ring = async () => {
      const entries = await reader.zRangeWithScores(`{${prefix}mrtr}:secrets`, 0, -1);
      return entries.map((e) => e.score);
    };
    let state = await issue(instances[0]!);
    let served = 0;
    const scores = await until(
      async () => {
        // Traffic meanwhile, each retry on the next instance.
        await accepted(instances[++served % 3]!, state, 'a state retried while secrets rotate');
        state = await issue(instances[served % 3]!);
        const s = await ring();
        return s.length >= 4 && s;
      },
      'three automatic rotations',
      20_000,
    );
    for (let i = 1; i < scores.length; i++) {
      // One rotation per period: a secret starts sealing a full period after the one before it.
      assert.ok(
        scores[i]! - scores[i - 1]! >= rotationMs,
        `secrets ${i - 1} and ${i} start sealing ${scores[i]! - scores[i - 1]!} ms apart`,
      );
    }
    await until(async () => {
      const newest = await reader.zRangeWithScores(`{${prefix}mrtr}:secrets`, -1, -1);
      return instances.every((i) => ringOf(i).opening()[0] === newest[0]?.value);
    }, 'every instance to know the newest secret');
  } finally {
    await reader.close();
    await close();
  }
});

test('Redis emptied, then a new instance starts: the older instances adopt its secret and put theirs back; states issued before the loss are refused', async () => {
  const prefix = uniquePrefix();
  // The older instances' timers re-read the ring only every 30 s, so the new one surely starts on
  // the emptied Redis before they find it empty (a loaded machine can take seconds to start
  // one); the test then makes them re-read, as their timers would.
  const older = await startInstances(2, redis.url, prefix, define, { secretPropagationMs: 60_000 });
  const reader = createClient({ url: redis.url });
  await reader.connect();
  let newer: Awaited<ReturnType<typeof startInstances>> | undefined;
  try {
    const [a, b] = older.instances as [Instance, Instance];
    const old = ringOf(a).sealing();
    const beforeLoss = await issue(a);
    await reader.flushAll();
    newer = await startInstances(1, redis.url, prefix, define, { secretPropagationMs: 200 });
    const d = newer.instances[0]!;
    const fresh = ringOf(d).sealing();
    assert.notEqual(fresh, old, 'an instance started on the emptied Redis makes a new secret');
    for (const i of [a, b]) await redisRingOf(i).refresh();

    await until(
      () => [a, b, d].every((i) => ringOf(i).opening().includes(fresh) && ringOf(i).opening().includes(old)),
      'every instance to open with both the secret made before the loss and the new one',
      10_000,
    );
    await accepted(a, await issue(d), 'a state the new instance sealed, retried on an older one');
    await accepted(d, await issue(b), 'a state an older instance sealed, retried on the new one');
    const { status, reply } = await retry(d, beforeLoss);
    assert.equal(status, 400, JSON.stringify(reply));
    assert.equal(reply.error?.code, -32602);
    assert.match(reply.error.message, /lost its records/);
  } finally {
    await reader.close();
    await newer?.close();
    await older.close();
  }
});

test('Redis emptied, then a new instance starts: every instance converges on one sealing secret at once, without waiting for its timer', async () => {
  const prefix = uniquePrefix();
  // Timers that re-read the ring only every 30 s: what makes the instances agree within the test's bound is the notice.
  const older = await startInstances(2, redis.url, prefix, define, { secretPropagationMs: 60_000 });
  const reader = createClient({ url: redis.url });
  await reader.connect();
  let newer: Awaited<ReturnType<typeof startInstances>> | undefined;
  try {
    const [a, b] = older.instances as [Instance, Instance];
    const old = ringOf(a).sealing();
    await reader.flushAll();
    newer = await startInstances(1, redis.url, prefix, define, { secretPropagationMs: 60_000 });
    const d = newer.instances[0]!;
    const all = [a, b, d];
    // The new instance's secret starts sealing only a propagation period later: until then, the
    // secret the older instances kept, which they put back on hearing of the new ring, seals everywhere.
    await until(
      () => all.every((i) => ringOf(i).sealing() === old && ringOf(i).opening().length === 2),
      'every instance to seal with one secret and open with both',
      10_000,
    );
    for (const [sealer, opener] of [
      [d, a],
      [a, d],
      [b, d],
    ] as const) {
      await accepted(opener, await issue(sealer), 'a state sealed on one instance, retried on another');
    }
  } finally {
    await reader.close();
    await newer?.close();
    await older.close();
  }
});
