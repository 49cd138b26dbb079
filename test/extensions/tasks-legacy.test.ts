/**
 * 2025-11-25's experimental tasks on the server (basic/utilities/tasks.mdx): the `tasks`
 * capability and `execution.taskSupport`; a task-augmented `tools/call` answers
 * `{ task }` at once; `tasks/get` polls, `tasks/result` blocks and answers what the call would
 * have (with the related-task `_meta`), `tasks/list` lists the session's tasks, `tasks/cancel`
 * cancels (terminal ones are -32602); requests to the client during a task carry the
 * related-task `_meta` and make it input_required; `notifications/tasks/status` follow each change.
 * Every message is checked against the 2025-11-25 schema by the peer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { createServer, type Server } from '../../src/server/index.js';
import { ErrorCode } from '../../src/errors/index.js';
import { task, tasks } from '../../src/extensions/tasks/index.js';
import type { Msg } from '../support/common.js';
import { handshake, MemoryPeer, withMemoryPeer } from '../support/peer.js';
import { aborted, deferred, until } from '../support/wait.js';
import { waitingServer } from './tasks-support.js';

const V = '2025-11-25';
const RELATED = 'io.modelcontextprotocol/related-task';

const withSession = (fn: (peer: MemoryPeer, server: Server) => Promise<void>, server: Server = createEverythingServer()) =>
  withMemoryPeer(server, fn, { revision: V, handshake: { elicitation: {} } });

async function asTask(
  peer: MemoryPeer,
  name: string,
  args: Record<string, unknown> = {},
  task: Record<string, unknown> = {},
): Promise<Msg> {
  const r = await peer.call('tools/call', { name, arguments: args, task });
  assert.equal(typeof r.task?.taskId, 'string', JSON.stringify(r));
  return r.task;
}

async function settled(peer: MemoryPeer, taskId: string, status = /completed|failed|cancelled/): Promise<Msg> {
  return until(async () => {
    const r = await peer.call('tasks/get', { taskId });
    return status.test(r.status) ? r : undefined;
  }, `task ${taskId} to reach ${status}`);
}

test('the tasks capability and execution.taskSupport are declared on 2025-11-25, and on no older revision', async () => {
  const server = createEverythingServer();
  await withMemoryPeer(
    server,
    async (peer) => {
      const init = await handshake(peer, V, {});
      assert.deepStrictEqual(init.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const tools: Msg[] = (await peer.call('tools/list')).tools;
      assert.deepStrictEqual(tools.find((t) => t.name === 'failing_job')?.execution, { taskSupport: 'required' });
      assert.equal(tools.find((t) => t.name === 'greet')?.execution, undefined);
    },
    { revision: V },
  );
  await withMemoryPeer(
    createEverythingServer(),
    async (peer) => {
      const init = await handshake(peer, '2025-06-18', {});
      assert.equal(init.capabilities.tasks, undefined);
      const tools: Msg[] = (await peer.call('tools/list')).tools;
      assert.ok(tools.every((t) => !('execution' in t)));
      // No tasks in that revision: a required tool runs as a plain call, the task param is ignored.
      const plain = await peer.call('tools/call', { name: 'failing_job', arguments: {}, task: {} });
      assert.equal(plain.isError, true);
    },
    { revision: '2025-06-18' },
  );
});

test('a task-augmented call answers { task } at once; tasks/get polls; tasks/result gives the result with the related-task _meta', async () => {
  await withSession(async (peer) => {
    const task = await asTask(peer, 'slow_compute', { seconds: 0.1, label: 'x' }, { ttl: 60_000 });
    assert.equal(task.status, 'working');
    assert.equal(task.ttl, 60_000);
    assert.ok(Number.isInteger(task.pollInterval));
    const result = await peer.call('tasks/result', { taskId: task.taskId });
    assert.deepStrictEqual(result.content, [{ type: 'text', text: 'Computed x in 0.1s' }]);
    assert.deepStrictEqual(result._meta[RELATED], { taskId: task.taskId });
    const got = await peer.call('tasks/get', { taskId: task.taskId });
    assert.equal(got.status, 'completed');
    const status = await peer.next((m) => m.method === 'notifications/tasks/status' && m.params.status === 'completed');
    assert.equal(status.params.taskId, task.taskId);
  });
});

test('task support is enforced: a required tool without params.task and a forbidden tool with it are -32601', async () => {
  await withSession(async (peer) => {
    assert.equal((await peer.request('tools/call', { name: 'failing_job', arguments: {} })).error.code, ErrorCode.MethodNotFound);
    assert.equal(
      (await peer.request('tools/call', { name: 'greet', arguments: { name: 'x' }, task: {} })).error.code,
      ErrorCode.MethodNotFound,
    );
    // An optional tool without params.task is a plain call.
    const plain = await peer.call('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } });
    assert.deepStrictEqual(plain.content, [{ type: 'text', text: 'Computed result in 0s' }]);
  });
});

test('a tool error completes the task (tasks/result is the isError result); a protocol error fails it (tasks/result is that error)', async () => {
  await withSession(async (peer) => {
    const toolError = await asTask(peer, 'failing_job');
    assert.equal((await peer.call('tasks/result', { taskId: toolError.taskId })).isError, true);
    const protocol = await asTask(peer, 'protocol_error_job');
    const r = await peer.request('tasks/result', { taskId: protocol.taskId });
    assert.deepStrictEqual(r.error, { code: ErrorCode.InternalError, message: 'Protocol task failed' });
    assert.equal((await settled(peer, protocol.taskId)).status, 'failed');
  });
});

test('a task that elicits: the request carries the related-task _meta, the task is input_required until the answer, then completes', async () => {
  await withSession(async (peer) => {
    const task = await asTask(peer, 'confirm_delete', { filename: 'c.txt' });
    const ask = await peer.next((m) => m.method === 'elicitation/create');
    assert.deepStrictEqual(ask.params._meta[RELATED], { taskId: task.taskId });
    assert.equal((await peer.call('tasks/get', { taskId: task.taskId })).status, 'input_required');
    peer.respond(ask.id, { action: 'accept', content: { confirm: true } });
    const result = await peer.call('tasks/result', { taskId: task.taskId });
    assert.deepStrictEqual(result.content, [{ type: 'text', text: 'Deleted c.txt' }]);
  });
});

test('while tasks/result waits, the task asks on its stream', async () => {
  await withSession(async (peer) => {
    const task = await asTask(peer, 'confirm_delete', { filename: 'd.txt' });
    const waiting = peer.call('tasks/result', { taskId: task.taskId });
    const ask = await peer.next((m) => m.method === 'elicitation/create');
    peer.respond(ask.id, { action: 'decline' });
    assert.deepStrictEqual((await waiting).content, [{ type: 'text', text: 'Kept d.txt' }]);
  });
});

test('tasks/cancel cancels a running task (its handler aborts) and answers the task; cancelling it again is -32602', async () => {
  const { server, started } = waitingServer();
  await withSession(async (peer) => {
    const task = await asTask(peer, 'wait');
    const signal = await started;
    const cancelled = await peer.call('tasks/cancel', { taskId: task.taskId });
    assert.equal(cancelled.status, 'cancelled');
    await aborted(signal);
    assert.equal((await peer.call('tasks/get', { taskId: task.taskId })).status, 'cancelled');
    assert.equal((await peer.request('tasks/cancel', { taskId: task.taskId })).error.code, ErrorCode.InvalidParams);
  }, server);
});

test("tasks/list lists this session's tasks; another session sees neither them nor their ids", async () => {
  const server = createEverythingServer();
  const other = await MemoryPeer.connect(server, { revision: V });
  await handshake(other, V, {});
  try {
    await withSession(async (peer) => {
      const a = await asTask(peer, 'slow_compute', { seconds: 0 });
      const b = await asTask(peer, 'slow_compute', { seconds: 0 });
      const listed: Msg[] = (await peer.call('tasks/list')).tasks;
      assert.deepStrictEqual(
        listed.map((t) => t.taskId),
        [a.taskId, b.taskId],
      );
      assert.deepStrictEqual((await other.call('tasks/list')).tasks, []);
      assert.equal((await other.request('tasks/get', { taskId: a.taskId })).error.code, ErrorCode.InvalidParams);
      assert.equal((await other.request('tasks/result', { taskId: a.taskId })).error.code, ErrorCode.InvalidParams);
    }, server);
  } finally {
    await other.close();
  }
});

test('a task past its ttl is gone: tasks/get is -32602', async () => {
  const server = createServer({ name: 't', version: '1', extensions: [tasks()] });
  server.tool('forever', { extensions: task('optional') }, (_args, ctx) => aborted(ctx.signal).then(() => 'never'));
  await withSession(async (peer) => {
    const task = await asTask(peer, 'forever', {}, { ttl: 100 });
    assert.equal(task.ttl, 100);
    const gone = await until(async () => (await peer.request('tasks/get', { taskId: task.taskId })).error, 'expiry');
    assert.equal(gone.code, ErrorCode.InvalidParams);
  }, server);
});

test("a session's tasks are cancelled when it ends (nobody could reach them after)", async () => {
  const { server, started } = waitingServer();
  const peer = await MemoryPeer.connect(server, { revision: V });
  try {
    await handshake(peer, V, {});
    await asTask(peer, 'wait');
    const signal = await started;
    await peer.close();
    await aborted(signal);
  } finally {
    server.close();
  }
});

test('tasks({ maxRunning }): one task too many is refused with -32600, and a finished task frees its place', async () => {
  const server = createServer({ name: 't', version: '1', extensions: [tasks({ maxRunning: 1 })] });
  const go = deferred();
  server.tool('hold', { extensions: task('optional') }, () => go.promise.then(() => 'done'));
  await withSession(async (peer) => {
    const first = await asTask(peer, 'hold');
    const refused = await peer.request('tools/call', { name: 'hold', arguments: {}, task: {} });
    assert.equal(refused.error.code, ErrorCode.InvalidRequest);
    assert.match(refused.error.message, /maxRunning/);
    go.resolve();
    await peer.call('tasks/result', { taskId: first.taskId });
    await until(async () => (await peer.request('tools/call', { name: 'hold', arguments: {}, task: {} })).result, 'a place to free');
  }, server);
});
