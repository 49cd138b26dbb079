/**
 * `janus-mcp/tasks`: the tasks extension, both designs behind one handler API
 * (docs/extensions.md §Tasks). Add it to a server, then mark the tools that run as tasks:
 *
 * ```ts
 * import { createServer } from 'janus-mcp/server';
 * import { startTask, task, taskOf, tasks } from 'janus-mcp/tasks';
 *
 * const server = createServer({ name: 'renders', version: '1.0.0', extensions: [tasks()] });
 * server.tool('render', { extensions: task('optional') }, async (_args, ctx) => {
 *   taskOf(ctx)?.setStatusMessage('rendering');
 *   return 'done';
 * });
 * ```
 *
 * @module janus-mcp/tasks
 */
import type { RequestContext } from '../../server/context.js';
import { TasksExtension, type TasksOptions } from './extension.js';
import type { TaskHandle } from './settings.js';
import { TaskCall } from './task-call.js';

export { TasksExtension, type TasksOptions } from './extension.js';
export { task, type TaskHandle, type TaskSupport, type ToolTaskOptions } from './settings.js';
export { TASK_STORE } from './store-key.js';
export { EXTENSION_ID as TASKS_EXTENSION } from './methods.js';
export type { TaskStore, TaskRecord, TaskRerun, TaskStatus, TaskChange, TaskSignal, TaskError } from './store.js';
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './memory-store.js';

/** The tasks extension, for `createServer({ extensions: [tasks()] })`: one per server. */
export function tasks(options?: TasksOptions): TasksExtension {
  return new TasksExtension(options);
}

/** The task a tool call runs as (a tool with task settings, once the call became one); undefined otherwise. */
export function taskOf(ctx: RequestContext): TaskHandle | undefined {
  return ctx instanceof TaskCall ? ctx.task : undefined;
}

/**
 * For a tool whose task starts in its handler (`task({ support, start: 'handler' })`): makes
 * this call a task now, when the client can take one. The client gets the task at once and the
 * handler goes on as the task: what it asked before was the request's own (an input_required
 * round on 2026-07-28); what it asks after parks the task. Resolves when the task exists; a
 * call that cannot be a task goes on as a plain call. Does nothing for any other call or once
 * the task exists.
 */
export function startTask(ctx: RequestContext): Promise<void> {
  return ctx instanceof TaskCall ? ctx.startTask() : Promise.resolve();
}
