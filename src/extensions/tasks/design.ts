/**
 * What one design of tasks adds to the task runner (runner.ts): 2026's extension design
 * (modern.ts) and 2025-11-25's experimental core tasks (legacy/core.ts, registered by eras.ts).
 * The runner keeps the records and runs the handlers; a design says where it exists, what
 * methods and capabilities it serves, when a tool call becomes a task, how a running task
 * reaches its client, and who hears of a change.
 */
import type { ServerCapabilities } from '../../protocol/types.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import type { Asker } from '../../server/ask.js';
import type { Call } from '../../server/call.js';
import type { RequestContext } from '../../server/context.js';
import type { CallSite, ExtensionMethod, Params } from '../../server/extension.js';
import type { ToolEntry } from '../../server/features/tools.js';
import type { Inbound } from '../../server/transport-seam.js';
import type { Running } from './running.js';
import type { TaskChanges } from './changes.js';
import type { ToolTaskOptions } from './settings.js';
import type { TaskChange, TaskRecord, TaskSignal, TaskStore } from './store.js';

/** What a design may use of the task runner (runner.ts). */
export interface TaskRunner {
  readonly store: TaskStore;
  readonly options: { readonly listPageSize?: number };
  /** Local waiters on a task's next change. */
  readonly changes: TaskChanges;
  runningTask(taskId: string): Running | undefined;
  find(params: Params, site: CallSite, design: TaskDesign): Promise<TaskRecord>;
  begin(
    design: TaskDesign,
    options: ToolTaskOptions,
    ctx: Call,
    params: Params,
    run: (ctx: RequestContext) => Promise<object>,
    requestedTtl: number | undefined,
  ): Promise<object>;
  deferred(
    design: TaskDesign,
    options: ToolTaskOptions,
    ctx: Call,
    params: Params,
    run: (ctx: RequestContext) => Promise<object>,
  ): Promise<object>;
  /** 2025-11-25 `tasks/list`: a page of the owner's tasks. */
  list(owner: string, cursor: string | undefined): Promise<{ records: TaskRecord[]; nextCursor?: string }>;
  change(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  announce(record: TaskRecord): void;
  toRunner(runner: string, signal: TaskSignal): Promise<void>;
  publish(topic: string, notification: { jsonrpc: '2.0'; method: string; params?: Record<string, unknown> }): void;
}

/** How a running task of a design reaches its client: its asks, its channel, and where progress goes. */
export interface TaskReach {
  readonly asker: Asker;
  readonly inbound: Inbound;
  /** Where `ctx.progress` goes instead of the request's notifications (2026: the status message). */
  readonly progress?: (progress: number, total: number | undefined, message: string | undefined) => void;
}

export interface TaskDesign {
  /** The records it makes (`TaskRecord.design`). */
  readonly name: TaskRecord['design'];
  /** Whether revision `v` has this design. */
  has(v: ProtocolVersion): boolean;
  /** Its methods, each in the revisions that have it. */
  methods(runner: TaskRunner): Readonly<Record<string, ExtensionMethod>>;
  /** What it declares beyond `capabilities.extensions` (2025-11-25's core `tasks` capability). */
  capabilities?(v: ProtocolVersion, caps: ServerCapabilities): void;
  /** A tool call on a revision of this design: the task's CreateTaskResult, or undefined to run it plainly; throws a refusal. */
  toolCall(
    runner: TaskRunner,
    tool: ToolEntry,
    options: ToolTaskOptions,
    ctx: Call,
    params: Params,
    run: (ctx: RequestContext) => Promise<object>,
  ): object | Promise<object> | undefined;
  /** How a task it made, now running, reaches its client. */
  reach(runner: TaskRunner, running: Running, site: CallSite): TaskReach;
  /**
   * How a task it made reaches its client when it runs again on an instance that took it over
   * (its instance died): `site` is rebuilt from the stored request, with no session.
   */
  reachAgain(runner: TaskRunner, running: Running, site: CallSite): TaskReach;
  /** A running task of this instance ended (whatever its design). */
  ended?(running: Running): void;
  /** A record of its design changed: tell who watches. */
  announce(runner: TaskRunner, record: TaskRecord): void;
}
