/**
 * The 2026 tasks extension on the server (ext-tasks specification/draft/tasks.md): a request
 * declaring `io.modelcontextprotocol/tasks` gets a flat CreateTaskResult for a task tool;
 * `tasks/get` inlines the outcome (completed result, failed error, input requests);
 * `tasks/update` answers input (partially too); `tasks/cancel` acks idempotently; expiry,
 * -32021 without the extension, -32601 for the removed methods, and `notifications/tasks` on
 * `subscriptions/listen`. Every extension message is checked against the extension's schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { createServer, type Server } from '../../src/server/index.js';
import { ErrorCode, JanusError, McpError } from '../../src/errors/index.js';
import { task, taskOf, tasks } from '../../src/extensions/tasks/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';
import { waitingServer } from './tasks-support.js';
import { assertTaskShape } from '../support/tasks-schema.js';
import { aborted, deferred, until } from '../support/wait.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = { elicitation: {}, extensions: { [TASKS]: {} } };

const withPeer = (fn: (peer: MemoryPeer, server: Server) => Promise<void>, server: Server = createEverythingServer()) =>
  withMemoryPeer(server, fn, { revision: MODERN });

async function call(
  peer: MemoryPeer,
  name: string,
  args: Record<string, unknown> = {},
  caps: Record<string, unknown> = CAPS,
): Promise<Msg> {
  return peer.modern('tools/call', { name, arguments: args }, { caps });
}

async function created(peer: MemoryPeer, name: string, args: Record<string, unknown> = {}): Promise<Msg> {
  const r = await call(peer, name, args);
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assertTaskShape('CreateTaskResult', r.result);
  return r.result;
}

async function get(peer: MemoryPeer, taskId: string, caps: Record<string, unknown> = CAPS): Promise<Msg> {
  const r = await peer.modern('tasks/get', { taskId }, { caps });
  if (r.error === undefined) assertTaskShape('GetTaskResult', r.result);
  return r;
}

async function settled(peer: MemoryPeer, taskId: string, status = /completed|failed|cancelled/): Promise<Msg> {
  return until(async () => {
    const r = await get(peer, taskId);
    return status.test(String(r.result?.status)) ? r.result : undefined;
  }, `task ${taskId} to reach ${status}`);
}

test('a task tool called by a declaring client: flat CreateTaskResult with integer ttlMs and pollIntervalMs, then tasks/get inlines the result', async () => {
  await withPeer(async (peer) => {
    const task = await created(peer, 'slow_compute', { seconds: 0.05, label: 'x' });
    assert.equal(task.resultType, 'task');
    assert.equal(task.status, 'working');
    assert.ok(Number.isInteger(task.ttlMs) && Number.isInteger(task.pollIntervalMs));
    for (const absent of ['task', 'ttl', 'pollInterval', 'requestState', 'result', 'inputRequests']) assert.ok(!(absent in task), absent);
    const done = await settled(peer, task.taskId);
    assert.equal(done.status, 'completed');
    assert.equal(done.resultType, 'complete');
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'Computed x in 0.05s' }]);
    assert.ok(!('_meta' in done.result) || !('io.modelcontextprotocol/related-task' in done.result._meta));
  });
});

test('a tool error lands as completed with isError; a protocol error as failed with the JSON-RPC error and no result', async () => {
  await withPeer(async (peer) => {
    const toolError = await settled(peer, (await created(peer, 'failing_job')).taskId);
    assert.equal(toolError.status, 'completed');
    assert.equal(toolError.result.isError, true);
    const protocol = await settled(peer, (await created(peer, 'protocol_error_job')).taskId);
    assert.equal(protocol.status, 'failed');
    assert.deepStrictEqual(protocol.error, { code: ErrorCode.InternalError, message: 'Protocol task failed' });
    assert.equal(protocol.result, undefined);
  });
});

test('a task parks on input: input_required with its requests, tasks/update acks and the task resumes', async () => {
  await withPeer(async (peer) => {
    const { taskId } = await created(peer, 'confirm_delete', { filename: 'a.txt' });
    const parked = await settled(peer, taskId, /input_required/);
    const [key, ...more] = Object.keys(parked.inputRequests);
    assert.deepStrictEqual(more, []);
    assert.equal(parked.inputRequests[key!].method, 'elicitation/create');
    const ack = await peer.modern(
      'tasks/update',
      { taskId, inputResponses: { [key!]: { action: 'accept', content: { confirm: true } } } },
      { caps: CAPS },
    );
    assert.deepStrictEqual(Object.keys(ack.result).sort(), ['_meta', 'resultType']);
    assertTaskShape('UpdateTaskResult', ack.result);
    const done = await settled(peer, taskId);
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'Deleted a.txt' }]);
  });
});

test('partial fulfilment: answering one of two requests leaves the other outstanding; unknown keys are ignored', async () => {
  await withPeer(async (peer) => {
    const { taskId } = await created(peer, 'multi_input');
    const parked = await until(async () => {
      const r = (await get(peer, taskId)).result;
      return Object.keys(r.inputRequests ?? {}).length === 2 ? r : undefined;
    }, 'two input requests');
    const [first, second] = Object.keys(parked.inputRequests) as [string, string];
    const answer = (name: string) => ({ action: 'accept', content: { name } });
    await peer.modern('tasks/update', { taskId, inputResponses: { [first]: answer('A'), nope: answer('?') } }, { caps: CAPS });
    const still = (await get(peer, taskId)).result;
    assert.equal(still.status, 'input_required');
    assert.deepStrictEqual(Object.keys(still.inputRequests), [second]);
    await peer.modern('tasks/update', { taskId, inputResponses: { [second]: answer('B') } }, { caps: CAPS });
    assert.deepStrictEqual((await settled(peer, taskId)).result.content, [{ type: 'text', text: 'Got A and B' }]);
  });
});

test('cancelled mid-run: the ack is empty, the handler sees its signal abort, the task stays cancelled; cancelling again acks too', async () => {
  const { server, started } = waitingServer();
  await withPeer(async (peer) => {
    const { taskId } = await created(peer, 'wait');
    const signal = await started;
    const ack = await peer.modern('tasks/cancel', { taskId }, { caps: CAPS });
    assertTaskShape('CancelTaskResult', ack.result);
    for (const absent of ['taskId', 'status', 'result', 'error']) assert.ok(!(absent in ack.result));
    await aborted(signal);
    assert.equal((await settled(peer, taskId)).status, 'cancelled');
    assert.equal((await peer.modern('tasks/cancel', { taskId }, { caps: CAPS })).result.resultType, 'complete');
    assert.equal((await get(peer, taskId)).result.status, 'cancelled');
  }, server);
});

test('a task past its ttlMs is gone: tasks/get answers -32602, and its handler is aborted', async () => {
  const { server, started } = waitingServer('short', { support: 'optional', ttlMs: 200 });
  await withPeer(async (peer) => {
    const task = await created(peer, 'short');
    assert.equal(task.ttlMs, 200);
    // Polled (the expiry timer is unref'd: an idle in-memory test would not wait for it).
    const gone = await until(async () => {
      const r = await get(peer, task.taskId);
      return r.error;
    }, 'the task to expire');
    assert.equal(gone.code, ErrorCode.InvalidParams);
    const signal = await started;
    await until(() => signal.aborted, 'the handler to be aborted at its expiry');
  }, server);
});

test('without the extension: tasks/* are -32021, a required tool is -32021 naming it, an optional one runs synchronously', async () => {
  await withPeer(async (peer) => {
    const caps = { elicitation: {} };
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'x' }],
    ] as const) {
      const r = await peer.modern(method, params, { caps });
      assert.equal(r.error?.code, ErrorCode.MissingRequiredClientCapability, method);
    }
    const required = await call(peer, 'failing_job', {}, caps);
    assert.equal(required.error.code, ErrorCode.MissingRequiredClientCapability);
    assert.deepStrictEqual(required.error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    const sync = await call(peer, 'slow_compute', { seconds: 0 }, caps);
    assert.equal(sync.result.resultType, 'complete');
    assert.equal(sync.result.taskId, undefined);
  });
});

test('tasks/result and tasks/list do not exist in the extension (-32601); an unknown task id is -32602', async () => {
  await withPeer(async (peer) => {
    assert.equal((await peer.modern('tasks/result', { taskId: 'x' }, { caps: CAPS })).error.code, ErrorCode.MethodNotFound);
    assert.equal((await peer.modern('tasks/list', {}, { caps: CAPS })).error.code, ErrorCode.MethodNotFound);
    assert.equal((await get(peer, 'no-such-task')).error.code, ErrorCode.InvalidParams);
    assert.equal((await peer.modern('tasks/cancel', { taskId: 'no-such-task' }, { caps: CAPS })).error.code, ErrorCode.InvalidParams);
  });
});

test('input before the task: an input_required round on the call itself, then the retry becomes the task, whose result uses the answer', async () => {
  await withPeer(async (peer) => {
    const first = await call(peer, 'test_tool_with_task');
    assert.equal(first.result.resultType, 'input_required');
    assert.ok(!('taskId' in first.result));
    const retry = await peer.modern(
      'tools/call',
      {
        name: 'test_tool_with_task',
        arguments: {},
        inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
        requestState: first.result.requestState,
      },
      { caps: CAPS },
    );
    assertTaskShape('CreateTaskResult', retry.result);
    assert.ok(!('requestState' in retry.result));
    assert.deepStrictEqual((await settled(peer, retry.result.taskId)).result.content, [{ type: 'text', text: 'Hello, Alice!' }]);
  });
});

test('progress with a message becomes the status message; taskOf(ctx) names the task', async () => {
  const server = createServer({ name: 't', version: '1', extensions: [tasks()] });
  const go = deferred();
  server.tool('report', { extensions: task('optional') }, async (_args, ctx) => {
    ctx.progress(1, 2, 'half way');
    await go.promise;
    taskOf(ctx)?.setStatusMessage('almost');
    return taskOf(ctx)?.id ?? 'no task';
  });
  await withPeer(async (peer) => {
    const { taskId } = await created(peer, 'report');
    await until(async () => (await get(peer, taskId)).result.statusMessage === 'half way', 'the progress message');
    go.resolve();
    const done = await settled(peer, taskId);
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: taskId }]);
  }, server);
});

test('subscriptions/listen with taskIds: acknowledged, then notifications/tasks carry the DetailedTask; without the extension it is -32021', async () => {
  await withPeer(async (peer) => {
    const { taskId } = await created(peer, 'confirm_delete', { filename: 'b.txt' });
    const refused = await peer.modern('subscriptions/listen', { notifications: { taskIds: [taskId] } }, { caps: { elicitation: {} } });
    assert.equal(refused.error.code, ErrorCode.MissingRequiredClientCapability);
    // The stream stays open until the peer closes, which fails its pending request: that is expected.
    peer.modern('subscriptions/listen', { notifications: { taskIds: [taskId] } }, { caps: CAPS, id: 'listen-1' }).catch(() => undefined);
    const ack = await peer.next((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.deepStrictEqual(ack.params.notifications, { taskIds: [taskId] });
    const parked = await settled(peer, taskId, /input_required/);
    const key = Object.keys(parked.inputRequests)[0]!;
    await peer.modern('tasks/update', { taskId, inputResponses: { [key]: { action: 'decline' } } }, { caps: CAPS });
    const done = await peer.next((m) => m.method === 'notifications/tasks' && m.params.status === 'completed');
    assertTaskShape('TaskStatusNotification', done);
    assert.equal(done.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
    assert.deepStrictEqual(done.params.result.content, [{ type: 'text', text: 'Kept b.txt' }]);
  });
});

test('a handler that throws an McpError before anything else fails the task with that error', async () => {
  const server = createServer({ name: 't', version: '1', extensions: [tasks()] });
  server.tool('refuse', { extensions: task('optional'), input: z.object({}) }, () => {
    throw new McpError(ErrorCode.InvalidParams, 'not today', { why: 'closed' });
  });
  await withPeer(async (peer) => {
    const failed = await settled(peer, (await created(peer, 'refuse')).taskId);
    assert.deepStrictEqual(failed.error, { code: ErrorCode.InvalidParams, message: 'not today', data: { why: 'closed' } });
    assert.equal(failed.statusMessage, 'not today');
  }, server);
});

test('the extension is advertised once added, before any tool can run as a task; an update can give a tool task support', async () => {
  const server = createServer({ name: 't', version: '1', extensions: [tasks()] });
  const tool = server.tool('later', () => 'plain');
  await withPeer(async (peer) => {
    const before = await peer.modern('server/discover', {}, { caps: CAPS });
    assert.deepStrictEqual(before.result.capabilities.extensions[TASKS], {});
    assert.deepStrictEqual((await call(peer, 'later')).result.content, [{ type: 'text', text: 'plain' }]);
    tool.update({ extensions: task('optional') });
    const after = await peer.modern('server/discover', {}, { caps: CAPS });
    assert.deepStrictEqual(after.result.capabilities.extensions[TASKS], {});
    assertTaskShape('CreateTaskResult', (await call(peer, 'later')).result);
  }, server);
});

test('without the extension it is not advertised, and a tool with task settings is refused at registration and at update', async () => {
  const server = createServer({ name: 't', version: '1' });
  assert.throws(
    () => server.tool('eager', { extensions: task('optional') }, () => 'never'),
    (e: unknown) => e instanceof JanusError && e.code === 'REGISTRATION',
  );
  const tool = server.tool('later', () => 'plain');
  await withPeer(async (peer) => {
    const before = await peer.modern('server/discover', {}, { caps: CAPS });
    assert.equal(before.result.capabilities.extensions?.[TASKS], undefined);
    assert.throws(
      () => tool.update({ extensions: task('optional') }),
      (e: unknown) => e instanceof JanusError && e.code === 'REGISTRATION',
    );
    const after = await peer.modern('server/discover', {}, { caps: CAPS });
    assert.equal(after.result.capabilities.extensions?.[TASKS], undefined);
    assert.deepStrictEqual((await call(peer, 'later')).result.content, [{ type: 'text', text: 'plain' }]);
  }, server);
});
