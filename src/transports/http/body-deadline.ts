/**
 * The body deadline (`bodyTimeoutMs`): a POST whose body is still arriving that long after the
 * handler started reading it is cut off with 408, so a client sending a byte every few seconds
 * cannot hold a connection for minutes. One shared, unref'd timer for all reads, not one per
 * request; it stops when nothing is being read. Reads are a list in the order they started,
 * which is their deadlines' order: starting and finishing one is a few pointer writes, and the
 * timer looks only at the expired ones at the head. Runtime-neutral.
 */
import type { HttpExchange } from './exchange.js';
import { unrefTimer } from './sse.js';

/** A body being read: `done` takes it back. */
export interface Reading {
  ex: HttpExchange | undefined;
  readonly deadline: number;
  prev: Reading | undefined;
  next: Reading | undefined;
}

export class BodyDeadlines {
  readonly #timeoutMs: number;
  #head: Reading | undefined;
  #tail: Reading | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  start(ex: HttpExchange): Reading {
    const reading: Reading = { ex, deadline: Date.now() + this.#timeoutMs, prev: this.#tail, next: undefined };
    if (this.#tail === undefined) this.#head = reading;
    else this.#tail.next = reading;
    this.#tail = reading;
    if (this.#timer === undefined) {
      // A deadline is met to within a quarter of the timeout (at most a second late).
      this.#timer = setInterval(() => this.#check(), Math.max(10, Math.min(1000, this.#timeoutMs / 4)));
      unrefTimer(this.#timer);
    }
    return reading;
  }

  done(reading: Reading): void {
    if (reading.ex === undefined) return; // expired, or already done
    reading.ex = undefined;
    const { prev, next } = reading;
    if (prev === undefined) this.#head = next;
    else prev.next = next;
    if (next === undefined) this.#tail = prev;
    else next.prev = prev;
    reading.prev = reading.next = undefined;
  }

  #check(): void {
    if (this.#head === undefined) {
      // Stopped here rather than in done(): a busy server keeps one timer instead of one per request.
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = Date.now();
    while (this.#head !== undefined && this.#head.deadline <= now) {
      const reading = this.#head;
      const ex = reading.ex!;
      this.done(reading);
      ex.expireBody();
    }
  }

  /** Stops the timer (handler shutdown). */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (let r = this.#head; r !== undefined; r = r.next) r.ex = undefined;
    this.#head = this.#tail = undefined;
  }
}
