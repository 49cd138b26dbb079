/**
 * Task shapes this project's server does not produce, from raw scripted servers on an
 * in-memory pair: inputRequests keys shown again after their answer (ext-tasks §Task Update
 * Requests: the client deduplicates keys across polls), a task result where the extension was
 * not declared (§Polymorphic Results: invalid), a malformed task, a legacy task cancelled on
 * the server and told by notifications/tasks/status, and resuming a task by its id.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type ConnectOptions, type TaskSnapshot } from '../../src/client/index.js';
import { JanusError } from '../../src/errors/index.js';
import type { Msg } from '../support/common.js';
import { initializeResult, scripted, textOf, type Answer } from '../client/helpers.js';
import { LEGACY, MODERN, assertClientWire, sentRequests } from './support.js';

const T0 = '2026-01-01T00:00:00Z';
const task = (status: string, extra: Msg = {}): Msg => ({
  taskId: 't-1',
  status,
  createdAt: T0,
  lastUpdatedAt: T0,
  ttlMs: 60_000,
  pollIntervalMs: 1,
  ...extra,
});
const ELICIT = (message: string) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } },
});

async function modern(answer: Answer, options: ConnectOptions = {}) {
  const s = scripted(answer);
  const client = await connect(s.transport, { protocolVersion: MODERN, ...options });
  return { client, wire: s.wire };
}

test('[2026-07-28] each inputRequests key is answered once, though later polls still show it; a new key is answered', async () => {
  let phase = 0;
  const { client, wire } = await modern(
    (msg) => {
      if (msg.method === 'tools/call') return { resultType: 'task', ...task('working') };
      if (msg.method === 'tasks/update') {
        phase++;
        return { resultType: 'complete' };
      }
      if (msg.method !== 'tasks/get') return { error: { code: -32601, message: 'no' } };
      // Phase 0: key a. Phase 1: a again (the ack is eventually consistent), then b with it. Phase 2: done.
      if (phase === 0) return { resultType: 'complete', ...task('input_required', { inputRequests: { a: ELICIT('first') } }) };
      if (phase === 1)
        return { resultType: 'complete', ...task('input_required', { inputRequests: { a: ELICIT('first'), b: ELICIT('second') } }) };
      return { resultType: 'complete', ...task('completed', { result: { content: [{ type: 'text', text: 'ok' }] } }) };
    },
    { onElicit: (p) => ({ action: 'accept', content: { v: p.message } }) },
  );
  try {
    assert.equal(textOf(await client.callTool('x', {})), 'ok');
    const updates = sentRequests(wire, 'tasks/update').map((m) => m.params.inputResponses);
    assert.deepEqual(updates, [
      { a: { action: 'accept', content: { v: 'first' } } },
      { b: { action: 'accept', content: { v: 'second' } } },
    ]);
    assertClientWire(MODERN, wire);
  } finally {
    await client.close();
  }
});

test('[2026-07-28] a poll asking more than maxInputRequests at once fails the task before any handler runs', async () => {
  let asked = 0;
  const many = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`k${i}`, ELICIT(`q${i}`)]));
  const { client, wire } = await modern(
    (msg) =>
      msg.method === 'tools/call'
        ? { resultType: 'task', ...task('working') }
        : { resultType: 'complete', ...task('input_required', { inputRequests: many }) },
    { maxInputRequests: 2, onElicit: () => (asked++, { action: 'decline' }) },
  );
  try {
    await assert.rejects(
      client.callTool('x', {}),
      (e) => e instanceof JanusError && e.code === 'PROTOCOL' && /maxInputRequests/.test(e.message),
    );
    assert.equal(asked, 0);
    assert.equal(sentRequests(wire, 'tasks/update').length, 0);
  } finally {
    await client.close();
  }
});

test('[2026-07-28] a task result where the extension was not declared, or without a task id, is an invalid response', async () => {
  for (const [options, body] of [
    [{ tasks: false }, { resultType: 'task', ...task('working') }],
    [{}, { resultType: 'task', status: 'working' }],
  ] as Array<[ConnectOptions, Msg]>) {
    const { client } = await modern((msg) => (msg.method === 'tools/call' ? body : { error: { code: -32601, message: 'no' } }), options);
    try {
      await assert.rejects(client.callTool('x', {}), (e) => e instanceof JanusError && e.code === 'PROTOCOL');
    } finally {
      await client.close();
    }
  }
});

test('[2026-07-28] a failed task without an error object still rejects with an McpError naming the task', async () => {
  const { client } = await modern((msg) =>
    msg.method === 'tools/call'
      ? { resultType: 'task', ...task('working') }
      : { resultType: 'complete', ...task('failed', { statusMessage: 'disk full' }) },
  );
  try {
    await assert.rejects(client.callTool('x', {}), /t-1 failed: disk full/);
  } finally {
    await client.close();
  }
});

test('[2026-07-28] resumeTool re-attaches to a task by its id and awaits its result', async () => {
  const { client, wire } = await modern((msg) =>
    msg.method === 'tasks/get'
      ? { resultType: 'complete', ...task('completed', { result: { content: [{ type: 'text', text: 'later' }] } }) }
      : { error: { code: -32601, message: 'no' } },
  );
  try {
    const resumed = await client.resumeTool('t-1');
    assert.equal(resumed.taskId, 't-1');
    assert.equal(resumed.status, 'completed');
    assert.equal(textOf(await resumed.result()), 'later');
    assertClientWire(MODERN, wire);
  } finally {
    await client.close();
  }
  const gone = await modern(() => ({ error: { code: -32602, message: 'Task not found' } }));
  try {
    await assert.rejects(gone.client.resumeTool('gone'), /gone is unknown to the server/);
  } finally {
    await gone.client.close();
  }
});

test('[2025-11-25] notifications/tasks/status reach onStatus; a task cancelled on the server rejects ABORTED', async () => {
  let push!: (m: Msg) => void;
  const legacyTask = (status: string) => ({ taskId: 't-1', status, createdAt: T0, lastUpdatedAt: T0, ttl: 60_000, pollInterval: 60_000 });
  const s = scripted((msg) => {
    if (msg.method === 'initialize')
      return { ...initializeResult(msg), capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } } };
    if (msg.method === 'tools/list')
      return { tools: [{ name: 'x', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }] };
    if (msg.method === 'tools/call') return { task: legacyTask('working') };
    if (msg.method === 'tasks/result') {
      // The server cancels the task itself, says so, and tasks/result answers with an error.
      push({
        jsonrpc: '2.0',
        method: 'notifications/tasks/status',
        params: { ...legacyTask('cancelled'), statusMessage: 'operator stop' },
      });
      return { error: { code: -32603, message: 'task cancelled' } };
    }
    if (msg.method === 'tasks/get') return { ...legacyTask('cancelled'), statusMessage: 'operator stop' };
    return { error: { code: -32601, message: 'no' } };
  });
  push = s.push;
  const client = await connect(s.transport, { protocolVersion: LEGACY });
  try {
    const seen: TaskSnapshot[] = [];
    await assert.rejects(
      client.callTool('x', {}, { onStatus: (t) => seen.push(t) }),
      (e) => e instanceof JanusError && e.code === 'ABORTED' && /cancelled on the server: operator stop/.test(e.message),
    );
    assert.deepEqual(
      seen.map((t) => t.status),
      ['working', 'cancelled'],
    );
    assert.equal(seen[0]!.ttlMs, 60_000);
    assertClientWire(LEGACY, s.wire);
  } finally {
    await client.close();
  }
});
