/**
 * Shared pieces of the client task tests: a Janus server whose tools run as tasks, and the
 * schema check of everything the client sent: the revision's official schema, and for the
 * 2026 extension's methods (tasks/get, tasks/update, tasks/cancel) the ext-tasks schema.
 * Not a test file.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createServer, type Server } from '../../src/server/index.js';
import { McpError, ToolError } from '../../src/errors/index.js';
import { task, taskOf, tasks, type TaskSupport } from '../../src/extensions/tasks/index.js';
import type { Msg } from '../support/common.js';
import { aborted, deferred } from '../support/wait.js';
import { tasksExtensionErrors, wireValidator } from '../support/wire-schema.js';
import type { Wire } from '../client/helpers.js';

export const EXT = 'io.modelcontextprotocol/tasks';
export const RELATED = 'io.modelcontextprotocol/related-task';
export const LEGACY = '2025-11-25';
export const MODERN = '2026-07-28';

/** What the test sees of the server's handlers. */
export interface TaskServerProbe {
  /** Resolves when `hang` (and `brief`) have started; with the task id the handler saw. */
  started: Promise<string | undefined>;
  /** Resolves when `hang` saw its signal abort. */
  hangAborted: Promise<void>;
}

/**
 * Tools, each a task (`support`, default optional) polled every 5 ms:
 * `work` reports progress and returns text; `tool_error` throws ToolError (a result with
 * isError); `protocol_error` throws McpError -32050 with data (a failed task); `ask` elicits a
 * name; `hang` runs until cancelled; `brief` lives `ttlMs` 40 and never ends (expires).
 */
export function taskServer(support: TaskSupport = 'optional'): { server: Server; probe: TaskServerProbe } {
  const server = createServer({ name: 'task-server', version: '1.0.0', onError: () => {}, extensions: [tasks()] });
  const extensions = task({ support, pollIntervalMs: 5 });
  const started = deferred<string | undefined>();
  const hangAborted = deferred();
  server.tool('work', { input: z.object({ steps: z.number() }), extensions }, async ({ steps }, ctx) => {
    for (let i = 1; i <= steps; i++) await ctx.progress(i, steps, `step ${i}`);
    return `worked ${steps} steps`;
  });
  server.tool('tool_error', { input: z.object({}), extensions }, () => {
    throw new ToolError('the input was bad');
  });
  server.tool('protocol_error', { input: z.object({}), extensions }, () => {
    throw new McpError(-32050, 'quota exhausted', { retryAfterMs: 5000 });
  });
  server.tool('ask', { input: z.object({}), extensions }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: z.object({ name: z.string() }) });
    return `hello ${answer.action === 'accept' ? answer.content.name : answer.action}`;
  });
  server.tool('hang', { input: z.object({}), extensions }, async (_args, ctx) => {
    started.resolve(taskOf(ctx)?.id);
    await aborted(ctx.signal);
    hangAborted.resolve();
    return 'cancelled';
  });
  server.tool('brief', { input: z.object({}), extensions: task({ support, pollIntervalMs: 5, ttlMs: 40 }) }, async (_args, ctx) => {
    started.resolve(taskOf(ctx)?.id);
    await aborted(ctx.signal);
    return 'never seen';
  });
  return { server, probe: { started: started.promise, hangAborted: hangAborted.promise } };
}

/** Validates `value` against one definition of the tasks extension's schema (spec/extensions/tasks); [] = valid. */
export function checkExtTasks(definition: string, value: unknown): string[] {
  return tasksExtensionErrors(definition, value);
}

const EXT_REQUESTS: Record<string, string> = {
  'tasks/get': 'GetTaskRequest',
  'tasks/update': 'UpdateTaskRequest',
  'tasks/cancel': 'CancelTaskRequest',
};

/**
 * Every message the client sent, against the schema of `rev`: requests and notifications
 * by method, responses by the method of the server request they answer.
 */
export function assertClientWire(rev: string, wire: Wire): void {
  const v = wireValidator();
  const asked = new Map(
    wire
      .got()
      .filter((m) => m.method !== undefined && m.id !== undefined)
      .map((m) => [m.id, m.method as string]),
  );
  for (const m of wire.sent()) {
    if (rev === MODERN && typeof m.method === 'string' && EXT_REQUESTS[m.method]) {
      assert.deepEqual(checkExtTasks(EXT_REQUESTS[m.method]!, m), [], JSON.stringify(m));
      continue;
    }
    const requestMethod = m.method === undefined ? asked.get(m.id) : undefined;
    v.assertClientMessage(rev, m, requestMethod ? { requestMethod } : {});
  }
}

/** The client's requests of `method`, in order. */
export function sentRequests(wire: Wire, method: string): Msg[] {
  return wire.sent(method).filter((m) => m.id !== undefined);
}
