/**
 * Task records and where they live. A task runs on one instance at a time, its `runner` (its
 * handler is a live promise there); its record is shared, so `tasks/get`, `tasks/update` and
 * `tasks/cancel` work on any instance: reads come from the store, and what must reach the
 * running handler (input responses, a cancellation) goes to its instance as a signal. The
 * runner holds a lease on the task, renewed while the handler runs; a task whose lease ran
 * out (its instance died) is taken over by one other instance, which runs it again or fails
 * it (runner.ts, `keepLeases`). In-process by default (`InMemoryTaskStore`); `janus-mcp/redis`
 * shares it across processes.
 */
import { extend } from '../../protocol/extend.js';
import type { ClientCapabilities, Implementation, InputRequest, Meta } from '../../protocol/types.js';

/** basic/utilities/tasks.mdx §Task Status; the same five in the 2026 extension. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** The JSON-RPC error a failed task ended with. */
export interface TaskError {
  /** The JSON-RPC error code. */
  code: number;
  /** What went wrong. */
  message: string;
  /** The error's details, if any. */
  data?: unknown;
}

/**
 * One task as a {@link TaskStore} keeps it: its status, lifetime, owner, and, once it ends, its
 * result or error.
 */
export interface TaskRecord {
  /** The task's id: unguessable, so it is also what lets its holder act on it. */
  readonly taskId: string;
  /** Where the task is: `working`, `input_required`, or ended (`completed`, `failed`, `cancelled`). */
  status: TaskStatus;
  /** What the task is doing, for display. */
  statusMessage?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** When it last changed (ISO 8601). */
  lastUpdatedAt: string;
  /** From creation, in integer milliseconds; null for unlimited. */
  ttlMs: number | null;
  /** How often clients should poll it, in milliseconds. */
  pollIntervalMs?: number;
  /**
   * Who may act on it: the authenticated principal, else (handshake era) the session id, else
   * '' (2026-07-28 without authentication: the unguessable id is the bearer).
   */
  readonly owner: string;
  /** Which design made it: 2025-11-25's core tasks (`core`) or the 2026 extension (`extension`). */
  readonly design: 'core' | 'extension';
  /** The augmented request (`tools/call`). */
  readonly method: string;
  /** The instance whose process runs the handler (a cluster's instance id; '' in one process); another one's after a take-over. */
  runner: string;
  /**
   * Epoch ms until which `runner` holds the task: renewed while its handler runs, gone once the
   * task is terminal. Past it, the runner is taken for dead and another instance takes the task
   * over (`TaskStore.keepLeases`). Undefined: nobody leases the task (nothing takes it over).
   */
  leaseUntil?: number;
  /** How many times the handler was started: 1, and one more for each take-over. */
  runs?: number;
  /** The tool a `tools/call` task runs, for messages. */
  tool?: string;
  /** What running the task again takes, kept only for a tool declared `rerunnable`. */
  rerun?: TaskRerun;
  /** 2026 extension: the outstanding requests to the client, by key (input_required). */
  inputRequests?: Record<string, InputRequest>;
  /** Terminal `completed`: the request's result, in the wire shape of the revision it was made on. */
  result?: Record<string, unknown>;
  /** Terminal `failed`: the JSON-RPC error. */
  error?: TaskError;
}

/**
 * The request a task runs, as another instance needs it to run the task again: the tool, its
 * arguments, and who asked in which revision. `auth` is kept without its token.
 */
export interface TaskRerun {
  /** The tool's name. */
  name: string;
  /** The arguments, as the client sent them. */
  arguments: Record<string, unknown>;
  /** The id of the request that created the task (`ctx.requestId` on a re-run). */
  requestId: string | number;
  /** The revision the request was made in. */
  protocolVersion: string;
  /** The client, as the request declared it. */
  client: { info?: Implementation; capabilities: ClientCapabilities };
  /** The request's `_meta`. */
  meta?: Meta;
  /** The handshake-era session id, when there was one. */
  sessionId?: string;
  /** What carried the request (`http`, `stdio`, …). */
  transport: string;
  /** The authenticated principal, when there was one. */
  principal?: string;
  /** The verified identity (`ctx.auth`) without the access token, when there was one. */
  auth?: {
    subject: string | undefined;
    clientId: string | undefined;
    scopes: string[];
    issuer: string;
    audience: string[];
    expiresAt: number | undefined;
    claims: Record<string, unknown>;
  };
}

/** A new task, `working`, created now under a fresh unguessable id (ext-tasks §Security: task ids are bearer tokens). */
export function newTaskRecord(
  fields: Pick<
    TaskRecord,
    'ttlMs' | 'pollIntervalMs' | 'owner' | 'design' | 'method' | 'runner' | 'leaseUntil' | 'runs' | 'tool' | 'rerun'
  >,
): TaskRecord {
  const now = new Date().toISOString();
  // extend, not a spread: on Node 20 an object made by spread that gets more keys costs ~1 µs (src/protocol/extend.ts).
  return extend({ taskId: crypto.randomUUID(), status: 'working' as TaskStatus, createdAt: now, lastUpdatedAt: now }, fields);
}

/** What the instance running a task is told by the one that took a request for it. */
export type TaskSignal = { type: 'input'; taskId: string; responses: Record<string, unknown> } | { type: 'cancel'; taskId: string };

/** A change to a record; `status` moves only out of a non-terminal status. */
export interface TaskChange {
  /** The new status. */
  status?: TaskStatus;
  /** The new status message. */
  statusMessage?: string;
  /** The new lifetime from creation, in milliseconds (null: unlimited). */
  ttlMs?: number | null;
  /** The new poll interval, in milliseconds. */
  pollIntervalMs?: number;
  /** The result, when the task completes. */
  result?: Record<string, unknown>;
  /** The error, when the task fails. */
  error?: TaskError;
}

/**
 * Where the tasks extension keeps its task records and tells the instance running a task what came
 * for it. {@link InMemoryTaskStore} keeps them in this process; `RedisTaskStore`
 * (`janus-mcp/redis`) shares them across instances.
 */
export interface TaskStore {
  /** This instance's id, recorded as a task's `runner` ('' for a store only one process uses). */
  readonly instanceId: string;
  /**
   * Stores a new record. Resolves once a `get` on any instance finds it (the extension: a
   * CreateTaskResult is not sent before the task is durably created). It expires `ttlMs`
   * after creation (never when null). With `leaseUntil`, `runner` holds its lease until then
   * (a store may count it from its own clock: `leaseUntil - now` from now).
   */
  create(record: TaskRecord): Promise<void>;
  /** A copy of the record, or undefined when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `change` unless the task is already terminal (terminal states are final: a task
   * cancelled stays cancelled when its handler finishes later). Sets `lastUpdatedAt`; a
   * terminal change ends the lease (`leaseUntil` goes). Returns
   * the record after the change, or undefined when the task is unknown or was terminal.
   */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /**
   * Adds an outstanding input request under `key` and moves a working task to input_required.
   * Returns the record after, or undefined when the task is unknown or terminal.
   */
  addInput(taskId: string, key: string, request: InputRequest): Promise<TaskRecord | undefined>;
  /**
   * Takes the responses whose keys are outstanding (the rest are ignored, ext-tasks §Task
   * Update Requests), removes them from `inputRequests`, and moves the task back to working
   * when none is left. Returns the responses taken and the record after (undefined: unknown or terminal).
   */
  answer(taskId: string, responses: Record<string, unknown>): Promise<{ taken: Record<string, unknown>; record: TaskRecord } | undefined>;
  /** 2025-11-25 `tasks/list`: the owner's tasks, newest last, a page at a time. */
  list(owner: string, cursor: string | undefined, limit: number): Promise<{ records: TaskRecord[]; nextCursor?: string }>;
  /**
   * The leases of instance `runner`, in one atomic step: renews those of `holding` (the tasks
   * it runs) to `leaseMs` from now, reporting as `lost` the ones it no longer holds (unknown,
   * terminal, or taken over); then takes over up to `limit` tasks whose lease ran out (their
   * runner died): each becomes `runner`'s, `working`, leased for `leaseMs`, with one more
   * `runs` and no input requests (the dead run's questions died with it). A task is taken
   * over by one instance only, whichever calls first.
   */
  keepLeases(
    runner: string,
    holding: readonly string[],
    leaseMs: number,
    limit: number,
  ): Promise<{ lost: string[]; claimed: TaskRecord[] }>;
  /** Tells the instance `runner` something about one of the tasks it runs (a no-op target in one process: see `onSignal`). */
  signal(runner: string, signal: TaskSignal): Promise<void>;
  /** Signals for the tasks this instance runs; returns what stops listening. */
  onSignal(handler: (signal: TaskSignal) => void): () => void;
  /** Releases timers and connections it holds. */
  close?(): void;
}
