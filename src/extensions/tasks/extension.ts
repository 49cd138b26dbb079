/**
 * The tasks extension, both designs behind one handler API (docs/extensions.md §Tasks):
 * 2025-11-25's experimental core tasks (basic/utilities/tasks.mdx: the client asks with
 * `params.task`, polls `tasks/get`, blocks on `tasks/result`, lists and cancels) and the 2026
 * `io.modelcontextprotocol/tasks` extension (ext-tasks: the server decides, `tasks/get`
 * inlines the outcome, `tasks/update` answers input, `tasks/cancel` acks, `notifications/tasks`
 * on `subscriptions/listen`). A tool declares `task` support; its handler is written once.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import { revision } from '../../protocol/revisions.js';
import type { ServerCapabilities } from '../../protocol/types.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import type { Call } from '../../server/call.js';
import type { ClientView, RequestContext } from '../../server/context.js';
import type { SiteSession } from '../../server/call.js';
import {
  clientDeclares,
  verbatim,
  type CallSite,
  type ExtensionHost,
  type ExtensionMethod,
  type ListenGrant,
  type Params,
  type ServerExtension,
} from '../../server/extension.js';
import { isObject } from '../../server/guards.js';
import type { ToolEntry } from '../../server/features/tools.js';
import type { Tool } from '../../protocol/types.js';
import { shapeCallToolResult } from '../../server/shape.js';
import { modernTaskChannel, ParkingAsker, SessionTaskAsker, sessionTaskChannel } from './askers.js';
import { TaskChanges } from './changes.js';
import { InMemoryTaskStore } from './memory-store.js';
import { Running, type TaskRuntime } from './running.js';
import { newTaskRecord, TERMINAL, type TaskChange, type TaskError, type TaskRecord, type TaskSignal, type TaskStore } from './store.js';
import { readSettings, taskOptionsOf, type TaskHandle, type ToolTaskOptions } from './settings.js';
import { TaskCall, type TaskPhase } from './task-call.js';
import { TASK_STORE } from './store-key.js';
import { created, ownerOf, shapeVersion } from './records.js';
import { detailedTask, EXTENSION_ID, legacyTask, RELATED_TASK, topicOf } from './wire.js';
import { extend } from '../../protocol/extend.js';

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

/** Does revision `v` have 2025-11-25's core tasks? */
const coreTasks = (v: ProtocolVersion): boolean => revision(v).experimental.clientRequests.has('tasks/get');
const modern = (v: ProtocolVersion): boolean => revision(v).era === 'modern';

export class TasksExtension implements ServerExtension, TaskRuntime {
  readonly id = EXTENSION_ID;
  private taskStore: TaskStore | undefined;
  private host: ExtensionHost | undefined;
  private readonly running = new Map<string, Running>();
  private readonly changes = new TaskChanges();
  /** 2025-11-25: the tasks each session runs here, cancelled when the session ends (one close hook per session). */
  private readonly bySession = new WeakMap<SiteSession, Set<Running>>();
  private stopSignals: (() => void) | undefined;
  private ownsStore = false;
  /** Each tool's task options, read from its settings once. */
  private readonly toolOptions = new WeakMap<object, ToolTaskOptions>();
  /** Aborts the running tasks whose lifetime is over: one timer, due at the earliest `expires` it was armed for. */
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private expiryDue = Number.POSITIVE_INFINITY;

  constructor(private readonly options: TasksOptions = {}) {}

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

  /** A tool's settings for this extension, checked at registration; 2025-11-25 advertises the support as `execution.taskSupport`. */
  toolSettings(name: string, settings: unknown): Partial<Tool> | undefined {
    const options = readSettings(`tool "${name}"`, settings);
    return options.support === 'forbidden' ? undefined : { execution: { taskSupport: options.support } };
  }

  private optionsOf(tool: ToolEntry): ToolTaskOptions {
    let options = this.toolOptions.get(tool.config);
    if (options === undefined) this.toolOptions.set(tool.config, (options = taskOptionsOf(tool.config.extensions)));
    return options;
  }

  close(): void {
    this.stopSignals?.();
    if (this.expiryTimer !== undefined) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.expiryDue = Number.POSITIVE_INFINITY;
    for (const r of [...this.running.values()]) r.abort(new McpError(ErrorCode.InternalError, 'server closed'));
    if (this.ownsStore) this.store.close?.();
  }

  settings(): Record<string, unknown> {
    return {};
  }

  /** 2025-11-25 declares core tasks (§Server Capabilities): list, cancel, task-augmented tools/call. */
  capabilities(v: ProtocolVersion, caps: ServerCapabilities): void {
    if (coreTasks(v)) caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  }

  readonly methods: Readonly<Record<string, ExtensionMethod>> = {
    'tasks/get': {
      mcpName: 'taskId',
      revisions: (v) => coreTasks(v) || modern(v),
      needsClientExtension: true,
      run: async (params, _ctx, site) => {
        const record = await this.find(params, site);
        return site.era === 'modern' ? detailedTask(record) : legacyTask(record);
      },
    },
    'tasks/update': {
      mcpName: 'taskId',
      revisions: modern,
      needsClientExtension: true,
      run: async (params, _ctx, site) => {
        const record = await this.find(params, site);
        const responses = params.inputResponses;
        if (!isObject(responses))
          throw new McpError(ErrorCode.InvalidParams, 'tasks/update needs inputResponses, an object keyed by input request');
        if (TERMINAL.has(record.status)) return {};
        const answered = await this.store.answer(record.taskId, responses);
        if (answered !== undefined && Object.keys(answered.taken).length > 0) {
          this.announce(answered.record);
          await this.toRunner(record.runner, { type: 'input', taskId: record.taskId, responses: answered.taken });
        }
        return {};
      },
    },
    'tasks/cancel': {
      mcpName: 'taskId',
      revisions: (v) => coreTasks(v) || modern(v),
      needsClientExtension: true,
      run: async (params, _ctx, site) => {
        const record = await this.find(params, site);
        if (TERMINAL.has(record.status)) {
          // 2026: idempotent ack; 2025-11-25 §Task Cancellation: terminal tasks are refused with -32602.
          if (site.era === 'modern') return {};
          throw new McpError(ErrorCode.InvalidParams, `Task ${record.taskId} is already ${record.status}`);
        }
        const after = await this.change(record.taskId, { status: 'cancelled', statusMessage: 'The task was cancelled by request.' });
        await this.toRunner(record.runner, { type: 'cancel', taskId: record.taskId });
        if (site.era === 'modern') return {};
        return legacyTask(after ?? (await this.find(params, site)));
      },
    },
    'tasks/result': {
      revisions: coreTasks,
      run: async (params, _ctx, site) => verbatim(await this.result(params, site)),
    },
    'tasks/list': {
      revisions: coreTasks,
      run: async (params, _ctx, site) => {
        const cursor = params.cursor;
        if (cursor !== undefined && typeof cursor !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
        const page = await this.store.list(ownerOf(site), cursor, this.options.listPageSize ?? 50);
        const tasks = page.records.filter((r) => r.design === 'core').map(legacyTask);
        return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
      },
    },
  };

  /** ext-tasks §Task Status Notifications: `taskIds` on `subscriptions/listen`, only for clients that declare the extension. */
  listen(asked: Params, client: ClientView): ListenGrant | undefined {
    const ids = asked.taskIds;
    if (ids === undefined) return undefined;
    if (!clientDeclares(client, EXTENSION_ID)) {
      throw new McpError(
        ErrorCode.MissingRequiredClientCapability,
        'Task status notifications need the client to declare the tasks extension',
        {
          requiredCapabilities: { extensions: { [EXTENSION_ID]: {} } },
        },
      );
    }
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      throw new McpError(ErrorCode.InvalidParams, 'notifications.taskIds must be an array of task ids');
    }
    const unique = [...new Set(ids as string[])];
    return { acknowledged: { taskIds: unique }, topics: unique.map(topicOf) };
  }

  /** Runs a call as a task when the tool supports it and the client can take one; else declines or refuses. */
  readonly toolCall = (tool: ToolEntry, ctx: Call, params: Params, run: (ctx: RequestContext) => Promise<object>) => {
    const options = this.optionsOf(tool);
    const site = ctx.site;
    const v = site.protocolVersion;
    if (site.era === 'legacy') {
      if (!coreTasks(v)) return undefined; // older revisions know no tasks: a plain call
      const asked = params.task;
      if (asked === undefined) {
        // §Tool-Level Negotiation: a required tool called without a task is -32601.
        if (options.support === 'required')
          throw new McpError(ErrorCode.MethodNotFound, `Tool ${tool.name} must be called as a task (params.task)`);
        return undefined;
      }
      if (options.support === 'forbidden') throw new McpError(ErrorCode.MethodNotFound, `Tool ${tool.name} cannot be called as a task`);
      if (!isObject(asked)) throw new McpError(ErrorCode.InvalidParams, 'params.task must be an object');
      const ttl = typeof asked.ttl === 'number' && Number.isInteger(asked.ttl) && asked.ttl > 0 ? asked.ttl : undefined;
      return this.begin('core', options, ctx, run, ttl);
    }
    if (!clientDeclares(ctx.client, EXTENSION_ID)) {
      if (options.support !== 'required') return undefined;
      throw new McpError(
        ErrorCode.MissingRequiredClientCapability,
        `Tool ${tool.name} runs only as a task: declare the ${EXTENSION_ID} extension`,
        {
          requiredCapabilities: { extensions: { [EXTENSION_ID]: {} } },
        },
      );
    }
    if (options.support === 'forbidden') return undefined;
    if (options.start === 'handler') return this.deferred(options, ctx, run);
    return this.begin('extension', options, ctx, run, undefined);
  };

  /** Creates the task (durably), starts the handler as it, and answers with CreateTaskResult. */
  private async begin(
    design: TaskRecord['design'],
    options: ToolTaskOptions,
    ctx: Call,
    run: (ctx: RequestContext) => Promise<object>,
    requestedTtl: number | undefined,
  ): Promise<object> {
    const { record, phase, running } = await this.create(design, options, ctx, requestedTtl);
    this.execute(record, new TaskCall(ctx, undefined, phase), run, running);
    return created(record);
  }

  /** `start: 'handler'` (2026): the handler runs in the request until it calls `ctx.startTask()`. */
  private deferred(options: ToolTaskOptions, ctx: Call, run: (ctx: RequestContext) => Promise<object>): Promise<object> {
    return new Promise<object>((resolve, reject) => {
      let started: { record: TaskRecord; running: Running } | undefined;
      const taskCall = new TaskCall(ctx, async () => {
        const made = await this.create('extension', options, ctx, undefined);
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

  private async create(design: TaskRecord['design'], options: ToolTaskOptions, ctx: Call, requestedTtl: number | undefined) {
    const site = ctx.site;
    const longest = this.options.maxTtlMs ?? 24 * HOUR;
    const record = newTaskRecord({
      ttlMs: Math.min(requestedTtl ?? options.ttlMs ?? this.options.ttlMs ?? HOUR, longest),
      pollIntervalMs: options.pollIntervalMs ?? this.options.pollIntervalMs ?? 1000,
      owner: ownerOf(site),
      design,
      method: 'tools/call',
      runner: this.store.instanceId,
    });
    const max = this.options.maxRunning ?? 1000;
    if (this.running.size >= max) {
      throw new McpError(ErrorCode.InvalidRequest, `Invalid Request: ${max} tasks are already running on this server (tasks.maxRunning)`);
    }
    const session = site.session;
    const running = new Running(this, record, design === 'core' ? session : undefined);
    this.running.set(record.taskId, running);
    if (running.expires < this.expiryDue) this.armExpiry(running.expires);
    if (design === 'core' && session !== undefined) this.tieToSession(session, running);
    try {
      await this.store.create(record);
    } catch (e) {
      running.end();
      throw e;
    }
    const handle: TaskHandle = { id: record.taskId, setStatusMessage: (m) => running.setStatusMessage(m) };
    const asker =
      design === 'core' && session ? new SessionTaskAsker(running, session) : new ParkingAsker(running, site.client.capabilities);
    const inbound =
      design === 'core' && session ? sessionTaskChannel(running, session, site.inbound) : modernTaskChannel(running, site.inbound);
    const call = ctx.detach({ asker, cancel: running.cancel, inbound });
    // 2026: no progress notifications on tasks (ext-tasks §Task Status Notifications); a progress message is the status message.
    const progress =
      design === 'extension'
        ? (_p: number, _t: number | undefined, message: string | undefined) => message !== undefined && running.setStatusMessage(message)
        : undefined;
    const phase: TaskPhase = {
      call,
      handle,
      // Read once the handler reads ctx.signal: the running task's AbortController is made then.
      get signal() {
        return running.signal;
      },
      progress,
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
      this.host?.reportError(e);
      error = { code: ErrorCode.InternalError, message: 'Internal error' };
    }
    this.finish(record, running, { status: 'failed', statusMessage: error.message, error });
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
          this.host?.reportError(e);
        } finally {
          running.end();
        }
      },
    );
  }

  /** 2025-11-25 `tasks/result`: blocks until the task is terminal, then what the request itself would have answered. */
  private async result(params: Params, site: CallSite): Promise<object> {
    let record = await this.find(params, site);
    const running = this.running.get(record.taskId);
    const release = running?.holdResultStream(site.inbound);
    try {
      while (!TERMINAL.has(record.status)) {
        await this.changes.next(record, site.inbound.signal);
        record = await this.find(params, site);
      }
    } finally {
      release?.();
    }
    if (record.status === 'failed') {
      const e = record.error ?? { code: ErrorCode.InternalError, message: 'Internal error' };
      throw new McpError(e.code, e.message, e.data);
    }
    if (record.status === 'cancelled') throw new McpError(ErrorCode.InvalidParams, `Task ${record.taskId} was cancelled`);
    const result = record.result ?? {};
    const meta = isObject(result._meta) ? result._meta : {};
    return extend(result, { _meta: extend(meta, { [RELATED_TASK]: { taskId: record.taskId } }) });
  }

  /** A record the caller may see: unknown, expired and other owners' tasks are all -32602 alike (ext-tasks §Security). */
  private async find(params: Params, site: CallSite): Promise<TaskRecord> {
    const taskId = params.taskId;
    if (typeof taskId !== 'string' || taskId === '') throw new McpError(ErrorCode.InvalidParams, 'params.taskId must be a task id');
    const record = await this.store.get(taskId);
    const design = site.era === 'modern' ? 'extension' : 'core';
    if (record === undefined || record.owner !== ownerOf(site) || record.design !== design) {
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

  async addInput(taskId: string, key: string, request: Parameters<TaskStore['addInput']>[2]): Promise<TaskRecord | undefined> {
    const after = await this.store.addInput(taskId, key, request);
    if (after !== undefined) this.announce(after);
    return after;
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
    if (running.session !== undefined) this.bySession.get(running.session)?.delete(running);
  }

  /**
   * A 2025-11-25 task belongs to its session (its owner when nobody authenticated): once the
   * session has ended nobody can reach it, so it is cancelled rather than left to run out its
   * lifetime. A session an instance only lets go of (cluster) lives on elsewhere: its tasks too.
   */
  private tieToSession(session: SiteSession, running: Running): void {
    let set = this.bySession.get(session);
    if (set === undefined) {
      const tasks = (set = new Set());
      this.bySession.set(session, tasks);
      session.onClosed(() => {
        if (session.released) return;
        for (const r of [...tasks]) {
          this.change(r.taskId, { status: 'cancelled', statusMessage: 'The session ended.' }).catch(() => undefined);
          r.abort(new McpError(ErrorCode.InvalidRequest, 'The session ended.'));
        }
      });
    }
    set.add(running);
  }

  /** Tells who watches: 2026 listen streams (every instance), the 2025-11-25 session, and local `tasks/result` waiters. */
  private announce(record: TaskRecord): void {
    this.changes.changed(record.taskId);
    if (record.design === 'extension') {
      this.host?.publish(topicOf(record.taskId), { jsonrpc: '2.0', method: 'notifications/tasks', params: detailedTask(record) });
      return;
    }
    const session = this.running.get(record.taskId)?.session;
    if (session !== undefined && !session.closed) {
      session.sendUnsolicited({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: legacyTask(record) });
    }
  }

  /** Gets what a request for a task must tell its handler to the instance running it. */
  private async toRunner(runner: string, signal: TaskSignal): Promise<void> {
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
