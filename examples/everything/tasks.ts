/**
 * The tasks extension's fixture tools (the conformance suite's SEP-2663 tasks scenarios name
 * them): a plain tool, long-running ones that run as tasks, one that fails as a tool, one that
 * fails as a protocol, ones that park on input, and one that gathers input before it goes async.
 */
import { z } from 'zod';
import { ErrorCode, McpError, ToolError } from '../../src/errors/index.js';
import type { Server } from '../../src/server/index.js';
import { startTask, task } from '../../src/extensions/tasks/index.js';

/** Waits `ms`, or rejects when `signal` aborts (a cancelled task stops at once). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', aborted, { once: true });
  });
}

const confirmSchema = z.object({ confirm: z.boolean().optional(), name: z.string().optional() });

/** Registers them on `server`, which must have the tasks extension (`createEverythingServer` adds `tasks()`). */
export function registerTasks(server: Server): void {
  server.tool('greet', { description: 'Greets synchronously', input: z.object({ name: z.string() }) }, ({ name }) => `Hello, ${name}!`);

  server.tool(
    'slow_compute',
    {
      description: 'Computes for `seconds` seconds, as a task',
      input: z.object({ seconds: z.number().min(0).max(3600), label: z.string().optional() }),
      extensions: task('optional'),
    },
    async ({ seconds, label }, ctx) => {
      const steps = Math.max(1, Math.ceil(seconds));
      for (let i = 0; i < steps && seconds > 0; i++) {
        ctx.progress(i, steps, `step ${i + 1} of ${steps}`);
        await sleep((seconds * 1000) / steps, ctx.signal);
      }
      return `Computed ${label ?? 'result'} in ${seconds}s`;
    },
  );

  server.tool('failing_job', { description: 'Fails as a tool after about a second', extensions: task('required') }, async (_args, ctx) => {
    await sleep(1000, ctx.signal);
    throw new ToolError('Tool execution failed: the job could not finish');
  });

  server.tool('protocol_error_job', { description: 'Fails with a JSON-RPC error', extensions: task('optional') }, async (_args, ctx) => {
    await sleep(200, ctx.signal);
    throw new McpError(ErrorCode.InternalError, 'Protocol task failed');
  });

  server.tool(
    'confirm_delete',
    { description: 'Asks before deleting a file', input: z.object({ filename: z.string() }), extensions: task('optional') },
    async ({ filename }, ctx) => {
      const answer = await ctx.elicit({ message: `Delete ${filename}?`, requestedSchema: confirmSchema });
      return answer.action === 'accept' && answer.content.confirm !== false ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  );

  server.tool('multi_input', { description: 'Asks two questions at once', extensions: task('optional') }, async (_args, ctx) => {
    const [a, b] = await Promise.all([
      ctx.elicit({ message: 'First value?', requestedSchema: confirmSchema }),
      ctx.elicit({ message: 'Second value?', requestedSchema: confirmSchema }),
    ]);
    const name = (x: typeof a) => (x.action === 'accept' ? (x.content.name ?? 'yes') : x.action);
    return `Got ${name(a)} and ${name(b)}`;
  });

  server.tool(
    'test_tool_with_task',
    { description: 'Asks a name in the request, then finishes as a task', extensions: task({ support: 'required', start: 'handler' }) },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'What is your name?', requestedSchema: z.object({ name: z.string() }) },
        { key: 'user_name' },
      );
      await startTask(ctx);
      await sleep(100, ctx.signal);
      return `Hello, ${answer.action === 'accept' ? answer.content.name : 'stranger'}!`;
    },
  );
}
