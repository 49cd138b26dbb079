/**
 * `ToolTask`: a tool call the server runs as a task, as a handle. The era's driver
 * (modern-driver.ts, ../legacy/task-driver.ts) follows the task from the moment it exists until it
 * ends: it polls, answers what the task asks, and settles `result()`. The handle shows the
 * last status seen, lets the caller poll now, cancel, and watch the status change.
 */
import { JanusError } from '../../protocol/errors.js';
import type { CallToolResult } from '../../protocol/types.js';
import { changed, isTerminal, type TaskSnapshot, type TaskStatus } from './snapshot.js';

/** What an era's driver does for one task. */
export interface TaskDriver {
  /** Follows the task until it ends; reports every state through `seen`; stops when `stop` aborts. */
  follow(seen: (s: TaskSnapshot) => void, stop: AbortSignal): Promise<CallToolResult>;
  /** One `tasks/get`. */
  get(signal?: AbortSignal): Promise<TaskSnapshot>;
  /** `tasks/cancel`; resolves with the state the server reports when it reports one. */
  cancel(): Promise<TaskSnapshot | undefined>;
}

/**
 * A tool call the server runs as a task, as a handle (`client.startTool`, `client.resumeTool`):
 * the client follows the task to its end, polling and answering what it asks. Read the last status
 * seen, wait for `result()`, cancel, or iterate over its status changes.
 *
 * @example
 * ```ts
 * const task = await client.startTool('render', { scene: 'intro' });
 * for await (const snapshot of task) console.log(snapshot.status, snapshot.statusMessage);
 * const result = await task.result();
 * ```
 */
export class ToolTask implements AsyncIterable<TaskSnapshot> {
  /** The task's id; undefined when the server answered the call at once without a task. */
  readonly taskId: string | undefined;
  private last: TaskSnapshot | undefined;
  private readonly outcome: Promise<CallToolResult>;
  private settled = false;
  private resolveOutcome!: (r: CallToolResult) => void;
  private rejectOutcome!: (e: unknown) => void;
  private readonly stop = new AbortController();
  private readonly watchers = new Set<Watcher>();
  private readonly driver: TaskDriver | undefined;
  private cancelled: JanusError | undefined;

  /**
   * @internal Made by `Client.startTool` / `Client.resumeTool`.
   * @param toolName The tool called, when known.
   */
  constructor(
    readonly toolName: string | undefined,
    start: { result: CallToolResult } | { snapshot: TaskSnapshot; driver: TaskDriver },
    private readonly onStatus?: (s: TaskSnapshot) => void,
  ) {
    this.outcome = new Promise<CallToolResult>((resolve, reject) => {
      this.resolveOutcome = resolve;
      this.rejectOutcome = reject;
    });
    // Nobody may ever await it (a handle used for its status only): no unhandled rejection.
    this.outcome.catch(() => {});
    if ('result' in start) {
      this.taskId = undefined;
      this.driver = undefined;
      this.settle(start.result);
      return;
    }
    this.taskId = start.snapshot.taskId;
    this.driver = start.driver;
    this.seen(start.snapshot);
    start.driver
      .follow((s) => this.seen(s), this.stop.signal)
      .then(
        (r) => this.settle(r),
        // Following stops when cancel() aborts it: the cancellation is the outcome, not the abort.
        (e) => this.settle(undefined, this.cancelled ?? e),
      );
  }

  /** The status last seen: `completed` for a call the server answered at once. */
  get status(): TaskStatus {
    return this.last?.status ?? 'completed';
  }

  /** The status message last seen, if the server gave one. */
  get statusMessage(): string | undefined {
    return this.last?.statusMessage;
  }

  /** The whole task as last seen (createdAt, ttlMs, pollIntervalMs…); undefined without a task. */
  get snapshot(): TaskSnapshot | undefined {
    return this.last;
  }

  /** Whether `result()` has settled. */
  get done(): boolean {
    return this.settled;
  }

  /**
   * The tool's result once the task ends. A tool error is a result with `isError`; a failed
   * task rejects with the task's McpError; a cancelled task with a JanusError 'ABORTED'; a
   * task the server no longer knows (expired) with an McpError -32602.
   */
  result(): Promise<CallToolResult> {
    return this.outcome;
  }

  /** Asks the server for the task's state now (`tasks/get`), and returns it. */
  async refresh(options: { signal?: AbortSignal } = {}): Promise<TaskSnapshot> {
    if (!this.driver || !this.taskId) throw new JanusError('PROTOCOL', 'this call was answered at once: there is no task to ask about');
    const s = await this.driver.get(options.signal);
    this.seen(s);
    return s;
  }

  /**
   * Asks the server to cancel the task (`tasks/cancel`) and stops following it: `result()`
   * rejects with a JanusError 'ABORTED'. Nothing is sent once the task has ended.
   */
  async cancel(reason = 'cancelled by the client'): Promise<void> {
    if (this.settled || !this.driver) return;
    if (this.cancelled) return;
    const error = new JanusError('ABORTED', `task ${this.taskId} (tool ${this.toolName ?? '?'}) was cancelled: ${reason}`);
    this.cancelled = error;
    this.stop.abort();
    try {
      const s = await this.driver.cancel();
      if (s) this.seen(s);
    } finally {
      this.settle(undefined, error);
    }
  }

  /**
   * Each change of status (or status message) from now on, until the task ends; the last one
   * yielded is the terminal state. Ends at once for a call answered without a task.
   */
  updates(): AsyncIterableIterator<TaskSnapshot> {
    const watcher = new Watcher(() => this.watchers.delete(watcher));
    if (this.settled) watcher.end();
    else this.watchers.add(watcher);
    return watcher;
  }

  /** The task's states as they change, as `updates()` gives them. */
  [Symbol.asyncIterator](): AsyncIterator<TaskSnapshot> {
    return this.updates();
  }

  private seen(s: TaskSnapshot): void {
    if (this.settled) return;
    const before = this.last;
    this.last = s;
    if (!changed(before, s)) return;
    this.onStatus?.(s);
    for (const w of this.watchers) w.push(s);
  }

  private settle(result: CallToolResult | undefined, error?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.stop.abort();
    for (const w of this.watchers) w.end();
    this.watchers.clear();
    if (result) this.resolveOutcome(result);
    else this.rejectOutcome(error);
  }
}

/** One `updates()` reader: a queue of snapshots it has not taken yet. */
class Watcher implements AsyncIterableIterator<TaskSnapshot> {
  private readonly queue: TaskSnapshot[] = [];
  private waiting: ((r: IteratorResult<TaskSnapshot>) => void) | undefined;
  private ended = false;

  constructor(private readonly detach: () => void) {}

  push(s: TaskSnapshot): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: s, done: false });
    } else this.queue.push(s);
    if (isTerminal(s.status)) this.end();
  }

  end(): void {
    this.ended = true;
    this.detach();
    if (this.waiting && this.queue.length === 0) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<TaskSnapshot>> {
    const s = this.queue.shift();
    if (s) return Promise.resolve({ value: s, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<TaskSnapshot>> {
    this.queue.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<TaskSnapshot> {
    return this;
  }
}
