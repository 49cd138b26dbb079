/**
 * Server-Sent Events framing and the registry of open streams (keep-alive comments and
 * shutdown). Runtime-neutral.
 */
import type { HeaderMap, HttpExchange } from './exchange.js';

/**
 * Response headers of every SSE stream. `X-Accel-Buffering: no` keeps reverse proxies from
 * holding events back (2026-07-28 basic/transports/streamable-http.mdx §Receiving Messages).
 */
export const SSE_HEADERS: HeaderMap = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** A JSON-RPC message as an SSE `message` event. JSON text has no raw newlines, so one `data:` line. */
export function messageEvent(json: string, id?: string): string {
  return id === undefined ? `event: message\ndata: ${json}\n\n` : `event: message\nid: ${id}\ndata: ${json}\n\n`;
}

/**
 * The priming event (2025-11-25 transports §Sending Messages to the Server, item 6): an id and
 * empty data, so the client holds a `Last-Event-ID` before anything else arrives, plus the
 * `retry:` the client must wait before polling again.
 */
export function primingEvent(id: string, retryMs: number): string {
  return `id: ${id}\nretry: ${retryMs}\ndata: \n\n`;
}

/** First event of a 2024-11-05 HTTP+SSE stream: where to POST (2024-11-05 transports §HTTP with SSE). */
export function endpointEvent(uri: string): string {
  return `event: endpoint\ndata: ${uri}\n\n`;
}

/** SSE comment: ignored by clients, keeps idle connections from being cut by intermediaries. */
export const KEEP_ALIVE = ':\n\n';

/**
 * Every open SSE response: one shared keep-alive timer for all of them (no timer per stream),
 * started with the first stream and stopped with the last, and a way to end them all.
 */
export class OpenStreams {
  readonly #open = new Set<HttpExchange>();
  readonly #intervalMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(keepAliveMs: number) {
    this.#intervalMs = keepAliveMs;
  }

  get size(): number {
    return this.#open.size;
  }

  add(ex: HttpExchange): void {
    this.#open.add(ex);
    if (this.#timer === undefined && this.#intervalMs > 0) {
      this.#timer = setInterval(() => this.#ping(), this.#intervalMs);
      unrefTimer(this.#timer);
    }
  }

  remove(ex: HttpExchange): void {
    this.#open.delete(ex);
    if (this.#open.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /**
   * Ends every open stream (server shutdown). Their owners are told first, as for a client
   * that went away: on the modern wire that cancels the request the stream belongs to.
   */
  endAll(): void {
    for (const ex of [...this.#open]) {
      this.remove(ex);
      ex.listener?.onDisconnect(ex);
      ex.end();
    }
  }

  #ping(): void {
    for (const ex of this.#open) {
      if (ex.open) ex.write(KEEP_ALIVE);
      else this.remove(ex);
    }
  }
}

/** Lets the process exit with idle timers pending, where the runtime supports it (Node, Bun). */
export function unrefTimer(t: unknown): void {
  if (typeof t === 'object' && t !== null && 'unref' in t && typeof t.unref === 'function') t.unref();
}
