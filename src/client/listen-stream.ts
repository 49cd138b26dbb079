/**
 * One `client.listen()` stream: an async iterator of notifications, ended by the caller's
 * signal, by `return()` (a `break` out of `for await`), or by the client closing. Each era
 * fills it its own way (modern/listen.ts, legacy/listen.ts).
 */
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';

export class ListenStream implements AsyncIterableIterator<JsonRpcNotification> {
  private readonly items: JsonRpcNotification[] = [];
  private waiting: ((r: IteratorResult<JsonRpcNotification>) => void) | undefined;
  private readonly stopper = new AbortController();
  private readonly cleanups: Array<() => void> = [];
  private readonly onAbort = () => this.end();
  private ended = false;

  constructor(private readonly signal: AbortSignal | undefined) {
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
