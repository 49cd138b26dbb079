/**
 * The `TaskStore` contract (src/extensions/tasks/store.ts), written once and run against every
 * store: `InMemoryTaskStore` and `RedisTaskStore` must behave alike, so the tasks extension
 * works the same in one process and across instances.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { TaskRecord, TaskSignal, TaskStore } from '../../src/extensions/tasks/store.js';
import { until } from '../support/wait.js';

/** A fresh, empty store; `close` releases it. */
export interface OpenedStore {
  readonly store: TaskStore;
  close(): Promise<void>;
}

/** A task created now by `store`, with the given changes. */
export function newTask(store: TaskStore, fields: Partial<TaskRecord> = {}): TaskRecord {
  const now = new Date().toISOString();
  return {
    taskId: randomUUID(),
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    owner: 'alice',
    design: 'extension',
    method: 'tools/call',
    runner: store.instanceId,
    ...fields,
  };
}

/** What a store may write in `lastUpdatedAt`: an ISO 8601 time between `before` and now. */
function assertStamped(iso: string, before: number): void {
  assert.equal(new Date(iso).toISOString(), iso, 'ISO 8601 as toISOString writes it');
  const t = Date.parse(iso);
  assert.ok(t >= before && t <= Date.now(), `${iso} is between the call and now`);
}

/** A result with what lossy encodings break: empty arrays and objects, nulls, long numbers, unicode. */
const RESULT = {
  content: [{ type: 'text', text: 'Ünïcødé ✓ "quoted" \n' }],
  structuredContent: { empty: [], nested: [[]], none: {}, nil: null, big: 9007199254740991, tiny: 1e-7, neg: -0.5 },
  isError: false,
};

export function taskStoreContract(name: string, open: () => Promise<OpenedStore>): void {
  const withStore = (title: string, body: (store: TaskStore) => Promise<void>) =>
    test(`${name}: ${title}`, async () => {
      const { store, close } = await open();
      try {
        await body(store);
      } finally {
        await close();
      }
    });

  withStore('create then get round-trips every field, and hands out copies', async (store) => {
    const record = newTask(store, {
      status: 'input_required',
      statusMessage: 'waiting: ✓',
      pollIntervalMs: 250,
      ttlMs: 90_000,
      design: 'core',
      inputRequests: {
        'ask:name': { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } } },
      },
      result: RESULT,
      error: { code: -32603, message: 'partly', data: { list: [] } },
    });
    await store.create(record);
    const sent = structuredClone(record);
    record.status = 'failed'; // the caller's object is not the store's
    const got = await store.get(record.taskId);
    assert.deepEqual(got, sent);
    got!.status = 'completed';
    got!.inputRequests!['ask:name']!.method = 'changed';
    (got!.result!.structuredContent as { empty: unknown[] }).empty.push(1);
    assert.deepEqual(await store.get(record.taskId), sent, 'edits to a copy do not reach the store');
    assert.equal(await store.get(randomUUID()), undefined);

    // What update and addInput are given is not the store's either.
    const other = newTask(store);
    await store.create(other);
    const request = { method: 'elicitation/create', params: { message: 'Q?' } };
    const asked = await store.addInput(other.taskId, 'q', request);
    request.params.message = 'changed';
    assert.deepEqual(await store.get(other.taskId), asked);
    const result = structuredClone(RESULT);
    const stored = await store.update(other.taskId, { status: 'completed', result });
    result.content[0]!.text = 'changed';
    assert.deepEqual(await store.get(other.taskId), stored);
  });

  withStore('a task expires ttlMs after createdAt; one with ttlMs null does not, nor a later one', async (store) => {
    const short = newTask(store, { ttlMs: 50 });
    const long = newTask(store, { ttlMs: 60_000 });
    const unlimited = newTask(store, { ttlMs: null });
    for (const r of [short, long, unlimited]) await store.create(r);
    await until(async () => (await store.get(short.taskId)) === undefined, 'the short-lived task to expire');
    assert.equal((await store.get(long.taskId))?.taskId, long.taskId);
    assert.equal((await store.get(unlimited.taskId))?.ttlMs, null);
    assert.equal(await store.update(short.taskId, { status: 'completed' }), undefined, 'an expired task is unknown');
    const listed = await store.list('alice', undefined, 10);
    assert.deepEqual(
      listed.records.map((r) => r.taskId),
      [long.taskId, unlimited.taskId],
    );
  });

  withStore('a new ttlMs counts from createdAt: shortened, the task expires; made null, it stays', async (store) => {
    const a = newTask(store);
    const b = newTask(store, { ttlMs: 60_000 });
    await store.create(a);
    await store.create(b);
    assert.equal((await store.update(b.taskId, { ttlMs: null }))?.ttlMs, null);
    assert.equal((await store.update(a.taskId, { ttlMs: 50 }))?.ttlMs, 50);
    await until(async () => (await store.get(a.taskId)) === undefined, 'the shortened task to expire');
    assert.deepEqual(
      (await store.list('alice', undefined, 10)).records.map((r) => r.taskId),
      [b.taskId],
    );
  });

  withStore('update applies the change, stamps lastUpdatedAt and returns the record after', async (store) => {
    const record = newTask(store, { createdAt: '2026-01-01T00:00:00.000Z', lastUpdatedAt: '2026-01-01T00:00:00.000Z', ttlMs: null });
    await store.create(record);
    const before = Date.now();
    const after = await store.update(record.taskId, { statusMessage: 'half way', pollIntervalMs: 1000 });
    assert.ok(after);
    assertStamped(after.lastUpdatedAt, before);
    assert.deepEqual(after, { ...record, statusMessage: 'half way', pollIntervalMs: 1000, lastUpdatedAt: after.lastUpdatedAt });
    assert.deepEqual(await store.get(record.taskId), after);
    const done = await store.update(record.taskId, { status: 'completed', result: RESULT });
    assert.deepEqual(done, { ...after, status: 'completed', result: RESULT, lastUpdatedAt: done!.lastUpdatedAt });
    assert.equal(await store.update(randomUUID(), { status: 'failed' }), undefined, 'unknown task');
  });

  withStore('terminal is final: after cancelled, update, addInput and answer are refused and the record stays as it was', async (store) => {
    const record = newTask(store);
    await store.create(record);
    await store.addInput(record.taskId, 'name', { method: 'elicitation/create' });
    const cancelled = await store.update(record.taskId, { status: 'cancelled', statusMessage: 'by the client' });
    assert.ok(cancelled);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.inputRequests, undefined, 'a terminal task asks for nothing more');
    assert.equal(await store.update(record.taskId, { status: 'completed', result: RESULT }), undefined);
    assert.equal(await store.update(record.taskId, { statusMessage: 'late' }), undefined);
    assert.equal(await store.addInput(record.taskId, 'again', { method: 'elicitation/create' }), undefined);
    assert.equal(await store.answer(record.taskId, { name: { action: 'accept' } }), undefined);
    assert.deepEqual(await store.get(record.taskId), cancelled);
  });

  withStore('addInput and answer: partial answers take only outstanding keys; none left, the task works again', async (store) => {
    const record = newTask(store);
    await store.create(record);
    const before = Date.now();
    const one = await store.addInput(record.taskId, 'a', { method: 'elicitation/create', params: { message: 'A?' } });
    assert.equal(one?.status, 'input_required');
    assertStamped(one.lastUpdatedAt, before);
    const two = await store.addInput(record.taskId, 'b', { method: 'sampling/createMessage' });
    assert.deepEqual(two?.inputRequests, {
      a: { method: 'elicitation/create', params: { message: 'A?' } },
      b: { method: 'sampling/createMessage' },
    });

    const first = await store.answer(record.taskId, { a: { action: 'accept', content: { x: [] } }, unknown: 1 });
    assert.deepEqual(first?.taken, { a: { action: 'accept', content: { x: [] } } }, 'unknown keys are ignored');
    assert.deepEqual(first.record.inputRequests, { b: { method: 'sampling/createMessage' } });
    assert.equal(first.record.status, 'input_required', 'one still outstanding');

    const again = await store.answer(record.taskId, { a: 'twice', nope: 2 });
    assert.deepEqual(again, { taken: {}, record: first.record }, 'nothing outstanding answered: nothing changes');

    const last = await store.answer(record.taskId, { b: { role: 'assistant' } });
    assert.deepEqual(last?.taken, { b: { role: 'assistant' } });
    assert.equal(last.record.status, 'working');
    assert.equal(last.record.inputRequests, undefined);
    assert.deepEqual(await store.get(record.taskId), last.record);
    assert.equal(await store.addInput(randomUUID(), 'a', { method: 'elicitation/create' }), undefined, 'unknown task');
    assert.equal(await store.answer(randomUUID(), { a: 1 }), undefined, 'unknown task');
  });

  withStore('list pages through one owner\u2019s tasks, oldest first, with an opaque cursor', async (store) => {
    const alice: string[] = [];
    const anonymous: string[] = [];
    for (let i = 0; i < 5; i++) {
      const mine = newTask(store, { owner: 'alice' });
      await store.create(mine);
      alice.push(mine.taskId);
      const other = newTask(store, { owner: '' });
      await store.create(other);
      anonymous.push(other.taskId);
    }
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list('alice', cursor, 2);
      assert.ok(page.records.every((r) => r.owner === 'alice'));
      pages.push(page.records.map((r) => r.taskId));
      cursor = page.nextCursor;
    } while (cursor !== undefined && pages.length < 10);
    assert.deepEqual(pages, [alice.slice(0, 2), alice.slice(2, 4), alice.slice(4)]);
    assert.deepEqual(
      (await store.list('', undefined, 10)).records.map((r) => r.taskId),
      anonymous,
      "owner '' is an owner like any other",
    );
    assert.deepEqual(await store.list('bob', undefined, 10), { records: [] });
    const exact = await store.list('alice', undefined, 5);
    assert.equal(exact.records.length, 5);
    assert.equal(exact.nextCursor, undefined, 'no cursor when nothing follows');
    const one = await store.list('alice', undefined, 0);
    assert.deepEqual(
      one.records.map((r) => r.taskId),
      [alice[0]],
      'a limit below 1 still makes progress',
    );
    assert.ok(one.nextCursor);
    assert.deepEqual((await store.list('alice', 'not-a-cursor', 10)).records, [], 'a cursor the store did not issue lists nothing');
  });

  withStore('a task created again under the same id replaces the record, and lists under its new owner only', async (store) => {
    const first = newTask(store, { owner: 'alice', statusMessage: 'first' });
    await store.create(first);
    const second = { ...newTask(store, { owner: 'bob' }), taskId: first.taskId };
    await store.create(second);
    assert.deepEqual(await store.get(first.taskId), second);
    assert.deepEqual(await store.list('alice', undefined, 10), { records: [] });
    assert.deepEqual((await store.list('bob', undefined, 10)).records, [second]);
  });

  withStore('signals for this instance reach its handlers until they stop listening', async (store) => {
    const first: TaskSignal[] = [];
    const second: TaskSignal[] = [];
    const off = store.onSignal((s) => first.push(s));
    const cancel: TaskSignal = { type: 'cancel', taskId: 't1' };
    await store.signal(store.instanceId, cancel);
    await until(() => first.length === 1, 'the cancel signal');
    assert.deepEqual(first, [cancel]);
    off();
    store.onSignal((s) => second.push(s));
    const input: TaskSignal = { type: 'input', taskId: 't2', responses: { a: { action: 'accept', content: { n: 1 } } } };
    await store.signal(store.instanceId, input);
    await until(() => second.length === 1, 'the input signal');
    assert.deepEqual(second, [input]);
    assert.deepEqual(first, [cancel], 'a handler that stopped listening hears nothing more');
  });
}

/** What a rerunnable task keeps of its request. */
const RERUN = {
  name: 'reindex',
  arguments: { full: true, paths: [], options: {} },
  requestId: 7,
  protocolVersion: '2026-07-28',
  client: { info: { name: 'c', version: '1' }, capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
  transport: 'http',
  principal: 'alice',
};

/** Leases: renewed by the runner, taken over once overdue, by exactly one caller. */
export function taskLeaseContract(name: string, open: () => Promise<OpenedStore>): void {
  const withStore = (title: string, body: (store: TaskStore) => Promise<void>) =>
    test(`${name}: ${title}`, async () => {
      const { store, close } = await open();
      try {
        await body(store);
      } finally {
        await close();
      }
    });

  withStore('a leased task keeps its lease fields; keepLeases renews what the runner holds and reports what it lost', async (store) => {
    const before = Date.now();
    const record = newTask(store, { runner: 'a', leaseUntil: before + 60_000, runs: 1, tool: 'reindex', rerun: RERUN });
    await store.create(record);
    const got = await store.get(record.taskId);
    assert.ok(got?.leaseUntil !== undefined);
    // A store may count the lease from its own clock: about a minute from the create.
    assert.ok(Math.abs(got.leaseUntil - (before + 60_000)) < 5_000, `leaseUntil ${got.leaseUntil - before} ms after the create`);
    assert.deepEqual({ ...got, leaseUntil: 0 }, { ...record, leaseUntil: 0 }, 'every other field round-trips');

    const other = newTask(store, { runner: 'b', leaseUntil: Date.now() + 60_000 });
    const ended = newTask(store, { runner: 'a', leaseUntil: Date.now() + 60_000 });
    for (const r of [other, ended]) await store.create(r);
    const done = await store.update(ended.taskId, { status: 'completed', result: RESULT });
    assert.equal(done?.leaseUntil, undefined, 'a terminal task has no lease');
    const unknown = randomUUID();

    const renewedFrom = Date.now();
    const kept = await store.keepLeases('a', [record.taskId, other.taskId, ended.taskId, unknown], 120_000, 10);
    assert.deepEqual(
      kept.lost.sort(),
      [other.taskId, ended.taskId, unknown].sort(),
      "another runner's, an ended and an unknown task are lost",
    );
    assert.deepEqual(kept.claimed, [], 'nothing is overdue');
    const renewed = await store.get(record.taskId);
    assert.ok(renewed!.leaseUntil! >= renewedFrom + 120_000 - 5_000, 'renewed for leaseMs from now');
    assert.equal(renewed!.runner, 'a');
    assert.equal((await store.get(other.taskId))?.runner, 'b', "another runner's task stays its own");
  });

  withStore(
    'an overdue task is taken over once: working, the new runner\u2019s, one run more, its input requests dropped',
    async (store) => {
      const parked = newTask(store, { runner: 'dead', leaseUntil: Date.now() + 30, runs: 1, rerun: RERUN, statusMessage: 'asking' });
      const plain = newTask(store, { runner: 'dead', leaseUntil: Date.now() + 30 });
      const live = newTask(store, { runner: 'alive', leaseUntil: Date.now() + 60_000 });
      const unleased = newTask(store, { runner: 'dead' });
      for (const r of [parked, plain, live, unleased]) await store.create(r);
      await store.addInput(parked.taskId, 'elicit-0', { method: 'elicitation/create', params: { message: 'Go?' } });
      const cancelled = newTask(store, { runner: 'dead', leaseUntil: Date.now() + 30 });
      await store.create(cancelled);
      await store.update(cancelled.taskId, { status: 'cancelled' });
      await until(async () => Date.now() > parked.leaseUntil! + 50, 'the short leases to run out');

      // Two instances look at once: each overdue task goes to one of them.
      const from = Date.now();
      const [b, c] = await Promise.all([store.keepLeases('b', [], 60_000, 10), store.keepLeases('c', [], 60_000, 10)]);
      const taken = [...b.claimed.map((r) => ['b', r] as const), ...c.claimed.map((r) => ['c', r] as const)];
      assert.deepEqual(taken.map(([, r]) => r.taskId).sort(), [parked.taskId, plain.taskId].sort(), 'each overdue task, once');
      for (const [by, r] of taken) {
        assert.equal(r.runner, by);
        assert.equal(r.status, 'working');
        assert.equal(r.inputRequests, undefined, "the dead run's questions died with it");
        assert.equal(r.runs, 2, 'one run more (a record without runs was run once)');
        assert.ok(r.leaseUntil! >= from + 60_000 - 5_000);
        assert.deepEqual(await store.get(r.taskId), r);
      }
      assert.deepEqual(taken.find(([, r]) => r.taskId === parked.taskId)?.[1].rerun, RERUN);
      assert.equal(taken.find(([, r]) => r.taskId === parked.taskId)?.[1].statusMessage, 'asking');
      assert.equal((await store.get(live.taskId))?.runner, 'alive', 'a lease not yet out is not taken');
      assert.equal((await store.get(unleased.taskId))?.runner, 'dead', 'a task without a lease is never taken');
      assert.equal((await store.get(cancelled.taskId))?.status, 'cancelled', 'an ended task is not taken');
      const again = await store.keepLeases('d', [], 60_000, 10);
      assert.deepEqual(again.claimed, [], 'taken over, the leases are not overdue any more');
    },
  );

  withStore('keepLeases takes over at most limit tasks per call; the rest at the next', async (store) => {
    const due = [1, 2, 3].map(() => newTask(store, { runner: 'dead', leaseUntil: Date.now() + 20 }));
    for (const r of due) await store.create(r);
    await until(async () => Date.now() > due[2]!.leaseUntil! + 50, 'the leases to run out');
    const first = await store.keepLeases('b', [], 60_000, 2);
    assert.equal(first.claimed.length, 2);
    const second = await store.keepLeases('b', [], 60_000, 2);
    assert.equal(second.claimed.length, 1);
    assert.deepEqual([...first.claimed, ...second.claimed].map((r) => r.taskId).sort(), due.map((r) => r.taskId).sort());
    assert.deepEqual((await store.keepLeases('b', [], 60_000, 2)).claimed, []);
  });
}
