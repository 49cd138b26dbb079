/**
 * A request's cancellation state. Most handlers never look at `ctx.signal`, so the
 * AbortSignal (and the listener on the channel's own signal) is made only when one does:
 * an AbortController per request, let alone `AbortSignal.any`, is measurable on the hot path.
 */
import type { RequestId } from '../protocol/jsonrpc.js';

/** What in-flight maps hold: anything `notifications/cancelled` can abort. */
export interface Abortable {
  abort(reason?: unknown): void;
}

export class Cancellation implements Abortable {
  aborted = false;
  reason: unknown;
  private controller: AbortController | undefined;
  private unlisten: (() => void) | undefined;

  /** `upstream`: the channel, whose own signal (if it has one) also cancels this request, unless it says dropping does not (`Inbound.cancelsOnDrop`). */
  constructor(private readonly upstream?: { readonly signal?: AbortSignal | undefined; readonly cancelsOnDrop?: boolean }) {}

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = (this.controller = new AbortController());
    if (this.aborted) {
      controller.abort(this.reason);
    } else {
      const up = this.upstream?.cancelsOnDrop === false ? undefined : this.upstream?.signal;
      if (up?.aborted) this.abort(up.reason);
      else if (up) {
        const onAbort = () => this.abort(up.reason);
        up.addEventListener('abort', onAbort, { once: true });
        this.unlisten = () => up.removeEventListener('abort', onAbort);
      }
    }
    return controller.signal;
  }

  /**
   * The request is over: stop listening to the channel's signal, which outlives it (a stdio
   * channel serves thousands of requests; a listener left on it per request is a leak).
   */
  release(): void {
    this.unlisten?.();
    this.unlisten = undefined;
  }
}

/**
 * The in-flight requests of a channel that cancels by notification (stdio's legacy session),
 * by request id, so `notifications/cancelled` can reach modern requests and listen streams too.
 */
export interface InflightRegistry {
  /** How many are in flight (limits.maxInFlightPerSession). */
  readonly size: number;
  get(id: RequestId): Abortable | undefined;
  set(id: RequestId, request: Abortable): unknown;
  delete(id: RequestId): unknown;
}
