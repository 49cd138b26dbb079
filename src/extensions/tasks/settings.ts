/**
 * A tool's settings for the tasks extension (`ToolConfig.extensions`, keyed by the extension's
 * id), and the handle a task's handler gets (`taskOf(ctx)`).
 */
import { JanusError } from '../../protocol/errors.js';
import { EXTENSION_ID } from './methods.js';

/** basic/utilities/tasks.mdx §Tool-Level Negotiation. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/**
 * A tool's task settings, as {@link task} makes them: whether it may or must run as a task, and
 * when the task begins.
 */
export interface ToolTaskOptions {
  /**
   * Whether the tool runs as a task: `optional` (when the client can take one), `required`
   * (clients that cannot are refused), or `forbidden`.
   */
  support: TaskSupport;
  /**
   * When the task begins: `'call'` (default), before the handler runs; `'handler'`, when the
   * handler calls `startTask(ctx)`. What the handler asks before that is the request's own
   * (an input_required round on 2026-07-28), so it can gather input before it goes async.
   * A 2025-11-25 client asks for the task up front: there it begins at the call either way.
   */
  start?: 'call' | 'handler';
  /** The task's lifetime from creation (default: the extension's, one hour); a 2025-11-25 client's `ttl` is honoured up to it. */
  ttlMs?: number;
  /** How often clients should poll (default: the extension's, one second). */
  pollIntervalMs?: number;
  /**
   * Whether the task may run again, from the start, on another instance when the instance
   * running it dies before it ends (a cluster: docs/scale-out.md §Tasks). Declare it only for an
   * idempotent tool, one that may run twice with the same arguments, since its first run may
   * have done part of its work, or all of it, before its instance died. The run again gets
   * the same arguments and the same client, principal and `ctx.auth` (without the access
   * token), but not what middleware put in `ctx.state`. Default false: such a task fails
   * instead, saying that its instance stopped before it finished.
   */
  rerunnable?: boolean;
}

/** The task a tool call runs as (`taskOf(ctx)`). */
export interface TaskHandle {
  /** The task's id, as the client sees it. */
  readonly id: string;
  /**
   * Sets the task's `statusMessage`, which clients see on `tasks/get` and in status
   * notifications (also set by `ctx.progress` with a message on 2026-07-28, where tasks carry
   * no progress notifications).
   */
  setStatusMessage(message: string): void;
}

/**
 * A tool's `extensions` entry making it run as a task: `'optional'` (when the client can take
 * one) or `'required'` (clients that cannot are refused); 2025-11-25 advertises it as
 * `execution.taskSupport`, and on 2026-07-28 the server decides, creating a task whenever the
 * request declares the extension.
 *
 * ```ts
 * server.tool('render', { input, extensions: task('optional') }, async (args, ctx) => { ... });
 * server.tool('survey', { extensions: task({ support: 'required', start: 'handler', ttlMs: 600_000 }) }, handler);
 * server.tool('reindex', { extensions: task({ support: 'optional', rerunnable: true }) }, idempotentHandler);
 * ```
 */
export function task(settings: TaskSupport | ToolTaskOptions): Readonly<Record<string, ToolTaskOptions>> {
  return { [EXTENSION_ID]: readSettings('task(...)', settings) };
}

const SUPPORT: ReadonlySet<unknown> = new Set(['forbidden', 'optional', 'required']);

/** A tool's settings, checked: a `REGISTRATION` error naming `where` for what is not settings of this extension. */
export function readSettings(where: string, settings: unknown): ToolTaskOptions {
  const options: unknown = typeof settings === 'string' ? { support: settings } : settings;
  const fail = (why: string) => new JanusError('REGISTRATION', `${where}: ${why}`);
  if (typeof options !== 'object' || options === null) throw fail(`task settings are 'optional', 'required' or { support, ... }`);
  const { support, start, ttlMs, pollIntervalMs, rerunnable } = options as Record<string, unknown>;
  if (!SUPPORT.has(support)) throw fail(`task support must be 'forbidden', 'optional' or 'required'`);
  if (start !== undefined && start !== 'call' && start !== 'handler') throw fail(`task start must be 'call' or 'handler'`);
  if (rerunnable !== undefined && typeof rerunnable !== 'boolean') throw fail('task rerunnable must be true or false');
  for (const [name, value] of [
    ['ttlMs', ttlMs],
    ['pollIntervalMs', pollIntervalMs],
  ] as const) {
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value <= 0))
      throw fail(`task ${name} must be a positive integer`);
  }
  return options as ToolTaskOptions;
}

/** A tool's task options, from its settings (none: the tool never runs as a task). */
export function taskOptionsOf(extensions: Readonly<Record<string, unknown>> | undefined): ToolTaskOptions {
  const settings = extensions?.[EXTENSION_ID];
  return settings === undefined ? FORBIDDEN : readSettings('task settings', settings);
}

const FORBIDDEN: ToolTaskOptions = Object.freeze({ support: 'forbidden' });
