/**
 * Tasks outlive their instance (docs/scale-out.md §Tasks): two instance processes of one
 * deployment on a real redis-server (test/redis/fixtures/task-instance.ts), a task started on
 * A, and A killed with SIGKILL while the handler runs. Through B, the task runs again and
 * completes when its tool is `rerunnable`, or fails saying its instance stopped; either way
 * within the lease bound (`leaseMs + leaseMs / 3` after A's last renewal), never left
 * `working`. Both designs: the 2026-07-28 extension over raw HTTP and through the client, and
 * 2025-11-25 core tasks through the client.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { redisLink } from '../../src/redis/index.js';
import { connect } from '../../src/client/index.js';
import { McpError } from '../../src/errors/index.js';
import { textOf } from '../client/helpers.js';
import { HttpPeer } from '../http-e2e/support.js';
import { MODERN } from '../support/common.js';
import { until } from '../support/wait.js';
import { startRedis, uniquePrefix, type RedisServer } from './support.js';

const INSTANCE_MAIN = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'task-instance.js');
const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = { extensions: { [TASKS]: {} } };
/** The tasks' lease in these tests: short, so that a death is noticed soon. */
const LEASE_MS = 2000;
/** The documented bound: a dead instance's task is taken over within leaseMs + leaseMs / 3 of its last renewal. */
const BOUND_MS = LEASE_MS + Math.ceil(LEASE_MS / 3);
/** What a busy machine (two shared cores) may add to it: process scheduling, Redis round trips. */
const SLACK_MS = 6000;
const WAIT_MS = 30_000;

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

interface Instance {
  readonly child: ChildProcess;
  readonly url: URL;
  readonly pid: number;
  readonly exited: Promise<unknown>;
  stderr(): string;
  /** Resolves once this instance's handler started for `taskId`. */
  started(taskId: string): Promise<unknown>;
  kill(): Promise<void>;
}

async function startInstance(prefix: string, hold: boolean): Promise<Instance> {
  const child = spawn(process.execPath, [INSTANCE_MAIN], {
    env: { ...process.env, ...redis.env, PREFIX: prefix, LEASE_MS: String(LEASE_MS), HOLD: hold ? '1' : '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await until(
    () => {
      if (child.exitCode !== null) throw new Error(`the instance exited before listening: ${text}`);
      const m = /listening on (http:\/\/\S+)/.exec(text);
      return m ? new URL(m[1]!) : undefined;
    },
    'the instance to listen',
    WAIT_MS,
  );
  return {
    child,
    url,
    pid: child.pid!,
    exited,
    stderr: () => text,
    started: (taskId) =>
      until(() => text.includes(`started ${taskId} ${child.pid}`), `the handler of ${taskId} to start on ${child.pid}`, WAIT_MS),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A and B of one deployment: A's handlers hold on until A dies, B's finish at once. */
async function deployment(): Promise<{ a: Instance; b: Instance; prefix: string; close(): Promise<void> }> {
  const prefix = uniquePrefix();
  const a = await startInstance(prefix, true);
  const b = await startInstance(prefix, false).catch(async (e: unknown) => {
    await a.kill();
    throw e;
  });
  return { a, b, prefix, close: async () => void (await Promise.all([a.kill(), b.kill()])) };
}

async function modern(url: URL, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await new HttpPeer(url, MODERN).modern(method, params, { caps: CAPS });
  assert.equal(reply.status, 200, JSON.stringify(reply.messages));
  return reply.messages[0]!.result;
}

/** Polls `tasks/get` through `url` until the task is terminal; every status seen on the way. */
async function untilTerminal(url: URL, taskId: string): Promise<{ task: Record<string, any>; seen: string[] }> {
  const seen: string[] = [];
  const task = await until(
    async () => {
      const t = await modern(url, 'tasks/get', { taskId });
      seen.push(t.status);
      return ['completed', 'failed', 'cancelled'].includes(t.status) ? t : undefined;
    },
    `task ${taskId} to end`,
    WAIT_MS,
  );
  return { task, seen };
}

test('2026-07-28: a rerunnable task whose instance is SIGKILLed runs again through B, with its arguments, and completes within the bound', {
  timeout: 120_000,
}, async (t) => {
  const { a, b, close } = await deployment();
  try {
    const created = await modern(a.url, 'tools/call', { name: 'rerunnable_work', arguments: { label: 'report-7' } });
    assert.equal(created.resultType, 'task');
    const taskId: string = created.taskId;
    await a.started(taskId);
    await a.kill();
    const killedAt = Date.now();
    const { task, seen } = await untilTerminal(b.url, taskId);
    const took = Date.now() - killedAt;
    assert.equal(task.status, 'completed', JSON.stringify(task));
    assert.deepEqual(task.result.content, [{ type: 'text', text: `report-7 done by ${b.pid}` }]);
    assert.ok(b.stderr().includes(`started ${taskId} ${b.pid}`), 'the handler ran again on B');
    t.diagnostic(`completed through B ${took} ms after the kill (bound ${BOUND_MS} ms from A's last renewal)`);
    assert.ok(took < BOUND_MS + SLACK_MS, `completed ${took} ms after the kill (bound ${BOUND_MS} ms)`);
    assert.ok(
      seen.every((s) => s === 'working' || s === 'completed'),
      seen.join(),
    );
  } finally {
    await close();
  }
});

test('2026-07-28: a task whose tool is not rerunnable fails, saying its instance stopped, found by B\u2019s sweep alone within the bound', {
  timeout: 120_000,
}, async (t) => {
  const { a, b, prefix, close } = await deployment();
  const raw = await redisLink({ ...redis.target, onError: () => undefined });
  t.after(() => raw.close());
  try {
    const created = await modern(a.url, 'tools/call', { name: 'once_work', arguments: { label: 'x' } });
    const taskId: string = created.taskId;
    await a.started(taskId);
    await a.kill();
    const killedAt = Date.now();
    // Read from Redis directly: no tasks/get prompts a look, so B's periodic sweep is what finds it.
    const key = `{${prefix}tasks}:task:${taskId}`;
    await until(async () => (await raw.hGetAll(key, 2000)).status === 'failed', 'the sweep to fail the task', WAIT_MS);
    const took = Date.now() - killedAt;
    t.diagnostic(`failed by B's sweep ${took} ms after the kill (bound ${BOUND_MS} ms from A's last renewal)`);
    assert.ok(took < BOUND_MS + SLACK_MS, `failed ${took} ms after the kill (bound ${BOUND_MS} ms)`);
    const task = await modern(b.url, 'tasks/get', { taskId });
    assert.equal(task.status, 'failed');
    assert.equal(task.error.code, -32603);
    assert.match(task.error.message, /server instance running this task stopped before the task finished/);
    assert.match(task.error.message, /tool "once_work" is not declared safe to run again/);
    assert.equal(task.statusMessage, task.error.message);
    assert.equal(task.result, undefined);
    assert.ok(!b.stderr().includes(`started ${taskId}`), 'B never ran it');
  } finally {
    await close();
  }
});

/** A fetch that sends every request to the instance the test points it at, as a load balancer would. */
function steeredFetch(first: URL): { fetch: typeof fetch; steer(to: URL): void; sentTo(url: URL): number } {
  let target = first;
  const sent = new Map<string, number>();
  return {
    fetch: (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      url.host = target.host;
      sent.set(target.host, (sent.get(target.host) ?? 0) + 1);
      return fetch(url, init);
    },
    steer: (to) => void (target = to),
    sentTo: (url) => sent.get(url.host) ?? 0,
  };
}

test('2026-07-28 through the client: startTool on A, A SIGKILLed, the same handle resolves with B\u2019s run', {
  timeout: 120_000,
}, async () => {
  const { a, b, close } = await deployment();
  const steered = steeredFetch(a.url);
  const client = await connect(a.url, { protocolVersion: MODERN, fetch: steered.fetch });
  try {
    const handle = await client.startTool('rerunnable_work', { label: 'client-run' });
    assert.ok(handle.taskId);
    await a.started(handle.taskId);
    // The balancer stops sending to A; once a poll reached B, nothing is in flight to A.
    steered.steer(b.url);
    await until(() => steered.sentTo(b.url) > 0, 'a poll to reach B', WAIT_MS);
    await a.kill();
    assert.equal(textOf(await handle.result()), `client-run done by ${b.pid}`);
  } finally {
    await client.close();
    await close();
  }
});

test('2025-11-25 through the client: a session on A, its tasks resumed through B after A is SIGKILLed: a rerun completes, a rerun that asks fails, the other fails with the clear error', {
  timeout: 120_000,
}, async () => {
  const { a, b, close } = await deployment();
  const steered = steeredFetch(a.url);
  const client = await connect(a.url, { protocolVersion: '2025-11-25', fetch: steered.fetch });
  try {
    const rerun = await client.startTool('rerunnable_work', { label: 'legacy-run' });
    const once = await client.startTool('once_work', { label: 'legacy-once' });
    const asking = await client.startTool('rerunnable_ask', { label: 'legacy-ask' });
    assert.ok(rerun.taskId && once.taskId && asking.taskId, 'the calls are tasks');
    // The first handles follow through A (tasks/result holds a request there): they end with A.
    for (const handle of [rerun, once, asking]) handle.result().catch(() => undefined);
    await Promise.all([a.started(rerun.taskId), a.started(once.taskId), a.started(asking.taskId)]);
    steered.steer(b.url);
    await a.kill();
    // The session lives on in Redis: B serves it, and the tasks are resumed there by id.
    const [again, failed, asked] = await Promise.all([
      client.resumeTool(rerun.taskId),
      client.resumeTool(once.taskId),
      client.resumeTool(asking.taskId),
    ]);
    // Run again on B, the task cannot send its session's client a request: its ask fails, and so does the task.
    await assert.rejects(asked.result(), (e: unknown) => {
      assert.ok(e instanceof McpError, String(e));
      assert.match(e.message, /runs again on another server instance, which cannot ask its 2025-11-25 client/);
      return true;
    });
    assert.ok(b.stderr().includes(`started ${asking.taskId} ${b.pid}`), 'it did run again on B');
    assert.equal(textOf(await again.result()), `legacy-run done by ${b.pid}`);
    await assert.rejects(failed.result(), (e: unknown) => {
      assert.ok(e instanceof McpError, String(e));
      assert.equal(e.code, -32603);
      assert.match(e.message, /stopped before the task finished, and tool "once_work" is not declared safe to run again/);
      return true;
    });
    assert.equal((await failed.refresh()).status, 'failed');
  } finally {
    await client.close();
    await close();
  }
});
