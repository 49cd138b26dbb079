/**
 * A task whose handler runs in this process: its cancellation, the asks it is parked on
 * (2026), the `tasks/result` streams waiting on it (2025-11-25), and its status changes, which
 * go through the runtime so that every change is stored and announced.
 */
import { JanusError } from '../../protocol/errors.js';
import type { InputRequest } from '../../protocol/types.js';
import { Cancellation } from '../../server/cancel.js';
import type { SiteSession } from '../../server/call.js';
import type { Inbound } from '../../server/transport-seam.js';
import type { TaskChange, TaskRecord } from './store.js';

/** What a running task needs of the extension. */
export interface TaskRuntime {
  change(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  addInput(taskId: string, key: string, request: InputRequest): Promise<TaskRecord | undefined>;
  /** The task ended here (settled or aborted): forget it. */
  finished(running: Running): void;
}

interface Parked {
  resolve(answer: unknown): void;
  reject(error: unknown): void;
}

export class Running {
  readonly taskId: string;
  /**
   * Epoch ms when its lifetime ends (Infinity for none): past it the record is gone, so nobody
   * can read what the handler would produce, and the runtime aborts it (`expired`). One timer
   * of the runtime's watches every running task, rather than one each.
   */
  readonly expires: number;
  readonly cancel = new Cancellation();
  /** Which start of the handler this is: 1, and one more for each take-over (`TaskRecord.runs`). */
  readonly runs: number;
  /** Its record is in the store with this instance's lease on it, which the runtime renews from then on. */
  leased = false;
  // The rest is made when first needed: most tasks never ask, and nobody waits on their results.
  /** 2025-11-25: `tasks/result` requests waiting on this task, newest last; asks go on the newest's stream. */
  private resultStreams: Inbound[] | undefined;
  private parked: Map<string, Parked> | undefined;
  /** Asks waiting for a `tasks/result` stream to be sent on. */
  private streamWaiters: Array<(inbound: Inbound) => void> | undefined;
  private asking = 0;

  constructor(
    private readonly runtime: TaskRuntime,
    record: TaskRecord,
    /** 2025-11-25: the session the task belongs to (its requests and notifications go there). */
    readonly session: SiteSession | undefined,
  ) {
    this.taskId = record.taskId;
    this.runs = record.runs ?? 1;
    this.expires = record.ttlMs === null ? Number.POSITIVE_INFINITY : Date.parse(record.createdAt) + record.ttlMs;
  }

  /** Its lifetime is over: aborted as expired. */
  expire(): void {
    this.abort(new JanusError('TIMEOUT', `task ${this.taskId} expired`));
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  get resultStream(): Inbound | undefined {
    return this.resultStreams?.at(-1);
  }

  /** Resolves with the next `tasks/result` stream to wait on this task; rejects when the task is aborted. */
  nextResultStream(): Promise<Inbound> {
    if (this.cancel.aborted) return Promise.reject(this.cancel.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(this.cancel.reason);
      this.signal.addEventListener('abort', onAbort, { once: true });
      (this.streamWaiters ??= []).push((inbound) => {
        this.signal.removeEventListener('abort', onAbort);
        resolve(inbound);
      });
    });
  }

  /** A `tasks/result` request waits on this task; returns what stops it waiting. */
  holdResultStream(inbound: Inbound): () => void {
    const streams = (this.resultStreams ??= []);
    streams.push(inbound);
    if (this.streamWaiters !== undefined) for (const wake of this.streamWaiters.splice(0)) wake(inbound);
    return () => {
      const i = streams.indexOf(inbound);
      if (i !== -1) streams.splice(i, 1);
    };
  }

  /** 2026: waits for the answer to one input request, recorded on the task under `key`. */
  park(key: string, request: InputRequest): Promise<unknown> {
    if (this.cancel.aborted) return Promise.reject(this.cancel.reason);
    return new Promise((resolve, reject) => {
      // Registered before the record names it: an answer can only come after that.
      (this.parked ??= new Map()).set(key, { resolve, reject });
      this.runtime.addInput(this.taskId, key, request).then(
        (after) => {
          if (after === undefined) this.settleParked(key, undefined, new JanusError('PROTOCOL', `task ${this.taskId} is over`));
        },
        (e: unknown) => this.settleParked(key, undefined, e),
      );
    });
  }

  /** 2026: answers taken from a `tasks/update` (here or on another instance). */
  deliver(responses: Record<string, unknown>): void {
    for (const [key, answer] of Object.entries(responses)) this.settleParked(key, answer, undefined);
  }

  private settleParked(key: string, answer: unknown, error: unknown): void {
    const parked = this.parked;
    const p = parked?.get(key);
    if (parked === undefined || p === undefined) return;
    parked.delete(key);
    if (error !== undefined) p.reject(error);
    else p.resolve(answer);
  }

  /** 2025-11-25: one more (+1) or one fewer (-1) request to the client in flight; the task is input_required while any is. */
  async waiting(delta: 1 | -1): Promise<void> {
    this.asking += delta;
    if (delta === 1 && this.asking === 1) await this.runtime.change(this.taskId, { status: 'input_required' });
    if (delta === -1 && this.asking === 0 && !this.cancel.aborted) await this.runtime.change(this.taskId, { status: 'working' });
  }

  setStatusMessage(message: string): void {
    this.runtime.change(this.taskId, { statusMessage: message }).catch(() => undefined);
  }

  /** Cancelled or expired: the handler's signal aborts and its pending asks fail. */
  abort(reason: unknown): void {
    this.cancel.abort(reason);
    if (this.parked !== undefined) for (const key of [...this.parked.keys()]) this.settleParked(key, undefined, reason);
    this.end();
  }

  /** The handler is done (or given up): the runtime forgets the task (and so stops watching its lifetime). */
  end(): void {
    this.runtime.finished(this);
  }
}
