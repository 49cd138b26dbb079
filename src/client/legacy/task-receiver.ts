/**
 * The client as a task receiver (2025-11-25 basic/utilities/tasks.mdx, client side): a
 * `sampling/createMessage` or `elicitation/create` that carries `params.task` is answered at
 * once with a CreateTaskResult, and the onSample/onElicit handler runs in the background
 * (§Creating Tasks). The server follows it with `tasks/get`, `tasks/result` (which blocks
 * until the task ends), `tasks/list` and `tasks/cancel`. Tasks live in this process, in the
 * tasks extension's in-memory store, and expire `ttl` after creation.
 */
import { InMemoryTaskStore } from '../../extensions/tasks/memory-store.js';
import { newTaskRecord, TERMINAL, type TaskRecord } from '../../extensions/tasks/store.js';
import { legacyTask, RELATED_TASK } from '../../extensions/tasks/wire.js';
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { ReceiverSettings, TaskReceiver } from '../handshake-party.js';

const RECEIVER_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);

const PAGE = 50;

export class LegacyTaskReceiver implements TaskReceiver {
  readonly methods = RECEIVER_METHODS;
  private readonly store = new InMemoryTaskStore();
  /** Tasks whose handler runs here: what cancels it, and what settles once it has ended. */
  private readonly running = new Map<string, { controller: AbortController; ended: Promise<void> }>();

  constructor(private readonly settings: ReceiverSettings) {}

  async create(method: string, task: unknown, run: (signal: AbortSignal) => Promise<object>): Promise<{ task: Record<string, unknown> }> {
    if (this.running.size >= this.settings.maxRunning) {
      throw new McpError(
        ErrorCode.InternalError,
        `the client already runs ${this.settings.maxRunning} tasks for this server; try again later`,
      );
    }
    const asked = typeof task === 'object' && task !== null ? (task as { ttl?: unknown }).ttl : undefined;
    const ttlMs = typeof asked === 'number' && asked >= 0 ? Math.min(Math.floor(asked), this.settings.maxTtlMs) : this.settings.maxTtlMs;
    const record = newTaskRecord({
      ttlMs,
      pollIntervalMs: this.settings.pollIntervalMs,
      owner: '',
      design: 'core',
      method,
      runner: '',
    });
    await this.store.create(record);
    const controller = new AbortController();
    const { taskId } = record;
    const ended = run(controller.signal).then(
      (result) => this.finish(taskId, { status: 'completed', result: { ...result } }),
      (e) =>
        this.finish(taskId, {
          status: 'failed',
          statusMessage: e instanceof Error ? e.message : String(e),
          error:
            e instanceof McpError ? e.toJSON() : { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : String(e) },
        }),
    );
    this.running.set(taskId, { controller, ended });
    void ended.finally(() => this.running.delete(taskId));
    return { task: legacyTask(record) };
  }

  async serve(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<object> {
    if (method === 'tasks/list') {
      const cursor = params.cursor;
      if (cursor !== undefined && (typeof cursor !== 'string' || !/^\d{1,15}$/.test(cursor)))
        throw new McpError(ErrorCode.InvalidParams, 'tasks/list: invalid cursor');
      const page = await this.store.list('', cursor, PAGE);
      const out: Record<string, unknown> = { tasks: page.records.map(legacyTask) };
      if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
      return out;
    }
    const taskId = params.taskId;
    if (typeof taskId !== 'string') throw new McpError(ErrorCode.InvalidParams, `${method}: taskId must be a string`);
    const record = await this.known(taskId);
    switch (method) {
      case 'tasks/get':
        return legacyTask(record);
      case 'tasks/cancel':
        return this.cancel(record);
      default:
        return this.result(record, signal);
    }
  }

  close(): void {
    for (const { controller } of this.running.values()) controller.abort(new Error('the client closed'));
    this.store.close();
  }

  private async known(taskId: string): Promise<TaskRecord> {
    const record = await this.store.get(taskId);
    if (!record) throw new McpError(ErrorCode.InvalidParams, `Failed to retrieve task: task ${taskId} not found (or expired)`);
    return record;
  }

  /** §Task Cancellation: a terminal task cannot be cancelled (-32602); else it is cancelled before the answer. */
  private async cancel(record: TaskRecord): Promise<object> {
    const after = TERMINAL.has(record.status)
      ? undefined
      : await this.store.update(record.taskId, { status: 'cancelled', statusMessage: 'cancelled by the server' });
    if (!after) throw new McpError(ErrorCode.InvalidParams, `task ${record.taskId} is already ${record.status}: it cannot be cancelled`);
    this.running.get(record.taskId)?.controller.abort(new Error('task cancelled by the server'));
    this.tell(after);
    return legacyTask(after);
  }

  /** §Result Retrieval: blocks until the task ends, then answers exactly as the request would have. */
  private async result(record: TaskRecord, signal: AbortSignal): Promise<object> {
    let current: TaskRecord = record;
    const live = this.running.get(record.taskId);
    if (!TERMINAL.has(current.status) && live) {
      await Promise.race([
        live.ended,
        new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
        cancelled(live.controller.signal),
      ]);
      current = await this.known(record.taskId);
    }
    const related = { [RELATED_TASK]: { taskId: current.taskId } };
    if (current.status === 'completed' && current.result) {
      const meta = (current.result._meta ?? {}) as Record<string, unknown>;
      return { ...current.result, _meta: { ...meta, ...related } };
    }
    if (current.status === 'failed' && current.error) throw new McpError(current.error.code, current.error.message, current.error.data);
    if (current.status === 'cancelled') throw new McpError(ErrorCode.InternalError, `task ${current.taskId} was cancelled`, related);
    throw new McpError(ErrorCode.InternalError, `task ${current.taskId} has not ended`);
  }

  private async finish(taskId: string, change: Parameters<InMemoryTaskStore['update']>[1]): Promise<void> {
    const after = await this.store.update(taskId, change); // undefined: cancelled (or expired) meanwhile
    if (after) this.tell(after);
  }

  private tell(record: TaskRecord): void {
    void this.settings.notify(legacyTask(record)).catch(() => {});
  }
}

function cancelled(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
