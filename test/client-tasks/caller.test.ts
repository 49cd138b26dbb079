/**
 * The client calling tools as tasks, against this project's server over an in-memory pair,
 * in both designs: 2025-11-25 core tasks (basic/utilities/tasks.mdx: `params.task`,
 * tasks/result, tasks/get, tasks/cancel, progress on the original token) and the 2026
 * extension (ext-tasks: the extension declared per request, `resultType: "task"`, tasks/get
 * polling, inputRequests answered once with tasks/update, tasks/cancel). Every message the
 * client sent is checked against the schema (support.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JanusError, McpError } from '../../src/errors/index.js';
import type { ConnectOptions, Progress, TaskSnapshot } from '../../src/client/index.js';
import { z } from 'zod';
import { createServer } from '../../src/server/index.js';
import { startTask, task, tasks } from '../../src/extensions/tasks/index.js';
import { inMemory, textOf } from '../client/helpers.js';
import { until } from '../support/wait.js';
import { EXT, LEGACY, MODERN, assertClientWire, sentRequests, taskServer } from './support.js';

const ELICIT: ConnectOptions = { onElicit: () => ({ action: 'accept', content: { name: 'Ann' } }) };

async function setup(rev: string, options: ConnectOptions = {}, support: 'optional' | 'required' = 'optional') {
  const { server, probe } = taskServer(support);
  const pair = await inMemory(server, { protocolVersion: rev as never, ...options });
  return { ...pair, probe };
}

/** 2025-11-25 `callTool` makes a task of an optional tool only when asked (`task: true`). */
const AS_TASK = { task: true } as const;

for (const rev of [LEGACY, MODERN]) {
  test(`[${rev}] callTool follows a task to its result; the wire is task-shaped and schema-valid`, async () => {
    const { client, wire, close } = await setup(rev);
    try {
      const progress: Progress[] = [];
      const result = await client.callTool('work', { steps: 3 }, { ...AS_TASK, onProgress: (p) => progress.push(p) });
      assert.equal(textOf(result), 'worked 3 steps');
      const call = sentRequests(wire, 'tools/call')[0]!;
      if (rev === LEGACY) {
        assert.deepEqual(call.params.task, {});
        assert.equal(sentRequests(wire, 'tasks/result').length, 1);
        // §Task Progress Notifications: the original token stays valid for the task's life.
        await until(() => progress.length === 3, 'three progress notifications');
        assert.deepEqual(
          progress.map((p) => p.progress),
          [1, 2, 3],
        );
      } else {
        assert.deepEqual(call.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions, { [EXT]: {} });
        assert.ok(sentRequests(wire, 'tasks/get').length >= 1);
        for (const get of sentRequests(wire, 'tasks/get'))
          assert.ok(get.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions[EXT], 'tasks/get declares the extension');
      }
      assertClientWire(rev, wire);
    } finally {
      await close();
    }
  });

  test(`[${rev}] a tool error ends the task completed: callTool resolves with isError`, async () => {
    const { client, wire, close } = await setup(rev);
    try {
      const result = await client.callTool('tool_error', {}, AS_TASK);
      assert.equal(result.isError, true);
      assert.match(textOf(result), /the input was bad/);
      assert.equal(sentRequests(wire, 'tools/call')[0]!.params.task !== undefined, rev === LEGACY);
      assertClientWire(rev, wire);
    } finally {
      await close();
    }
  });

  test(`[${rev}] a JSON-RPC error ends the task failed: callTool rejects with its McpError (code, message, data)`, async () => {
    const { client, wire, close } = await setup(rev);
    try {
      await assert.rejects(client.callTool('protocol_error', {}, AS_TASK), (e) => {
        assert.ok(e instanceof McpError, String(e));
        assert.equal(e.code, -32050);
        assert.equal(e.message, 'quota exhausted');
        assert.deepEqual(e.data, { retryAfterMs: 5000 });
        return true;
      });
      assertClientWire(rev, wire);
    } finally {
      await close();
    }
  });

  test(`[${rev}] a task that asks for input parks, onElicit answers it once, and the task resumes`, async () => {
    let asked = 0;
    const { client, wire, close } = await setup(rev, { onElicit: () => (asked++, { action: 'accept', content: { name: 'Ann' } }) });
    try {
      const task = await client.startTool('ask', {});
      assert.ok(task.taskId);
      assert.equal(textOf(await task.result()), 'hello Ann');
      assert.equal(asked, 1);
      if (rev === MODERN) {
        // ext-tasks §Task Update Requests: each key answered once, however many polls showed it.
        const updates = sentRequests(wire, 'tasks/update');
        assert.equal(updates.length, 1);
        assert.equal(updates[0]!.params.taskId, task.taskId);
        assert.deepEqual(Object.values(updates[0]!.params.inputResponses), [{ action: 'accept', content: { name: 'Ann' } }]);
      } else {
        // §Input Required Status: a real elicitation/create, tied to the task by its _meta.
        const ask = wire.got('elicitation/create')[0]!;
        assert.equal(ask.params._meta['io.modelcontextprotocol/related-task'].taskId, task.taskId);
      }
      assertClientWire(rev, wire);
    } finally {
      await close();
    }
  });

  test(`[${rev}] ToolTask.cancel() sends tasks/cancel, the server's handler is aborted, result() rejects ABORTED`, async () => {
    const { client, wire, close, probe } = await setup(rev);
    try {
      const task = await client.startTool('hang', {});
      assert.equal(await probe.started, task.taskId);
      assert.equal(task.status, 'working');
      await task.cancel();
      await assert.rejects(task.result(), (e) => e instanceof JanusError && e.code === 'ABORTED' && e.message.includes(task.taskId!));
      await probe.hangAborted;
      const cancels = sentRequests(wire, 'tasks/cancel');
      assert.equal(cancels.length, 1);
      assert.equal(cancels[0]!.params.taskId, task.taskId);
      assert.equal(task.done, true);
      await task.cancel(); // nothing more is sent once it has ended
      assert.equal(sentRequests(wire, 'tasks/cancel').length, 1);
      assertClientWire(rev, wire);
    } finally {
      await close();
    }
  });

  test(`[${rev}] callTool's AbortSignal cancels the task with tasks/cancel (not notifications/cancelled)`, async () => {
    const { client, wire, close, probe } = await setup(rev);
    try {
      const controller = new AbortController();
      // Aborted once the client knows the task (its first status): from then on the signal means tasks/cancel.
      const call = client.callTool('hang', {}, { ...AS_TASK, signal: controller.signal, onStatus: () => controller.abort() });
      const taskId = await probe.started;
      await assert.rejects(call, (e) => e instanceof JanusError && e.code === 'ABORTED');
      await probe.hangAborted;
      assert.deepEqual(
        sentRequests(wire, 'tasks/cancel').map((m) => m.params.taskId),
        [taskId],
      );
      const cancelled = wire.sent('notifications/cancelled').map((m) => m.params.requestId);
      const callId = sentRequests(wire, 'tools/call')[0]!.id;
      assert.equal(cancelled.includes(callId), false, 'the finished tools/call request is not cancelled');
      assertClientWire(rev, wire);
    } finally {
      await close();
    }
  });

  test(`[${rev}] a task that expires (ttl 40 ms) rejects with McpError -32602 saying so`, async () => {
    const { client, wire, close } = await setup(rev);
    try {
      await assert.rejects(client.callTool('brief', {}, AS_TASK), (e) => {
        assert.ok(e instanceof McpError, String(e));
        assert.equal(e.code, -32602);
        assert.match(e.message, /expired/);
        return true;
      });
      assertClientWire(rev, wire);
    } finally {
      await close();
    }
  });

  test(`[${rev}] startTool's handle: taskId, last status, refresh(), updates() ending at the terminal state`, async () => {
    const seen: TaskSnapshot[] = [];
    const { client, close } = await setup(rev, ELICIT);
    try {
      const task = await client.startTool('ask', {}, { onStatus: (s) => seen.push(s) });
      const updates = task.updates();
      assert.equal(typeof task.taskId, 'string');
      assert.equal(task.toolName, 'ask');
      const statuses: string[] = [];
      for await (const s of updates) statuses.push(s.status);
      const result = await task.result();
      assert.equal(textOf(result), 'hello Ann');
      assert.equal(task.done, true);
      if (rev === MODERN) {
        assert.equal(statuses.at(-1), 'completed');
        assert.equal(task.status, 'completed');
        assert.ok(seen.some((s) => s.status === 'input_required'));
      }
      const fresh = await client.startTool('hang', {});
      const now = await fresh.refresh();
      assert.equal(now.taskId, fresh.taskId);
      assert.ok(now.ttlMs === null || typeof now.ttlMs === 'number');
      assert.equal(now.pollIntervalMs, 5);
      await fresh.cancel();
    } finally {
      await close();
    }
  });

  test(`[${rev}] tasks: false never makes a task: a required tool is refused`, async () => {
    const { client, wire, close } = await setup(rev, { tasks: false }, 'required');
    try {
      await assert.rejects(client.callTool('work', { steps: 1 }), (e) => e instanceof McpError);
      const call = sentRequests(wire, 'tools/call')[0]!;
      assert.equal(call.params.task, undefined);
      assert.equal(call.params._meta?.['io.modelcontextprotocol/clientCapabilities']?.extensions, undefined);
      assertClientWire(rev, wire);
    } finally {
      await close();
    }
  });
}

test('[2025-11-25] callTool makes a task of a required tool by itself, and calls an optional one plainly', async () => {
  const required = await setup(LEGACY, {}, 'required');
  try {
    assert.equal(textOf(await required.client.callTool('work', { steps: 1 })), 'worked 1 steps');
    assert.deepEqual(sentRequests(required.wire, 'tools/call')[0]!.params.task, {});
    // The tool's execution.taskSupport came from a tools/list the client sent by itself.
    assert.equal(sentRequests(required.wire, 'tools/list').length, 1);
  } finally {
    await required.close();
  }
  const optional = await setup(LEGACY);
  try {
    assert.equal(textOf(await optional.client.callTool('work', { steps: 1 })), 'worked 1 steps');
    assert.equal(sentRequests(optional.wire, 'tools/call')[0]!.params.task, undefined);
    const task = await optional.client.startTool('work', { steps: 1 }, { ttlMs: 60_000 });
    assert.deepEqual(sentRequests(optional.wire, 'tools/call')[1]!.params.task, { ttl: 60_000 });
    assert.equal(textOf(await task.result()), 'worked 1 steps');
    assertClientWire(LEGACY, optional.wire);
  } finally {
    await optional.close();
  }
});

test('[2026-07-28] task: false on one call leaves the extension out of that request only', async () => {
  const { client, wire, close } = await setup(MODERN);
  try {
    const plain = await client.startTool('work', { steps: 1 }, { task: false });
    assert.equal(plain.taskId, undefined);
    assert.equal(plain.done, true);
    assert.equal(textOf(await plain.result()), 'worked 1 steps');
    await client.callTool('work', { steps: 1 });
    const [first, second] = sentRequests(wire, 'tools/call');
    assert.equal(first!.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions, undefined);
    assert.deepEqual(second!.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions, { [EXT]: {} });
  } finally {
    await close();
  }
});

test('[2025-11-25] an abort while the task-augmented call is in flight still cancels the task it made', async () => {
  const { client, wire, close, probe } = await setup(LEGACY);
  try {
    const controller = new AbortController();
    const call = client.callTool('hang', {}, { ...AS_TASK, signal: controller.signal });
    // The server has made the task and runs it; its answer may not have reached the client yet.
    const taskId = await probe.started;
    controller.abort();
    await assert.rejects(call, (e) => e instanceof JanusError && e.code === 'ABORTED');
    await probe.hangAborted;
    assert.deepEqual(
      sentRequests(wire, 'tasks/cancel').map((m) => m.params.taskId),
      [taskId],
    );
  } finally {
    await close();
  }
});

test('[2025-11-25] after tools/list_changed the client lists the tools again to learn a new tool requires a task', async () => {
  const { server } = taskServer('optional');
  const pair = await inMemory(server, { protocolVersion: LEGACY });
  try {
    await pair.client.listTools();
    let changed = false;
    pair.client.onNotification((n) => {
      if (n.method === 'notifications/tools/list_changed') changed = true;
    });
    server.tool('late', { extensions: task('required') }, () => 'late result');
    await until(() => changed, 'notifications/tools/list_changed');
    assert.equal(textOf(await pair.client.callTool('late', {})), 'late result');
    assert.deepEqual(sentRequests(pair.wire, 'tools/call')[0]!.params.task, {});
    assert.equal(sentRequests(pair.wire, 'tools/list').length, 2);
  } finally {
    await pair.close();
  }
});

test('[2026-07-28] MRTR rounds on the call itself, then a task: one onElicit for the round, one for the task (ext-tasks §Task Creation)', async () => {
  const server = createServer({ name: 'two-phase', version: '1.0.0', onError: () => {}, extensions: [tasks()] });
  server.tool(
    'confirm_then_run',
    { input: z.object({}), extensions: task({ support: 'optional', start: 'handler', pollIntervalMs: 5 }) },
    async (_a, ctx) => {
      const first = await ctx.elicit({ message: 'Proceed?', schema: z.object({ name: z.string() }) } as never);
      await startTask(ctx);
      const second = await ctx.elicit({ message: 'Again?', schema: z.object({ name: z.string() }) } as never);
      return `${(first as { content?: { name?: string } }).content?.name}/${(second as { content?: { name?: string } }).content?.name}`;
    },
  );
  const messages: string[] = [];
  const { client, wire, close } = await inMemory(server, {
    protocolVersion: MODERN,
    onElicit: (p) => (messages.push(p.message), { action: 'accept', content: { name: p.message === 'Proceed?' ? 'yes' : 'again' } }),
  });
  try {
    assert.equal(textOf(await client.callTool('confirm_then_run', {})), 'yes/again');
    assert.deepEqual(messages, ['Proceed?', 'Again?']);
    const calls = sentRequests(wire, 'tools/call');
    assert.equal(calls.length, 2, 'the call, then its retry with inputResponses');
    assert.ok(calls[1]!.params.inputResponses);
    assert.equal(sentRequests(wire, 'tasks/update').length, 1);
    assertClientWire(MODERN, wire);
  } finally {
    await close();
  }
});
