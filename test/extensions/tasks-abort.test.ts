/**
 * A 2026-07-28 task-creating `tools/call` whose client goes away before the CreateTaskResult
 * reaches it (streamable-http.mdx §Cancellation: closing the response stream is cancellation),
 * over real HTTP on 127.0.0.1: nobody will ever know the task, so it ends `cancelled` and its
 * handler's signal aborts, or the handler never starts, instead of running on unseen. The same
 * for a 2025-11-25 call cancelled by `notifications/cancelled` on its channel.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { InMemoryTaskStore, startTask, task, taskOf, tasks, type TaskRecord } from '../../src/extensions/tasks/index.js';
import { MODERN } from '../support/common.js';
import { aborted, deferred, until } from '../support/wait.js';
import { HttpPeer, serve, type Served } from '../http-e2e/support.js';
import { withMemoryPeer } from '../support/peer.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = { extensions: { [TASKS]: {} } };

/** Sends a 2026-07-28 `tools/call` on a raw socket, so that the test can drop it before any response byte. */
function rawCall(served: Served, name: string): net.Socket {
  const peer = new HttpPeer(served.url, MODERN);
  const body = peer.modernBody('tools/call', { name, arguments: {} }, { caps: CAPS });
  const json = JSON.stringify(body);
  const headers = Object.entries({
    ...peer.modernHeaders(body),
    host: `127.0.0.1:${served.http.port}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'content-length': String(Buffer.byteLength(json)),
  })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const socket = net.connect(served.http.port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(`POST /mcp HTTP/1.1\r\n${headers}\r\n${json}`);
  return socket;
}

async function taskState(served: Served, taskId: string): Promise<Record<string, any>> {
  const reply = await new HttpPeer(served.url, MODERN).modern('tasks/get', { taskId }, { caps: CAPS });
  assert.equal(reply.status, 200, JSON.stringify(reply.messages));
  return reply.messages[0]!.result;
}

test('2026-07-28, start: handler: the client goes away before startTask; the task it then starts ends cancelled and its handler signal aborts', async () => {
  const inHandler = deferred();
  const requestAborted = deferred();
  const made = deferred<{ taskId: string; signal: AbortSignal }>();
  const server = createServer({ name: 'abort-tasks', version: '1.0.0', extensions: [tasks()] });
  server.tool('late_start', { extensions: task({ support: 'optional', start: 'handler' }) }, async (_args, ctx) => {
    inHandler.resolve();
    await aborted(ctx.signal); // the request's signal, in the request phase
    requestAborted.resolve();
    await startTask(ctx); // a handler that goes on regardless
    made.resolve({ taskId: taskOf(ctx)!.id, signal: ctx.signal });
    await aborted(ctx.signal);
    return 'ran to the end';
  });
  const served = await serve(server);
  try {
    const socket = rawCall(served, 'late_start');
    // The request is in the handler: go away before any answer.
    await inHandler.promise;
    socket.destroy();
    await requestAborted.promise;
    const { taskId, signal } = await made.promise;
    await until(() => signal.aborted, "the task's handler signal to abort");
    const state = await until(async () => {
      const s = await taskState(served, taskId);
      return s.status === 'cancelled' ? s : undefined;
    }, 'the task to be cancelled');
    assert.match(state.statusMessage, /request that created the task was cancelled before the task reached its client/);
  } finally {
    await served.close();
  }
});

/** An in-process store whose `create` waits for the test to let it finish. */
class GatedStore extends InMemoryTaskStore {
  readonly entered = deferred<TaskRecord>();
  readonly release = deferred();
  override async create(record: TaskRecord): Promise<void> {
    this.entered.resolve(record);
    await this.release.promise;
    await super.create(record);
  }
}

test('2026-07-28, start: call: the client goes away while the task is being created; it is created cancelled and its handler never starts', async () => {
  const store = new GatedStore();
  const seenAbort = deferred();
  let started = 0;
  const server = createServer({ name: 'abort-tasks', version: '1.0.0', extensions: [tasks({ store })] });
  // What the server saw of the request: its signal aborts once the server noticed the client gone.
  server.use('tools/call', (ctx, next) => {
    ctx.signal.addEventListener('abort', () => seenAbort.resolve(), { once: true });
    return next();
  });
  server.tool('work', { extensions: task('optional') }, async (_args, ctx) => {
    started++;
    await aborted(ctx.signal);
    return 'worked';
  });
  const served = await serve(server);
  try {
    const socket = rawCall(served, 'work');
    const record = await store.entered.promise;
    socket.destroy();
    await seenAbort.promise;
    store.release.resolve();
    const state = await until(async () => {
      const s = await taskState(served, record.taskId);
      return s.status === 'cancelled' ? s : undefined;
    }, 'the task to be cancelled');
    assert.match(state.statusMessage, /cancelled before the task reached its client/);
    assert.equal(started, 0, 'the handler never started');
  } finally {
    await served.close();
    store.close();
  }
});

test('2026-07-28: a task whose CreateTaskResult was delivered runs on when its connection closes afterwards', async () => {
  const finish = deferred();
  const server = createServer({ name: 'abort-tasks', version: '1.0.0', extensions: [tasks()] });
  server.tool('work', { extensions: task('optional') }, async () => {
    await finish.promise;
    return 'worked';
  });
  const served = await serve(server);
  try {
    const peer = new HttpPeer(served.url, MODERN);
    const created = await peer.modern('tools/call', { name: 'work', arguments: {} }, { caps: CAPS });
    const taskId: string = created.messages[0]!.result.taskId;
    assert.equal((await taskState(served, taskId)).status, 'working');
    finish.resolve();
    const done = await until(async () => {
      const s = await taskState(served, taskId);
      return s.status === 'completed' ? s : undefined;
    }, 'the task to complete');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'worked' }]);
  } finally {
    await served.close();
  }
});

test('2025-11-25: a task-augmented tools/call cancelled by notifications/cancelled while its task is created ends the task cancelled', async () => {
  const store = new GatedStore();
  let started = 0;
  const server = createServer({ name: 'abort-tasks', version: '1.0.0', extensions: [tasks({ store })] });
  server.tool('work', { extensions: task('optional') }, async () => {
    started++;
    return 'worked';
  });
  await withMemoryPeer(
    server,
    async (peer) => {
      const id = peer.id();
      // Nobody gets an answer to a cancelled request (cancellation.mdx): this one never settles.
      void peer.request('tools/call', { name: 'work', arguments: {}, task: {} }, { id, timeoutMs: 60_000 }).catch(() => undefined);
      const record = await store.entered.promise;
      peer.notify('notifications/cancelled', { requestId: id, reason: 'changed my mind' });
      store.release.resolve();
      const state = await until(async () => {
        const r = await peer.request('tasks/get', { taskId: record.taskId });
        return r.result?.status === 'cancelled' ? r.result : undefined;
      }, 'the task to be cancelled');
      assert.match(state.statusMessage, /cancelled before the task reached its client/);
      assert.equal(started, 0, 'the handler never started');
    },
    { revision: '2025-11-25', handshake: {} },
  );
  store.close();
});
