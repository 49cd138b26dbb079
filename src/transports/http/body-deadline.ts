/**
 * The body deadline (`bodyTimeoutMs`): a POST whose body is still arriving that long after the
 * handler started reading it is cut off with 408, so a client sending a byte every few seconds
 * cannot hold a connection for minutes. One shared, unref'd timer for all reads, not one per
 * request; it stops when nothing is being read. Runtime-neutral.
 */
import type { HttpExchange } from './exchange.js';
import { unrefTimer } from './sse.js';

export class BodyDeadlines {
  /** Exchanges reading a body, with their deadlines (Date.now() based). */
  readonly #reading = new Map<HttpExchange, number>();
  readonly #timeoutMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  start(ex: HttpExchange): void {
    this.#reading.set(ex, Date.now() + this.#timeoutMs);
    if (this.#timer === undefined) {
      // A deadline is met to within a quarter of the timeout (at most a second late).
      this.#timer = setInterval(() => this.#check(), Math.max(10, Math.min(1000, this.#timeoutMs / 4)));
      unrefTimer(this.#timer);
    }
  }

  done(ex: HttpExchange): void {
    this.#reading.delete(ex);
  }

  #check(): void {
    if (this.#reading.size === 0) {
      // Stopped here rather than in done(): a busy server keeps one timer instead of one per request.
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = Date.now();
    for (const [ex, deadline] of this.#reading) {
      if (deadline > now) continue;
      this.#reading.delete(ex);
      ex.expireBody();
    }
  }

  /** Stops the timer (handler shutdown). */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#reading.clear();
  }
}
