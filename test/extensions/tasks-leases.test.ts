/**
 * Task leases in one process: instances are servers sharing one `InMemoryTaskStore`, each
 * seeing it under an instance id of its own, and an instance "dies" by closing (its handlers
 * abort, its lease is no longer renewed). What the process tests (test/redis/task-failover)
 * do not reach: a run again asks under keys of its own, `maxRuns` ends the re-runs, and a
 * runner that no longer holds a task stops its handler.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { createServer, type Server } from '../../src/server/index.js';
import { InMemoryTaskStore, task, taskOf, tasks, type TaskStore } from '../../src/extensions/tasks/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { MemoryPeer } from '../support/peer.js';
import { aborted, until } from '../support/wait.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = { elicitation: {}, extensions: { [TASKS]: {} } };
/** Long enough that a live instance keeps its leases on a busy machine, short enough to notice a death soon. */
const LEASE_MS = 1000;

/** `shared` as the instance `instanceId` sees it. */
function instanceStore(shared: InMemoryTaskStore, instanceId: string): TaskStore {
  return {
    instanceId,
    create: (r) => shared.create(r),
    get: (id) => shared.get(id),
    update: (id, change) => shared.update(id, change),
    addInput: (id, key, request) => shared.addInput(id, key, request),
    answer: (id, responses) => shared.answer(id, responses),
    list: (owner, cursor, limit) => shared.list(owner, cursor, limit),
    keepLeases: (runner, holding, leaseMs, limit) => shared.keepLeases(runner, holding, leaseMs, limit),
    signal: (runner, signal) => shared.signal(runner, signal),
    onSignal: (handler) => shared.onSignal(handler),
  };
}

/** Where each handler started: [instance, task id]; `stopped` holds why each `hold` handler stopped. */
type Starts = Array<[string, string]> & { stopped?: Map<string, unknown> };

async function instance(shared: InMemoryTaskStore, name: string, starts: Starts, maxRuns?: number, leaseMs = LEASE_MS) {
  const server: Server = createServer({
    name,
    version: '1.0.0',
    extensions: [tasks({ store: instanceStore(shared, name), leaseMs, ...(maxRuns === undefined ? {} : { maxRuns }) })],
  });
  server.tool('hold', { extensions: task({ support: 'optional', rerunnable: true }) }, async (_args, ctx) => {
    const id = taskOf(ctx)!.id;
    starts.push([name, id]);
    (starts.stopped ??= new Map()).set(id, await aborted(ctx.signal));
    return 'never';
  });
  server.tool('ask', { extensions: task({ support: 'optional', rerunnable: true }) }, async (_args, ctx) => {
    starts.push([name, taskOf(ctx)!.id]);
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${String(answer.content?.name)} from ${name}`;
  });
  const peer = await MemoryPeer.connect(server, { revision: MODERN });
  return {
    server,
    peer,
    rpc: async (method: string, params: Record<string, unknown>): Promise<Msg> => {
      const r = await peer.modern(method, params, { caps: CAPS });
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      return r.result;
    },
    /** The instance dies: its handlers stop and nobody renews its leases. */
    async die() {
      server.close();
      await peer.close().catch(() => undefined);
    },
  };
}

// The peers check every message against the wire schema, compiled on first use: that pause of
// the event loop is taken before the tests, in which it would outlast the leases of live instances.
before(async () => {
  const shared = new InMemoryTaskStore();
  const warm = await instance(shared, 'warm', []);
  const { taskId } = await warm.rpc('tools/call', { name: 'ask', arguments: {} });
  const asked = await until(async () => {
    const t = await warm.rpc('tasks/get', { taskId });
    return t.status === 'input_required' ? t : undefined;
  }, 'the warm-up task to ask');
  await warm.rpc('tasks/update', { taskId, inputResponses: { [Object.keys(asked.inputRequests)[0]!]: { action: 'decline' } } });
  await until(async () => (await warm.rpc('tasks/get', { taskId })).status === 'completed', 'the warm-up task to end');
  await warm.die();
  shared.close();
});

test('a run again asks under keys of its own: the dead run\u2019s key is ignored, the new one answers it', async () => {
  const shared = new InMemoryTaskStore();
  const starts: Starts = [];
  const a = await instance(shared, 'a', starts);
  const b = await instance(shared, 'b', starts);
  try {
    const { taskId } = await a.rpc('tools/call', { name: 'ask', arguments: {} });
    const first = await until(async () => {
      const t = await b.rpc('tasks/get', { taskId });
      return t.status === 'input_required' ? t : undefined;
    }, 'the first run to ask');
    const oldKey = Object.keys(first.inputRequests)[0]!;
    await a.die();
    const second = await until(
      async () => {
        const t = await b.rpc('tasks/get', { taskId });
        return t.status === 'input_required' && !(oldKey in t.inputRequests) ? t : undefined;
      },
      'the run again to ask',
      10_000,
    );
    assert.deepEqual(
      starts.map(([name]) => name),
      ['a', 'b'],
    );
    const newKey = Object.keys(second.inputRequests)[0]!;
    assert.notEqual(newKey, oldKey);
    await b.rpc('tasks/update', { taskId, inputResponses: { [oldKey]: { action: 'accept', content: { name: 'Old' } } } });
    assert.equal((await b.rpc('tasks/get', { taskId })).status, 'input_required', "the dead run's key answers nothing");
    await b.rpc('tasks/update', { taskId, inputResponses: { [newKey]: { action: 'accept', content: { name: 'Ann' } } } });
    const done = await until(async () => {
      const t = await b.rpc('tasks/get', { taskId });
      return t.status === 'completed' ? t : undefined;
    }, 'the run again to complete');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'hello Ann from b' }]);
  } finally {
    await a.die();
    await b.die();
    shared.close();
  }
});

test('tasks({ maxRuns }): a task whose instances keep dying is failed once it was started that often', async () => {
  const shared = new InMemoryTaskStore();
  const starts: Starts = [];
  const a = await instance(shared, 'a', starts, 2);
  const b = await instance(shared, 'b', starts, 2);
  let c: Awaited<ReturnType<typeof instance>> | undefined;
  try {
    const { taskId } = await a.rpc('tools/call', { name: 'hold', arguments: {} });
    await until(() => starts.length === 1, 'the first run');
    await a.die();
    await until(() => starts.length === 2, 'the run again on b', 10_000);
    assert.deepEqual(starts[1], ['b', taskId]);
    const running = await b.rpc('tasks/get', { taskId });
    assert.equal(running.status, 'working');
    assert.match(running.statusMessage, /Running again: the server instance running it stopped/);
    await b.die();
    c = await instance(shared, 'c', starts, 2);
    const failed = await until(
      async () => {
        const t = await c!.rpc('tasks/get', { taskId });
        return t.status === 'failed' ? t : undefined;
      },
      'the task to fail',
      10_000,
    );
    assert.equal(starts.length, 2, 'not started a third time');
    assert.equal(failed.error.code, -32603);
    assert.match(failed.error.message, /stopped before the task finished, 2 times \(tool "hold" was started that often/);
  } finally {
    await a.die();
    await b.die();
    await c?.die();
    shared.close();
  }
});

test('a runner that no longer holds its task (ended without a signal reaching it) stops the handler at its next renewal', async () => {
  const shared = new InMemoryTaskStore();
  const starts: Starts = [];
  const a = await instance(shared, 'a', starts);
  try {
    const { taskId } = await a.rpc('tools/call', { name: 'hold', arguments: {} });
    await until(() => starts.length === 1, 'the handler to start');
    // Cancelled in the store, with no signal to its runner (as when a signal is lost on the way).
    const cancelled = await shared.update(taskId, { status: 'cancelled', statusMessage: 'elsewhere' });
    assert.equal(cancelled?.leaseUntil, undefined, 'an ended task has no lease');
    const reason = await until(() => starts.stopped?.get(taskId), 'the handler to stop', 5000);
    assert.match(String((reason as Error).message), /no longer holds the task/);
    assert.equal((await a.rpc('tasks/get', { taskId })).status, 'cancelled');
  } finally {
    await a.die();
    shared.close();
  }
});

test('a read of a task whose lease ran out takes it over at once, without waiting for the next sweep', async () => {
  const shared = new InMemoryTaskStore();
  const starts: Starts = [];
  const a = await instance(shared, 'a', starts);
  // B sweeps every 20 minutes: only a read can make it notice in time.
  const b = await instance(shared, 'b', starts, undefined, 3_600_000);
  try {
    const { taskId } = await a.rpc('tools/call', { name: 'hold', arguments: {} });
    await until(() => starts.length === 1, 'the handler to start on a');
    // A closes: its lease ends now, and nobody renews it.
    await a.die();
    await until(
      async () => {
        await b.rpc('tasks/get', { taskId });
        return starts.length === 2;
      },
      'b to take it over on a read',
      5000,
    );
    assert.deepEqual(starts[1], ['b', taskId]);
  } finally {
    await a.die();
    await b.die();
    shared.close();
  }
});
