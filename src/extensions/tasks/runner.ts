/**
 * The task runner, whatever the design: it keeps the task records (a `TaskStore`, shared by a
 * cluster's instances), creates a task for a tool call, runs the handler as the task, lands
 * its outcome in the record, watches lifetimes, and tells the instance running a task what
 * another instance received for it (input, cancellation). Each design (design.ts) says how its
 * tasks reach their client and who hears of a change.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import type { InputRequest } from '../../protocol/types.js';
import type { Call } from '../../server/call.js';
import type { RequestContext } from '../../server/context.js';
import type { CallSite, ExtensionHost, Params } from '../../server/extension.js';
import { shapeCallToolResult } from '../../server/shape.js';
import type { TaskDesign, TaskRunner as TaskRunnerApi } from './design.js';
import { TaskChanges } from './changes.js';
import { InMemoryTaskStore } from './memory-store.js';
import { created, ownerOf, shapeVersion } from './records.js';
import { Running, type TaskRuntime } from './running.js';
import type { TaskHandle, ToolTaskOptions } from './settings.js';
import { newTaskRecord, type TaskChange, type TaskError, type TaskRecord, type TaskSignal, type TaskStore } from './store.js';
import { TASK_STORE } from './store-key.js';
import { TaskCall, type TaskPhase } from './task-call.js';

/** How the tasks extension keeps and bounds its tasks. */
export interface TasksOptions {
  /** Where task records live (default: the cluster's `TASK_STORE`, else this process). */
  store?: TaskStore;
  /** A task's lifetime from creation when the tool does not say (default one hour). */
  ttlMs?: number;
  /** The longest lifetime a 2025-11-25 client may ask for with `task.ttl` (default one day). */
  maxTtlMs?: number;
  /** The suggested polling interval when the tool does not say (default one second). */
  pollIntervalMs?: number;
  /** Page size of 2025-11-25 `tasks/list` (default 50). */
  listPageSize?: number;
  /** Tasks this instance runs at once; one more is refused with -32600 (default 1000). */
  maxRunning?: number;
}

const HOUR = 3_600_000;

export class TaskRunner implements TaskRuntime, TaskRunnerApi {
  private taskStore: TaskStore | undefined;
  private host: ExtensionHost | undefined;
  private readonly running = new Map<string, Running>();
  /** Local waiters on a task's next change (2025-11-25 `tasks/result`). */
  readonly changes = new TaskChanges();
  private stopSignals: (() => void) | undefined;
  private ownsStore = false;
  /** Aborts the running tasks whose lifetime is over: one timer, due at the earliest `expires` it was armed for. */
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private expiryDue = Number.POSITIVE_INFINITY;

  constructor(
    readonly options: TasksOptions,
    /** The designs served, by the records they make. */
    private readonly designs: ReadonlyMap<TaskRecord['design'], TaskDesign>,
  ) {}

  /** Where its task records live: the option's store, the cluster's, or one of this process. */
  get store(): TaskStore {
    if (this.taskStore === undefined) throw new JanusError('PROTOCOL', 'the tasks extension is not added to a server yet');
    return this.taskStore;
  }

  install(host: ExtensionHost): void {
    if (this.host !== undefined) throw new JanusError('REGISTRATION', 'a tasks() extension serves one server: make one per server');
    this.host = host;
    const given = this.options.store ?? host.store(TASK_STORE);
    this.ownsStore = given === undefined;
    const store = (this.taskStore = given ?? new InMemoryTaskStore());
    this.stopSignals = store.onSignal((s) => this.onSignal(s));
  }

  close(): void {
    this.stopSignals?.();
    if (this.expiryTimer !== undefined) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.expiryDue = Number.POSITIVE_INFINITY;
    for (const r of [...this.running.values()]) r.abort(new McpError(ErrorCode.InternalError, 'server closed'));
    if (this.ownsStore) this.store.close?.();
  }

  /** Sends a notification to every listen stream holding `topic`, on every instance. */
  publish(topic: string, notification: Parameters<ExtensionHost['publish']>[1]): void {
    this.host?.publish(topic, notification);
  }

  /** A running task of this instance, by id. */
  runningTask(taskId: string): Running | undefined {
    return this.running.get(taskId);
  }

  /** Creates the task (durably), starts the handler as it, and answers with CreateTaskResult. */
  async begin(
    design: TaskDesign,
    options: ToolTaskOptions,
    ctx: Call,
    run: (ctx: RequestContext) => Promise<object>,
    requestedTtl: number | undefined,
  ): Promise<object> {
    const { record, phase, running } = await this.create(design, options, ctx, requestedTtl);
    this.execute(record, new TaskCall(ctx, undefined, phase), run, running);
    return created(record);
  }

  /** `start: 'handler'`: the handler runs in the request until it calls `startTask(ctx)`. */
  deferred(design: TaskDesign, options: ToolTaskOptions, ctx: Call, run: (ctx: RequestContext) => Promise<object>): Promise<object> {
    return new Promise<object>((resolve, reject) => {
      let started: { record: TaskRecord; running: Running } | undefined;
      const taskCall = new TaskCall(ctx, async () => {
        const made = await this.create(design, options, ctx, undefined);
        started = made;
        resolve(created(made.record));
        return made.phase;
      });
      run(taskCall).then(
        (result) => (started ? this.settle(started.record, started.running, result) : resolve(result)),
        (e: unknown) => (started ? this.fail(started.record, started.running, e) : reject(e)),
      );
    });
  }

  private async create(design: TaskDesign, options: ToolTaskOptions, ctx: Call, requestedTtl: number | undefined) {
    const site = ctx.site;
    const longest = this.options.maxTtlMs ?? 24 * HOUR;
    const record = newTaskRecord({
      ttlMs: Math.min(requestedTtl ?? options.ttlMs ?? this.options.ttlMs ?? HOUR, longest),
      pollIntervalMs: options.pollIntervalMs ?? this.options.pollIntervalMs ?? 1000,
      owner: ownerOf(site),
      design: design.name,
      method: 'tools/call',
      runner: this.store.instanceId,
    });
    const max = this.options.maxRunning ?? 1000;
    if (this.running.size >= max) {
      throw new McpError(ErrorCode.InvalidRequest, `Invalid Request: ${max} tasks are already running on this server (tasks.maxRunning)`);
    }
    const running = new Running(this, record, site.session);
    this.running.set(record.taskId, running);
    if (running.expires < this.expiryDue) this.armExpiry(running.expires);
    const reach = design.reach(this, running, site);
    try {
      await this.store.create(record);
    } catch (e) {
      running.end();
      throw e;
    }
    const handle: TaskHandle = { id: record.taskId, setStatusMessage: (m) => running.setStatusMessage(m) };
    const call = ctx.detach({ asker: reach.asker, cancel: running.cancel, inbound: reach.inbound });
    const phase: TaskPhase = {
      call,
      handle,
      // Read once the handler reads ctx.signal: the running task's AbortController is made then.
      get signal() {
        return running.signal;
      },
      progress: reach.progress,
    };
    return { record, phase, running };
  }

  private execute(record: TaskRecord, call: TaskCall, run: (ctx: RequestContext) => Promise<object>, running: Running): void {
    run(call).then(
      (result) => this.settle(record, running, result),
      (e: unknown) => this.fail(record, running, e),
    );
  }

  /** The handler's result (a tool error included: §Task Status, `completed` with isError) lands in the task. */
  private settle(record: TaskRecord, running: Running, result: object): void {
    const shaped = shapeCallToolResult(shapeVersion(record), result as Record<string, unknown>);
    this.finish(record, running, { status: 'completed', result: shaped });
  }

  /** A protocol error during execution: `failed`, with the JSON-RPC error (§Task Execution Errors). */
  private fail(record: TaskRecord, running: Running, e: unknown): void {
    if (running.cancel.aborted) {
      running.end(); // cancelled or expired: its status says so already
      return;
    }
    let error: TaskError;
    if (e instanceof McpError) {
      error = e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data };
    } else {
      this.reportError(e);
      error = { code: ErrorCode.InternalError, message: 'Internal error' };
    }
    this.finish(record, running, { status: 'failed', statusMessage: error.message, error });
  }

  reportError(e: unknown): void {
    this.host?.reportError(e);
  }

  /**
   * The task's terminal change, then its end. Ended after the change is announced: a
   * 2025-11-25 status notification goes through the running task's session.
   */
  private finish(record: TaskRecord, running: Running, terminal: TaskChange): void {
    this.change(record.taskId, terminal).then(
      () => running.end(),
      (e: unknown) => {
        try {
          this.reportError(e);
        } finally {
          running.end();
        }
      },
    );
  }

  /** A record the caller may see: unknown, expired and other owners' tasks are all -32602 alike (ext-tasks §Security). */
  async find(params: Params, site: CallSite, design: TaskDesign): Promise<TaskRecord> {
    const taskId = params.taskId;
    if (typeof taskId !== 'string' || taskId === '') throw new McpError(ErrorCode.InvalidParams, 'params.taskId must be a task id');
    const record = await this.store.get(taskId);
    if (record === undefined || record.owner !== ownerOf(site) || record.design !== design.name) {
      throw new McpError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    }
    return record;
  }

  // TaskRuntime: every change is stored, then announced.
  async change(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const after = await this.store.update(taskId, change);
    if (after !== undefined) this.announce(after);
    return after;
  }

  async addInput(taskId: string, key: string, request: InputRequest): Promise<TaskRecord | undefined> {
    const after = await this.store.addInput(taskId, key, request);
    if (after !== undefined) this.announce(after);
    return after;
  }

  /** Tells who watches: local `tasks/result` waiters, and the record's design (listen streams, its session). */
  announce(record: TaskRecord): void {
    this.changes.changed(record.taskId);
    this.designs.get(record.design)?.announce(this, record);
  }

  /** (Re)arms the expiry timer for `due`, sooner than it was due. */
  private armExpiry(due: number): void {
    if (this.expiryTimer !== undefined) clearTimeout(this.expiryTimer);
    this.expiryDue = due;
    this.expiryTimer = setTimeout(() => this.expire(), Math.max(0, due - Date.now()));
    this.expiryTimer.unref?.();
  }

  /** Aborts the tasks past their lifetime, and arms the timer for the next one to end (tasks that ended meanwhile are not watched). */
  private expire(): void {
    this.expiryTimer = undefined;
    this.expiryDue = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const r of [...this.running.values()]) {
      if (r.expires <= now) r.expire();
      else if (r.expires < next) next = r.expires;
    }
    if (next < this.expiryDue) this.armExpiry(next);
  }

  finished(running: Running): void {
    if (this.running.get(running.taskId) === running) this.running.delete(running.taskId);
    for (const design of this.designs.values()) design.ended?.(running);
  }

  /** Gets what a request for a task must tell its handler to the instance running it. */
  async toRunner(runner: string, signal: TaskSignal): Promise<void> {
    if (runner === this.store.instanceId && this.running.has(signal.taskId)) return this.onSignal(signal);
    await this.store.signal(runner, signal);
  }

  private onSignal(signal: TaskSignal): void {
    const running = this.running.get(signal.taskId);
    if (running === undefined) return;
    if (signal.type === 'input') running.deliver(signal.responses);
    else running.abort(new McpError(ErrorCode.InvalidRequest, 'The task was cancelled by request.'));
  }
}
