/**
 * The client as a 2025-11-25 task receiver (basic/utilities/tasks.mdx, client side), driven
 * by a raw server on an in-memory pair: `capabilities.tasks` declared for the handlers
 * present (§Client Capabilities); a sampling/elicitation request with `params.task` answered
 * at once with a CreateTaskResult while onSample/onElicit runs in the background (§Creating
 * Tasks); tasks/get, blocking tasks/result with the related-task `_meta` (§Result Retrieval,
 * §Related Task Metadata), tasks/list, tasks/cancel (§Task Cancellation: terminal → -32602),
 * unknown and expired ids (-32602), notifications/tasks/status. Every message the client sent
 * is checked against the 2025-11-25 schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type ConnectOptions, type HandlerContext } from '../../src/client/index.js';
import type { Msg } from '../support/common.js';
import { aborted, deferred, until } from '../support/wait.js';
import { initializeResult, scripted } from '../client/helpers.js';
import { LEGACY, RELATED, assertClientWire } from './support.js';

const SAMPLE = { messages: [{ role: 'user', content: { type: 'text', text: 'Hi?' } }], maxTokens: 10 };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Hello.' }, model: 'test-model' };

/** A legacy raw server and a client connected to it; `ask` sends a server request and resolves with the client's response. */
async function receiverSetup(options: ConnectOptions) {
  const s = scripted((msg) => (msg.method === 'initialize' ? initializeResult(msg) : { error: { code: -32601, message: 'no' } }));
  const client = await connect(s.transport, { protocolVersion: LEGACY, ...options });
  let seq = 0;
  const ask = async (method: string, params: Msg = {}): Promise<Msg> => {
    const id = `srv-${++seq}`;
    s.push({ jsonrpc: '2.0', id, method, params });
    return until(() => s.wire.sent().find((m) => m.id === id && m.method === undefined), `the client's answer to ${method}`);
  };
  return { client, wire: s.wire, ask };
}

function resultOf(response: Msg): Msg {
  assert.ok(response.result, `expected a result: ${JSON.stringify(response)}`);
  return response.result;
}

test('capabilities.tasks is declared for the handlers present, and not with tasks.receive off', async () => {
  const cases: Array<[ConnectOptions, unknown]> = [
    [{ onSample: () => SAMPLED as never }, { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } }],
    [
      { onSample: () => SAMPLED as never, onElicit: () => ({ action: 'decline' }) },
      { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
    ],
    [{ onRoots: () => [] }, undefined],
    [{ onSample: () => SAMPLED as never, tasks: { receive: false } }, undefined],
  ];
  for (const [options, expected] of cases) {
    const { client, wire } = await receiverSetup(options);
    try {
      assert.deepEqual(wire.sent('initialize')[0]!.params.capabilities.tasks, expected);
    } finally {
      await client.close();
    }
  }
});

test('a task-augmented sampling request: CreateTaskResult at once, onSample in the background, tasks/get, blocking tasks/result, tasks/list', async () => {
  const release = deferred();
  let ctxSeen: HandlerContext | undefined;
  const { client, wire, ask } = await receiverSetup({
    onSample: async (_params, ctx) => {
      ctxSeen = ctx;
      await release.promise;
      return SAMPLED as never;
    },
  });
  try {
    const created = resultOf(await ask('sampling/createMessage', { ...SAMPLE, task: { ttl: 60_000 } }));
    const task = created.task;
    assert.equal(task.status, 'working');
    assert.equal(task.ttl, 60_000);
    assert.equal(typeof task.taskId, 'string');
    assert.equal(typeof task.pollInterval, 'number');
    assert.ok(Date.parse(task.createdAt) > 0);
    const working = resultOf(await ask('tasks/get', { taskId: task.taskId }));
    assert.equal(working.status, 'working');
    // tasks/result blocks until the task ends (§Result Retrieval).
    const pending = ask('tasks/result', { taskId: task.taskId });
    await until(() => ctxSeen, 'onSample to run');
    assert.equal(ctxSeen!.era, 'legacy');
    release.resolve();
    const result = resultOf(await pending);
    assert.deepEqual({ ...result, _meta: undefined }, { ...SAMPLED, _meta: undefined });
    assert.deepEqual(result._meta[RELATED], { taskId: task.taskId });
    const done = resultOf(await ask('tasks/get', { taskId: task.taskId }));
    assert.equal(done.status, 'completed');
    const listed = resultOf(await ask('tasks/list'));
    assert.deepEqual(
      listed.tasks.map((t: Msg) => [t.taskId, t.status]),
      [[task.taskId, 'completed']],
    );
    // §Task Cancellation: a terminal task is not cancelled.
    const refused = await ask('tasks/cancel', { taskId: task.taskId });
    assert.equal(refused.error?.code, -32602);
    await until(() => wire.sent('notifications/tasks/status').some((n) => n.params.status === 'completed'), 'a status notification');
    assertClientWire(LEGACY, wire);
  } finally {
    await client.close();
  }
});

test('tasks/cancel stops the handler (its signal aborts), the task stays cancelled, tasks/result answers with an error', async () => {
  const stopped = deferred();
  const { client, wire, ask } = await receiverSetup({
    onElicit: async (_params, ctx) => {
      await aborted(ctx.signal);
      stopped.resolve();
      return { action: 'accept', content: { name: 'late' } };
    },
  });
  try {
    const { task } = resultOf(
      await ask('elicitation/create', { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} }, task: {} }),
    );
    const cancelled = resultOf(await ask('tasks/cancel', { taskId: task.taskId }));
    assert.equal(cancelled.status, 'cancelled');
    await stopped.promise;
    assert.equal(resultOf(await ask('tasks/get', { taskId: task.taskId })).status, 'cancelled');
    const result = await ask('tasks/result', { taskId: task.taskId });
    assert.ok(result.error, 'a cancelled task has no result');
    assertClientWire(LEGACY, wire);
  } finally {
    await client.close();
  }
});

test('a failing handler ends the task failed; tasks/result returns its JSON-RPC error', async () => {
  const { client, wire, ask } = await receiverSetup({
    onSample: () => {
      throw new Error('no model available');
    },
  });
  try {
    const { task } = resultOf(await ask('sampling/createMessage', { ...SAMPLE, task: {} }));
    const result = await ask('tasks/result', { taskId: task.taskId });
    assert.equal(result.error?.code, -32603);
    assert.match(result.error.message, /no model available/);
    assert.equal(resultOf(await ask('tasks/get', { taskId: task.taskId })).status, 'failed');
    assertClientWire(LEGACY, wire);
  } finally {
    await client.close();
  }
});

test('unknown task ids, bad params and expired tasks get -32602; a request without `task` is answered plainly', async () => {
  const { client, wire, ask } = await receiverSetup({ onSample: () => SAMPLED as never });
  try {
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      assert.equal((await ask(method, { taskId: 'nope' })).error?.code, -32602, method);
      assert.equal((await ask(method, { taskId: 42 })).error?.code, -32602, method);
    }
    assert.equal((await ask('tasks/list', { cursor: 'x' })).error?.code, -32602);
    // A lifetime of 1 ms: gone (expired) as soon as it is looked for after that.
    const { task } = resultOf(await ask('sampling/createMessage', { ...SAMPLE, task: { ttl: 1 } }));
    assert.equal(task.ttl, 1);
    await until(async () => (await ask('tasks/get', { taskId: task.taskId })).error?.code === -32602, 'the task to expire');
    const plain = resultOf(await ask('sampling/createMessage', SAMPLE));
    assert.deepEqual(plain, SAMPLED);
    assertClientWire(LEGACY, wire);
  } finally {
    await client.close();
  }
});

test('with tasks.receive off, `task` is ignored (§Task Support and Handling) and tasks/* is -32601', async () => {
  const { client, wire, ask } = await receiverSetup({ onSample: () => SAMPLED as never, tasks: { receive: false } });
  try {
    assert.deepEqual(resultOf(await ask('sampling/createMessage', { ...SAMPLE, task: {} })), SAMPLED);
    assert.equal((await ask('tasks/get', { taskId: 'x' })).error?.code, -32601);
    assertClientWire(LEGACY, wire);
  } finally {
    await client.close();
  }
});

test('tasks.maxRunning bounds the tasks run at once: one more is refused with -32603 and reaches no handler', async () => {
  const release = deferred();
  let calls = 0;
  const { client, wire, ask } = await receiverSetup({
    onSample: async () => {
      calls++;
      await release.promise;
      return SAMPLED as never;
    },
    tasks: { maxRunning: 1 },
  });
  try {
    const first = resultOf(await ask('sampling/createMessage', { ...SAMPLE, task: {} }));
    const refused = await ask('sampling/createMessage', { ...SAMPLE, task: {} });
    assert.equal(refused.error?.code, -32603);
    assert.match(refused.error.message, /1 tasks/);
    release.resolve();
    assert.deepEqual(
      { ...resultOf(await ask('tasks/result', { taskId: first.task.taskId })), _meta: undefined },
      { ...SAMPLED, _meta: undefined },
    );
    assert.equal(calls, 1);
    assertClientWire(LEGACY, wire);
  } finally {
    await client.close();
  }
});
