/**
 * The one pending-request bookkeeping (src/jsonrpc/pending.ts) that the server's legacy
 * server-to-client requests, the client's calls and every client channel share: ids
 * (JSON-RPC 2.0 §4: unique among the sender's requests), timeouts that progress may restart
 * (basic/lifecycle.mdx §Timeouts), aborts before and after the send (cancellation.mdx: only
 * a request that was issued can be cancelled), late responses, and closing.
 * Clocks are node:test's mock timers: nothing here depends on how fast the machine is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JanusError } from '../../src/protocol/errors.js';
import { PendingRequests, type OutboundRequest } from '../../src/jsonrpc/pending.js';
import type { ProgressParams } from '../../src/jsonrpc/envelope.js';

type Response = { id: number; result: string };

/** A recorder of what the hooks were told. */
function hooks() {
  const cancelled: Error[] = [];
  const settled: (Error | undefined)[] = [];
  const progress: ProgressParams[] = [];
  return {
    cancelled,
    settled,
    progress,
    onCancel: (e: Error) => void cancelled.push(e),
    onSettled: (e: Error | undefined) => void settled.push(e),
    onProgress: (p: ProgressParams) => void progress.push(p),
  };
}

function start(pending: PendingRequests<Response>, request: Partial<OutboundRequest> & { id: number }, sent: number[] = []) {
  return pending.start({ method: 'tools/call', ...request }, (call) => void sent.push(Number(call.id)));
}

/** Whether the promise has settled, after queued callbacks have run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

test('ids are unique per side, starting where the side says (JSON-RPC 2.0 §4)', () => {
  const server = new PendingRequests<Response>(0);
  const client = new PendingRequests<Response>();
  const ids = Array.from({ length: 1000 }, () => server.nextId());
  assert.equal(new Set(ids).size, 1000);
  assert.equal(ids[0], 0);
  assert.equal(client.nextId(), 1);
});

test('a response settles the call with its id, and only that call; an unknown id is not taken', async () => {
  const pending = new PendingRequests<Response>();
  const sent: number[] = [];
  const first = start(pending, { id: 1 }, sent);
  const second = start(pending, { id: 2 }, sent);
  assert.deepEqual(sent, [1, 2]);
  assert.equal(pending.settle(99, { id: 99, result: 'stray' }), false);
  assert.equal(pending.settle(undefined, { id: 0, result: 'no id' }), false);
  assert.equal(pending.settle(2, { id: 2, result: 'two' }), true);
  assert.deepEqual(await second.promise, { id: 2, result: 'two' });
  assert.equal(await isSettled(first.promise), false);
  assert.deepEqual(pending.methods(), ['tools/call']);
  assert.equal(pending.settle(1, { id: 1, result: 'one' }), true);
  assert.deepEqual(await first.promise, { id: 1, result: 'one' });
  assert.equal(pending.size, 0);
});

test("no answer in time: the call fails with the caller's timeout error, the caller is told to cancel, a late response is ignored (lifecycle.mdx §Timeouts)", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const pending = new PendingRequests<Response>();
  const h = hooks();
  const call = start(pending, {
    id: 1,
    timeoutMs: 300,
    timeoutError: (m, ms) => new JanusError('TIMEOUT', `${m} timed out: within ${ms} ms`),
    ...h,
  });
  t.mock.timers.tick(299);
  assert.equal(await isSettled(call.promise), false);
  t.mock.timers.tick(1);
  await assert.rejects(call.promise, { name: 'JanusError', code: 'TIMEOUT', message: 'tools/call timed out: within 300 ms' });
  assert.equal(h.cancelled.length, 1);
  assert.equal(h.cancelled[0], h.settled[0]);
  assert.equal(pending.settle(1, { id: 1, result: 'late' }), false);
  assert.equal(pending.size, 0);
  assert.equal(h.settled.length, 1);
});

test('progress restarts the timeout, and reaches onProgress (lifecycle.mdx §Timeouts, progress.mdx)', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const pending = new PendingRequests<Response>();
  const h = hooks();
  const call = start(pending, { id: 1, timeoutMs: 1000, progressToken: 'p1', ...h });
  for (let i = 1; i <= 5; i++) {
    t.mock.timers.tick(900);
    assert.equal(pending.progress({ progressToken: 'p1', progress: i, total: 5 }), true);
  }
  // 4500 ms in all, never 1000 without progress: still waiting.
  assert.equal(await isSettled(call.promise), false);
  assert.deepEqual(
    h.progress.map((p) => p.progress),
    [1, 2, 3, 4, 5],
  );
  assert.equal(pending.progress({ progressToken: 'other', progress: 1 }), false);
  t.mock.timers.tick(1000);
  await assert.rejects(call.promise, { code: 'TIMEOUT' });
  // The token is gone with its call.
  assert.equal(pending.progress({ progressToken: 'p1', progress: 6 }), false);
});

test('with resetTimeoutOnProgress false, progress is reported but the clock keeps running', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const pending = new PendingRequests<Response>();
  const h = hooks();
  const call = start(pending, { id: 1, timeoutMs: 1000, progressToken: 7, resetTimeoutOnProgress: false, ...h });
  t.mock.timers.tick(900);
  pending.progress({ progressToken: 7, progress: 1 });
  t.mock.timers.tick(100);
  await assert.rejects(call.promise, { code: 'TIMEOUT' });
  assert.equal(h.progress.length, 1);
});

test('0 and Infinity mean no timeout', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const pending = new PendingRequests<Response>();
  const calls = [start(pending, { id: 1, timeoutMs: 0 }), start(pending, { id: 2, timeoutMs: Infinity }), start(pending, { id: 3 })];
  t.mock.timers.tick(24 * 3600_000);
  for (const call of calls) assert.equal(await isSettled(call.promise), false);
  pending.rejectAll(new Error('done'));
});

test('aborted before the send: nothing is sent, not even a cancellation; the call fails with the abort error', async () => {
  const pending = new PendingRequests<Response>();
  const h = hooks();
  const controller = new AbortController();
  controller.abort('user left');
  const sent: number[] = [];
  const call = start(pending, { id: 1, signal: controller.signal, ...h }, sent);
  await assert.rejects(
    call.promise,
    (e: unknown) => e instanceof JanusError && e.code === 'ABORTED' && e.message === 'tools/call aborted' && e.cause === 'user left',
  );
  assert.deepEqual(sent, []);
  assert.equal(h.cancelled.length, 0);
  assert.equal(pending.size, 0);
});

test('aborted after the send: the call fails at once, the caller is told to cancel once, a late response is ignored (cancellation.mdx)', async () => {
  const pending = new PendingRequests<Response>();
  const h = hooks();
  const controller = new AbortController();
  const call = start(pending, {
    id: 1,
    signal: controller.signal,
    abortError: (m, reason) => new JanusError('ABORTED', `${m} cancelled`, { cause: reason }),
    ...h,
  });
  controller.abort('stop');
  await assert.rejects(call.promise, { code: 'ABORTED', message: 'tools/call cancelled' });
  assert.equal(h.cancelled.length, 1);
  assert.equal(pending.settle(1, { id: 1, result: 'late' }), false);
  call.reject(new Error('again'));
  assert.equal(h.settled.length, 1);
});

test('a send that throws or rejects fails its call without a cancellation', async () => {
  const pending = new PendingRequests<Response>();
  const h = hooks();
  const thrown = pending.start({ id: 1, method: 'ping', ...h }, () => {
    throw new Error('no pipe');
  });
  const rejected = pending.start({ id: 2, method: 'ping', ...h }, () => Promise.reject(new Error('write failed')));
  await assert.rejects(thrown.promise, { message: 'no pipe' });
  await assert.rejects(rejected.promise, { message: 'write failed' });
  assert.equal(h.cancelled.length, 0);
  assert.equal(pending.size, 0);
});

test('closing settles every waiting call with the given error, without cancellations; their signals abort', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const pending = new PendingRequests<Response>();
  const h = hooks();
  const calls = [1, 2, 3].map((id) => start(pending, { id, timeoutMs: 1000, ...h }));
  const signals = calls.map((call) => call.signal);
  const closed = new Error('connection closed');
  pending.rejectAll(closed);
  for (const call of calls) await assert.rejects(call.promise, (e: unknown) => e === closed);
  assert.deepEqual(h.settled, [closed, closed, closed]);
  assert.equal(h.cancelled.length, 0);
  assert.ok(signals.every((s) => s.aborted));
  assert.equal(pending.size, 0);
  // No timer is left to fire on a settled call.
  t.mock.timers.tick(1000);
  assert.equal(h.cancelled.length, 0);
});

test("a call's signal stays open until it settles, by response too", async () => {
  const pending = new PendingRequests<Response>();
  const call = start(pending, { id: 1 });
  const signal = call.signal;
  assert.equal(signal.aborted, false);
  pending.settle(1, { id: 1, result: 'ok' });
  await call.promise;
  assert.equal(signal.aborted, true);
});
