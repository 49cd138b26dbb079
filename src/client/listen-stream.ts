/**
 * One `client.listen()` stream: an async iterator of notifications, ended by the caller's
 * signal, by `return()` (a `break` out of `for await`), or by the client closing. Each era
 * fills it its own way (modern/listen.ts, legacy/listen.ts). Notifications not yet read wait
 * in a queue of at most `maxQueuedNotifications`: a server cannot grow it without limit
 * while the reader is slow. When it is full the oldest goes, and `onWarning` says so.
 */
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import { DEFAULT_MAX_QUEUED_NOTIFICATIONS } from './limits.js';

/** The queue's bound and where an overflow is reported (the connect options of these names). */
export interface QueueBound {
  readonly maxQueuedNotifications?: number;
  readonly onWarning?: (message: string) => void;
}

export class ListenStream implements AsyncIterableIterator<JsonRpcNotification> {
  private readonly items: JsonRpcNotification[] = [];
  private waiting: ((r: IteratorResult<JsonRpcNotification>) => void) | undefined;
  private readonly stopper = new AbortController();
  private readonly cleanups: Array<() => void> = [];
  private readonly onAbort = () => this.end();
  private ended = false;
  private readonly max: number;
  /** Notifications dropped since the queue last emptied. */
  private dropped = 0;

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly bound: QueueBound = {},
  ) {
    this.max = bound.maxQueuedNotifications ?? DEFAULT_MAX_QUEUED_NOTIFICATIONS;
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (signal?.aborted) this.end();
  }

  get done(): boolean {
    return this.ended;
  }

  /** Aborts when the stream ends: what feeds it stops. */
  get stopped(): AbortSignal {
    return this.stopper.signal;
  }

  /** Runs `cleanup` when the stream ends (in the order given); never once it has. */
  onEnd(cleanup: () => void): void {
    if (!this.ended) this.cleanups.push(cleanup);
  }

  push(n: JsonRpcNotification): void {
    if (this.ended) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: n, done: false });
    } else {
      if (this.items.length >= this.max) {
        this.items.shift();
        if (this.dropped++ === 0) {
          (this.bound.onWarning ?? console.warn)(
            `a listen stream has ${this.max} notifications nobody has read yet (maxQueuedNotifications): the oldest are dropped until the reader catches up`,
          );
        }
      }
      this.items.push(n);
    }
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.stopper.abort();
    this.signal?.removeEventListener('abort', this.onAbort);
    for (const cleanup of this.cleanups) cleanup();
    if (this.waiting) this.waiting({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<JsonRpcNotification>> {
    const item = this.items.shift();
    if (this.items.length === 0) this.dropped = 0;
    if (item) return Promise.resolve({ value: item, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((r) => (this.waiting = r));
  }

  return(): Promise<IteratorResult<JsonRpcNotification>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
