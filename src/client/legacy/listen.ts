/**
 * `client.listen()` on a legacy session, which has no `subscriptions/listen`: the filter's
 * resources are subscribed to (`resources/subscribe`, server/resources.mdx §Subscriptions)
 * and the session's own notifications that match the filter are passed on. The session
 * keeps the subscriptions, so a replaced session gets them again (`resubscribe`).
 */
import type { JsonRpcNotification } from '../../protocol/jsonrpc.js';
import type { SubscriptionFilter } from '../../protocol/types.js';
import { ListenStream, type QueueBound } from '../listen-stream.js';

const LIST_METHODS: Record<string, keyof SubscriptionFilter> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

function matches(filter: SubscriptionFilter, n: JsonRpcNotification): boolean {
  const key = LIST_METHODS[n.method];
  if (key) return filter[key] === true;
  if (n.method === 'notifications/resources/updated') return !!filter.resourceSubscriptions?.includes(String(n.params?.uri));
  return false;
}

/** How the session is asked (legacy/connection.ts: with session renewal). */
export type SessionRequest = (method: string, params: Record<string, unknown>) => Promise<unknown>;

export class LegacyListens {
  private readonly filters = new Map<ListenStream, SubscriptionFilter>();

  constructor(
    private readonly request: SessionRequest,
    private readonly bound: QueueBound = {},
  ) {}

  /** Passes a matching notification to each stream that asked for it; it goes on to everyone else too (false). */
  toStream(n: JsonRpcNotification): boolean {
    for (const [stream, filter] of this.filters) if (matches(filter, n)) stream.push(n);
    return false;
  }

  open(filter: SubscriptionFilter, signal: AbortSignal | undefined): ListenStream {
    const stream = new ListenStream(signal, this.bound);
    stream.onEnd(() => this.filters.delete(stream));
    if (!stream.done) void this.subscribe(stream, filter);
    return stream;
  }

  private async subscribe(stream: ListenStream, filter: SubscriptionFilter): Promise<void> {
    this.filters.set(stream, filter);
    for (const uri of filter.resourceSubscriptions ?? []) {
      await this.request('resources/subscribe', { uri }).catch(() => {});
    }
    stream.onEnd(() => {
      for (const uri of filter.resourceSubscriptions ?? []) void this.request('resources/unsubscribe', { uri }).catch(() => {});
    });
  }

  /** A new session replaced an expired one: its resource subscriptions must be made again. */
  async resubscribe(): Promise<void> {
    for (const filter of this.filters.values()) {
      for (const uri of filter.resourceSubscriptions ?? []) await this.request('resources/subscribe', { uri }).catch(() => {});
    }
  }

  endAll(): void {
    for (const stream of [...this.filters.keys()]) stream.end();
  }
}
