/**
 * Tasks across instances on Redis (a task created on one instance is read, updated and
 * cancelled on any other; ext-tasks §Task Creation: a task is durably created before
 * CreateTaskResult, so `tasks/get` on any instance finds it at once). The handler runs where
 * the task was created; `tasks/update` and `tasks/cancel` taken elsewhere reach it as signals,
 * and status notifications reach listen streams on every instance.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { task, taskOf, tasks } from '../../src/extensions/tasks/index.js';
import type { RedisCluster } from '../../src/redis/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { assertTaskShape } from '../support/tasks-schema.js';
import { until } from '../support/wait.js';
import { HttpPeer } from '../http-e2e/support.js';
import { startInstances, startRedis, uniquePrefix, type RedisServer } from './support.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = { elicitation: {}, extensions: { [TASKS]: {} } };

/** Where each instance's handlers ran, by task id. */
const ranOn = new Map<string, string>();

function define(cluster: RedisCluster, index: number) {
  const server = createServer({ name: 'scaled', version: '1.0.0', cluster, extensions: [tasks()] });
  server.tool('ask_then_finish', { extensions: task('optional') }, async (_args, ctx) => {
    ranOn.set(taskOf(ctx)!.id, `instance-${index}`);
    const answer = await ctx.elicit({ message: 'Go on?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return `answered ${answer.action} on instance-${index}`;
  });
  server.tool('wait_forever', { extensions: task('optional') }, async (_args, ctx) => {
    ranOn.set(taskOf(ctx)!.id, `instance-${index}`);
    await new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
    return 'never';
  });
  return server;
}

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

async function rpc(peer: HttpPeer, method: string, params: Record<string, unknown>): Promise<Msg> {
  const o = await peer.modern(method, params, { caps: CAPS });
  assert.equal(o.status, 200, JSON.stringify(o.messages));
  return o.messages[0]!;
}

test('a task created on A is read on B at once, answered through C, and completes on A', async () => {
  const { instances, close } = await startInstances(3, redis.target, uniquePrefix(), (cluster, i) => define(cluster, i));
  const [a, b, c] = instances.map((i) => new HttpPeer(i.served.url, MODERN));
  try {
    const created = (await rpc(a!, 'tools/call', { name: 'ask_then_finish', arguments: {} })).result;
    assertTaskShape('CreateTaskResult', created);
    const taskId: string = created.taskId;
    // Durable before the answer: B finds it without waiting.
    assert.equal((await rpc(b!, 'tasks/get', { taskId })).result.taskId, taskId);
    const parked = await until(async () => {
      const r = (await rpc(b!, 'tasks/get', { taskId })).result;
      return r.status === 'input_required' ? r : undefined;
    }, 'input_required seen from B');
    const key = Object.keys(parked.inputRequests)[0]!;
    const ack = (await rpc(c!, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { ok: true } } } })).result;
    assert.equal(ack.resultType, 'complete');
    const done = await until(async () => {
      const r = (await rpc(b!, 'tasks/get', { taskId })).result;
      return r.status === 'completed' ? r : undefined;
    }, 'completion seen from B');
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'answered accept on instance-0' }]);
    assert.equal(ranOn.get(taskId), 'instance-0');
  } finally {
    await close();
  }
});

test('a task cancelled on B stops its handler on A; every instance then reads it cancelled', async () => {
  const { instances, close } = await startInstances(2, redis.target, uniquePrefix(), (cluster, i) => define(cluster, i));
  const [a, b] = instances.map((i) => new HttpPeer(i.served.url, MODERN));
  try {
    const taskId: string = (await rpc(a!, 'tools/call', { name: 'wait_forever', arguments: {} })).result.taskId;
    await until(() => ranOn.has(taskId), 'the handler to start on A');
    assert.equal((await rpc(b!, 'tasks/cancel', { taskId })).result.resultType, 'complete');
    for (const peer of [a!, b!]) assert.equal((await rpc(peer, 'tasks/get', { taskId })).result.status, 'cancelled');
  } finally {
    await close();
  }
});
