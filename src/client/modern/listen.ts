/**
 * `client.listen()` on the modern wire: one `subscriptions/listen` request per stream
 * (2026-07-28 basic/patterns/subscriptions.mdx), its notifications told apart by the
 * subscription id in `_meta` (the listen request's id). No server state survives a dropped
 * stream, so a dropped one is simply issued again, after a short backoff.
 */
import { JanusError } from '../../protocol/errors.js';
import type { JsonRpcNotification, RequestId } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import type { Meta, SubscriptionFilter } from '../../protocol/types.js';
import { ListenStream, type QueueBound } from '../listen-stream.js';
import type { CallOptions } from '../peer.js';
import type { RequestParams } from './envelope.js';

/** Sends one `subscriptions/listen` request with `id` (modern/connection.ts: through the middleware); resolves when the stream ends. */
export type ListenSend = (params: RequestParams, options: CallOptions, id: number) => Promise<unknown>;

export class ModernListens {
  /** Open streams by subscription id (= the id of their listen request). */
  private readonly byId = new Map<RequestId, ListenStream>();

  constructor(
    private readonly send: ListenSend,
    private readonly newId: () => number,
    private readonly bound: QueueBound = {},
  ) {}

  /** Takes a notification of an open subscription (its acknowledgement is dropped); false if it is not one. */
  toStream(n: JsonRpcNotification): boolean {
    const params: { _meta?: Meta } | undefined = n.params;
    const id = params?._meta?.[META.subscriptionId];
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    const stream = this.byId.get(id);
    if (!stream) return false;
    if (n.method !== 'notifications/subscriptions/acknowledged') stream.push(n);
    return true;
  }

  open(filter: SubscriptionFilter, signal: AbortSignal | undefined): ListenStream {
    const stream = new ListenStream(signal, this.bound);
    stream.onEnd(() => {
      for (const [id, other] of this.byId) if (other === stream) this.byId.delete(id);
    });
    if (!stream.done) void this.run(stream, filter);
    return stream;
  }

  private async run(stream: ListenStream, filter: SubscriptionFilter): Promise<void> {
    const signal = stream.stopped;
    let delay = 250;
    while (!stream.done) {
      const id = this.newId();
      this.byId.set(id, stream);
      try {
        await this.send({ notifications: filter }, { signal, timeoutMs: 0 }, id);
        // A graceful end from the server: the subscription is over.
        stream.end();
        return;
      } catch (e) {
        this.byId.delete(id);
        if (stream.done || signal.aborted || (e instanceof JanusError && e.code === 'TRANSPORT_CLOSED')) break;
        // The stream dropped: re-issue the listen after a short backoff.
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
    stream.end();
  }

  endAll(): void {
    for (const stream of [...this.byId.values()]) stream.end();
  }
}
