/**
 * What the tasks extension does to stay cheap per task, and that it changes nothing: the
 * in-memory store copies records by hand (`clone`, what `structuredClone` makes, which it
 * still uses for anything but plain data); one timer watches every running task's lifetime;
 * a task's `ctx.signal` is made only when its handler reads it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { ErrorCode } from '../../src/errors/index.js';
import { task, tasks } from '../../src/extensions/tasks/index.js';
import { clone } from '../../src/extensions/tasks/memory-store.js';
import { MODERN, type Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';
import { aborted, deferred, until } from '../support/wait.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = { extensions: { [TASKS]: {} } };

test('clone makes what structuredClone makes: plain data by hand, anything else by structuredClone', () => {
  const record = {
    taskId: 't',
    status: 'completed',
    statusMessage: undefined,
    ttlMs: null,
    big: 10n,
    negativeZero: -0,
    result: { content: [{ type: 'text', text: 'x' }, null, 1, true], nested: { a: [[1], { b: 'c' }] } },
  };
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
  const sparse = new Array<number>(3); // a hole at 1
  sparse[0] = 1;
  sparse[2] = 3;
  const extra = Object.assign([1, 2], { label: 'x' });
  const shared = { s: 1 };
  const dag = { a: shared, b: shared };
  const cycle: Record<string, unknown> = { name: 'c' };
  cycle.self = cycle;
  class Point {
    constructor(
      public x = 1,
      public y = 2,
    ) {}
  }
  const withAccessor = {
    get computed() {
      return 42;
    },
  };
  for (const value of [
    record,
    parsed,
    sparse,
    extra,
    dag,
    cycle,
    new Point(),
    Object.create(null),
    withAccessor,
    { when: new Date(0), map: new Map([[1, 2]]), bytes: new Uint8Array([1, 2]), re: /x/g, boxed: new String('s') },
    [],
    {},
  ]) {
    const mine = clone(value);
    const theirs = structuredClone(value);
    assert.deepEqual(mine, theirs);
    assert.equal(Object.getPrototypeOf(mine), Object.getPrototypeOf(theirs));
    assert.deepEqual(Object.keys(mine as object), Object.keys(theirs as object));
    assert.notEqual(mine, value, 'a copy');
  }
  // Own __proto__ keys stay own keys, the prototype untouched.
  const p = clone(parsed);
  assert.ok(Object.hasOwn(p, '__proto__'));
  assert.equal(Object.getPrototypeOf(p), Object.prototype);
  // Shared branches stay shared, cycles stay cycles; holes and extra array keys are kept.
  const d = clone(dag);
  assert.equal(d.a, d.b);
  assert.notEqual(d.a, shared);
  const c = clone(cycle);
  assert.equal(c.self, c);
  const s = clone(sparse);
  assert.equal(1 in s, false);
  assert.equal(clone(extra).label, 'x');
  assert.ok(Object.is(clone(record).negativeZero, -0));
  // Deep: edits to the copy do not reach the original.
  const r = clone(record);
  (r.result.content[0] as { text: string }).text = 'edited';
  assert.equal((record.result.content[0] as { text: string }).text, 'x');
  // What structuredClone refuses, clone refuses with the same error.
  for (const bad of [{ f: () => 1 }, { s: Symbol('x') }, [() => 1], { deep: { fn() {} } }]) {
    let expected: unknown;
    try {
      structuredClone(bad);
    } catch (e) {
      expected = e;
    }
    assert.ok(expected instanceof Error);
    assert.throws(
      () => clone(bad),
      (e: unknown) => e instanceof Error && e.name === expected.name && e.message === expected.message,
    );
  }
});

async function create(peer: MemoryPeer, name: string): Promise<Msg> {
  const r = await peer.modern('tools/call', { name, arguments: {} }, { caps: CAPS });
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.result.resultType, 'task');
  return r.result;
}

test('one expiry timer for all tasks: a shorter-lived task started after a longer-lived one still expires on time; the longer one runs on', async () => {
  const server = createServer({ name: 't', version: '1', extensions: [tasks()] });
  const signals: Record<string, Promise<AbortSignal>> = {};
  for (const [name, ttlMs] of [
    ['long', 60_000],
    ['short', 150],
  ] as const) {
    const started = deferred<AbortSignal>();
    signals[name] = started.promise;
    server.tool(name, { extensions: task({ support: 'optional', ttlMs }) }, async (_args, ctx) => {
      started.resolve(ctx.signal);
      await aborted(ctx.signal);
      return 'over';
    });
  }
  await withMemoryPeer(
    server,
    async (peer) => {
      const long = await create(peer, 'long');
      const short = await create(peer, 'short');
      const shortSignal = await signals.short!;
      // Polled: the expiry timer is unref'd, so nothing else would keep an idle in-memory test running.
      await until(() => shortSignal.aborted, 'the short task to expire');
      assert.match(String((shortSignal.reason as Error).message), /expired/);
      const gone = await until(async () => (await peer.modern('tasks/get', { taskId: short.taskId }, { caps: CAPS })).error);
      assert.equal(gone.code, ErrorCode.InvalidParams);
      const longSignal = await signals.long!;
      assert.equal(longSignal.aborted, false, 'the longer-lived task runs on');
      assert.equal((await peer.modern('tasks/get', { taskId: long.taskId }, { caps: CAPS })).result.status, 'working');
      await peer.modern('tasks/cancel', { taskId: long.taskId }, { caps: CAPS });
      await aborted(longSignal);
    },
    { revision: MODERN },
  );
});

test("a task's ctx.signal read only after the task was cancelled is already aborted, with the cancellation's reason", async () => {
  const server = createServer({ name: 't', version: '1', extensions: [tasks()] });
  const release = deferred();
  const seen = deferred<AbortSignal>();
  server.tool('late', { extensions: task('optional') }, async (_args, ctx) => {
    await release.promise;
    seen.resolve(ctx.signal);
    return 'done';
  });
  await withMemoryPeer(
    server,
    async (peer) => {
      const task = await create(peer, 'late');
      await peer.modern('tasks/cancel', { taskId: task.taskId }, { caps: CAPS });
      release.resolve();
      const signal = await seen.promise;
      assert.equal(signal.aborted, true);
      assert.match(String((signal.reason as Error).message), /cancelled by request/);
      assert.equal((await peer.modern('tasks/get', { taskId: task.taskId }, { caps: CAPS })).result.status, 'cancelled');
    },
    { revision: MODERN },
  );
});
