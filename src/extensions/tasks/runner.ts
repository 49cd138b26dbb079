/**
 * The task runner, whatever the design: it keeps the task records (a `TaskStore`, shared by a
 * cluster's instances), creates a task for a tool call, runs the handler as the task, lands
 * its outcome in the record, watches lifetimes, and tells the instance running a task what
 * another instance received for it (input, cancellation). Each design (design.ts) says how its
 * tasks reach their client and who hears of a change.
 *
 * Leases: the instance running a task holds a lease on it, renewed every `leaseMs / 3` while
 * the handler runs. Every instance, at that same pace and whenever a read finds a lease
 * overdue, takes over the tasks whose lease ran out (their instance died): one instance alone
 * gets each (`TaskStore.keepLeases`), and runs it again when its tool is `rerunnable`, or
 * fails it saying why. So a task whose instance dies is noticed within `leaseMs + leaseMs / 3`
 * of the last renewal, never left `working` until its lifetime ends.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import { revision } from '../../protocol/revisions.js';
import type { InputRequest } from '../../protocol/types.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import { Call } from '../../server/call.js';
import type { RequestContext } from '../../server/context.js';
import type { CallSite, ExtensionHost, Params } from '../../server/extension.js';
import { isObject } from '../../server/guards.js';
import { shapeCallToolResult } from '../../server/shape.js';
import type { Inbound } from '../../server/transport-seam.js';
import type { TaskDesign, TaskRunner as TaskRunnerApi } from './design.js';
import { TaskChanges } from './changes.js';
import { InMemoryTaskStore } from './memory-store.js';
import { created, ownerOf, shapeVersion } from './records.js';
import { Running, type TaskRuntime } from './running.js';
import type { TaskHandle, ToolTaskOptions } from './settings.js';
import {
  newTaskRecord,
  TERMINAL,
  type TaskChange,
  type TaskError,
  type TaskRecord,
  type TaskRerun,
  type TaskSignal,
  type TaskStore,
} from './store.js';
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
  /**
   * How long the instance running a task holds it without renewing (default 15 s). It renews
   * every `leaseMs / 3` while the handler runs; every instance looks for overdue leases at that
   * pace too, so a task whose instance dies is taken over within `leaseMs + leaseMs / 3`
   * (20 s by default): run again when its tool is `rerunnable`, failed otherwise. Shorter
   * notices sooner but renews more often; a lease must outlast the longest pause of an
   * instance's event loop, or a live instance loses its tasks.
   */
  leaseMs?: number;
  /** How many times in all a `rerunnable` task may be started before a take-over fails it instead (default 3). */
  maxRuns?: number;
}

const HOUR = 3_600_000;
/** How many overdue tasks one instance takes over per look (the rest at its next, or another instance's). */
const TAKE_OVER_LIMIT = 20;

/** The error of a task whose instance died and whose tool may not run again. */
function notRerunnable(tool: string | undefined): TaskError {
  const what = tool === undefined ? 'its tool is' : `tool "${tool}" is`;
  return {
    code: ErrorCode.InternalError,
    message:
      `The server instance running this task stopped before the task finished, and ${what} not declared ` +
      'safe to run again (task({ rerunnable: true })): call the tool again if it should still run.',
  };
}

/** The error of a task taken over once too often. */
function tooManyRuns(tool: string | undefined, runs: number): TaskError {
  const what = tool === undefined ? 'its tool' : `tool "${tool}"`;
  return {
    code: ErrorCode.InternalError,
    message:
      `The server instance running this task stopped before the task finished, ${runs} times (${what} was ` +
      'started that often, the most tasks({ maxRuns }) allows): it is not run again.',
  };
}

/** What a run again needs of the request that created the task (a `rerunnable` tool's). */
function rerunOf(ctx: Call, params: Params, name: string): TaskRerun {
  const site = ctx.site;
  const rerun: TaskRerun = {
    name,
    arguments: isObject(params.arguments) ? params.arguments : {},
    requestId: ctx.requestId,
    protocolVersion: ctx.protocolVersion,
    client:
      ctx.client.info === undefined
        ? { capabilities: ctx.client.capabilities }
        : { info: ctx.client.info, capabilities: ctx.client.capabilities },
    transport: site.inbound.transport,
  };
  if (ctx.meta !== undefined) rerun.meta = ctx.meta;
  if (ctx.sessionId !== undefined) rerun.sessionId = ctx.sessionId;
  if (site.inbound.principal !== undefined) rerun.principal = site.inbound.principal;
  const auth = ctx.auth;
  if (auth !== undefined) {
    // Never the token: it would sit in the store, and it was issued for the request's time.
    rerun.auth = {
      subject: auth.subject,
      clientId: auth.clientId,
      scopes: [...auth.scopes],
      issuer: auth.issuer,
      audience: [...auth.audience],
      expiresAt: auth.expiresAt,
      claims: { ...auth.claims },
    };
  }
  return rerun;
}

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
  /** Renews this instance's leases and takes over overdue ones, every `leaseMs / 3`. */
  private leaseTimer: ReturnType<typeof setInterval> | undefined;
  /** The look at the leases under way, which a read that finds one overdue joins. */
  private looking: Promise<void> | undefined;
  /** A failed look was reported: the next failures are not, until one succeeds. */
  private lookFailed = false;

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
    this.leaseTimer = setInterval(() => void this.lookAtLeases(), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.leaseTimer.unref?.();
  }

  /** How long a lease lasts without renewal. */
  get leaseMs(): number {
    return this.options.leaseMs ?? 15_000;
  }

  close(): void {
    this.stopSignals?.();
    if (this.leaseTimer !== undefined) clearInterval(this.leaseTimer);
    this.leaseTimer = undefined;
    // Its tasks are handed over now rather than when their leases run out: leased for a
    // millisecond, they are overdue at the other instances' next look.
    const holding = [...this.running.values()].filter((r) => r.leased).map((r) => r.taskId);
    if (holding.length > 0 && this.taskStore !== undefined) {
      this.taskStore.keepLeases(this.taskStore.instanceId, holding, 1, 0).catch(() => undefined);
    }
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
    params: Params,
    run: (ctx: RequestContext) => Promise<object>,
    requestedTtl: number | undefined,
  ): Promise<object> {
    const { record, phase, running } = await this.create(design, options, ctx, params, requestedTtl);
    // Its request was cancelled meanwhile: the task is too, and its handler never starts.
    if (!running.cancel.aborted) this.execute(record, new TaskCall(ctx, undefined, phase), run, running);
    return created(record);
  }

  /** `start: 'handler'`: the handler runs in the request until it calls `startTask(ctx)`. */
  deferred(
    design: TaskDesign,
    options: ToolTaskOptions,
    ctx: Call,
    params: Params,
    run: (ctx: RequestContext) => Promise<object>,
  ): Promise<object> {
    return new Promise<object>((resolve, reject) => {
      let started: { record: TaskRecord; running: Running } | undefined;
      const taskCall = new TaskCall(ctx, async () => {
        const made = await this.create(design, options, ctx, params, undefined);
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

  private async create(design: TaskDesign, options: ToolTaskOptions, ctx: Call, params: Params, requestedTtl: number | undefined) {
    const site = ctx.site;
    const longest = this.options.maxTtlMs ?? 24 * HOUR;
    const tool = typeof params.name === 'string' ? params.name : '';
    const record = newTaskRecord({
      ttlMs: Math.min(requestedTtl ?? options.ttlMs ?? this.options.ttlMs ?? HOUR, longest),
      pollIntervalMs: options.pollIntervalMs ?? this.options.pollIntervalMs ?? 1000,
      owner: ownerOf(site),
      design: design.name,
      method: 'tools/call',
      runner: this.store.instanceId,
      leaseUntil: Date.now() + this.leaseMs,
      runs: 1,
      tool,
    });
    if (options.rerunnable === true) record.rerun = rerunOf(ctx, params, tool);
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
    running.leased = true;
    this.tieToRequest(ctx, running);
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

  /**
   * Until its CreateTaskResult is sent, a task is its request's: a request cancelled before
   * that (2026-07-28: its HTTP stream closed; a channel's `notifications/cancelled`; a round
   * that ended `input_required` before `startTask`) gets no answer, so nobody would ever know
   * the task, and it is cancelled. Once the answer is sent the pipeline lets go of the
   * request's signal, so a later drop of the connection changes nothing.
   */
  private tieToRequest(ctx: Call, running: Running): void {
    const signal = ctx.signal;
    const orphaned = () => {
      if (running.cancel.aborted || this.running.get(running.taskId) !== running) return;
      const message = 'The request that created the task was cancelled before the task reached its client.';
      this.change(running.taskId, { status: 'cancelled', statusMessage: message }).catch((e: unknown) => this.reportError(e));
      running.abort(new McpError(ErrorCode.InvalidRequest, message));
    };
    if (signal.aborted) orphaned();
    else signal.addEventListener('abort', orphaned, { once: true });
  }

  private execute(record: TaskRecord, call: TaskCall, run: (ctx: RequestContext) => Promise<object>, running: Running): void {
    run(call).then(
      (result) => this.settle(record, running, result),
      (e: unknown) => this.fail(record, running, e),
    );
  }

  /** The handler's result (a tool error included: §Task Status, `completed` with isError) lands in the task. */
  private settle(record: TaskRecord, running: Running, result: object): void {
    if (running.cancel.aborted) {
      // Cancelled or expired (its status says so already), its lease lost (another instance
      // holds it), or this instance closing (another one takes it over): not this run's to end.
      running.end();
      return;
    }
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
    let record = await this.store.get(taskId);
    if (record !== undefined && this.overdue(record)) {
      await this.lookAtLeases();
      record = await this.store.get(taskId);
    }
    if (record === undefined || record.owner !== ownerOf(site) || record.design !== design.name) {
      throw new McpError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    }
    return record;
  }

  /** 2025-11-25 `tasks/list`: a page of the owner's tasks, taken over first where a lease is overdue. */
  async list(owner: string, cursor: string | undefined): Promise<{ records: TaskRecord[]; nextCursor?: string }> {
    const limit = this.options.listPageSize ?? 50;
    const page = await this.store.list(owner, cursor, limit);
    if (!page.records.some((r) => this.overdue(r))) return page;
    await this.lookAtLeases();
    return this.store.list(owner, cursor, limit);
  }

  /** Whether a task's lease ran out by this instance's clock (the store's decides: this only prompts a look). */
  private overdue(record: TaskRecord): boolean {
    return record.leaseUntil !== undefined && record.leaseUntil < Date.now() && !TERMINAL.has(record.status);
  }

  /**
   * Renews the leases of the tasks this instance runs, and takes over overdue ones: a look
   * already under way is joined. Never rejects: a failure is reported once until a look
   * succeeds (the store is away; the next look tries again).
   */
  lookAtLeases(): Promise<void> {
    return (this.looking ??= this.keepLeases().finally(() => (this.looking = undefined)));
  }

  private async keepLeases(): Promise<void> {
    const store = this.taskStore;
    if (store === undefined) return;
    const holding: string[] = [];
    for (const r of this.running.values()) if (r.leased) holding.push(r.taskId);
    let kept: Awaited<ReturnType<TaskStore['keepLeases']>>;
    try {
      // An instance at its `maxRunning` takes over none: the others will.
      const room = Math.max(0, Math.min(TAKE_OVER_LIMIT, (this.options.maxRunning ?? 1000) - this.running.size));
      kept = await store.keepLeases(store.instanceId, holding, this.leaseMs, room);
      this.lookFailed = false;
    } catch (e) {
      if (!this.lookFailed) this.reportError(e);
      this.lookFailed = true;
      return;
    }
    for (const taskId of kept.lost) {
      // It ended elsewhere (a cancellation whose signal was lost), or, this instance having
      // stalled past its lease, another one took it over: this run's work goes nowhere.
      this.running
        .get(taskId)
        ?.abort(
          new McpError(ErrorCode.InvalidRequest, 'This instance no longer holds the task: it ended, or another instance took it over.'),
        );
    }
    for (const record of kept.claimed) this.takeOver(record);
  }

  /** A task this instance took over from a dead one: run again, or failed saying why. */
  private takeOver(record: TaskRecord): void {
    // Its lease lapsed while its handler still runs here (one process, stalled): it goes on.
    if (this.running.has(record.taskId)) return;
    const design = this.designs.get(record.design);
    const host = this.host;
    const request = record.rerun;
    const runs = record.runs ?? 2;
    if (request === undefined || design === undefined || host === undefined) this.failTakenOver(record, notRerunnable(record.tool));
    else if (runs > (this.options.maxRuns ?? 3)) this.failTakenOver(record, tooManyRuns(record.tool, runs - 1));
    else this.runAgain(design, record, request, host);
  }

  /** A task taken over that does not run again: failed, its error also its status message. */
  private failTakenOver(record: TaskRecord, error: TaskError): void {
    this.change(record.taskId, { status: 'failed', statusMessage: error.message, error }).catch((e: unknown) => this.reportError(e));
  }

  /** Starts a task's handler again, here, with the request that created it. */
  private runAgain(design: TaskDesign, record: TaskRecord, request: TaskRerun, host: ExtensionHost): void {
    const running = new Running(this, record, undefined);
    running.leased = true;
    this.running.set(record.taskId, running);
    if (running.expires < this.expiryDue) this.armExpiry(running.expires);
    const version = request.protocolVersion as ProtocolVersion;
    const inbound: Inbound = { transport: request.transport, principal: request.principal, auth: request.auth, send: () => undefined };
    const client = { info: request.client.info, capabilities: request.client.capabilities };
    let era: CallSite['era'];
    try {
      era = revision(version).era;
    } catch (e) {
      // A revision this instance does not serve (a cluster mid-upgrade): nothing can run it here.
      this.fail(record, running, e);
      return;
    }
    const site: CallSite = { era, protocolVersion: version, client, inbound, session: undefined };
    const reach = design.reachAgain(this, running, site);
    const call = new Call({
      requestId: request.requestId,
      era,
      version,
      client,
      meta: request.meta,
      sessionId: request.sessionId,
      inbound: reach.inbound,
      cancel: running.cancel,
      logLevel: undefined,
      asker: reach.asker,
    });
    const handle: TaskHandle = { id: record.taskId, setStatusMessage: (m) => running.setStatusMessage(m) };
    const phase: TaskPhase = {
      call,
      handle,
      get signal() {
        return running.signal;
      },
      progress: reach.progress,
    };
    this.change(record.taskId, { statusMessage: 'Running again: the server instance running it stopped before it finished.' }).catch(
      (e: unknown) => this.reportError(e),
    );
    this.execute(
      record,
      new TaskCall(call, undefined, phase),
      (ctx) => host.callTool({ name: request.name, arguments: request.arguments }, ctx),
      running,
    );
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
