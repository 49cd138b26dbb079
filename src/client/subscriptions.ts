/**
 * `client.listen()`: modern `subscriptions/listen` streams (demultiplexed by subscription
 * id, re-issued when the stream drops, since no server state survives a reconnect), or on a
 * legacy session the same filter served from `resources/subscribe` and the session's
 * unsolicited notifications.
 */
import { JanusError } from '../protocol/errors.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import type { SubscriptionFilter } from '../protocol/types.js';
import type { Client } from './client.js';

class Queue implements AsyncIterableIterator<JsonRpcNotification> {
  private readonly items: JsonRpcNotification[] = [];
  private waiting: ((r: IteratorResult<JsonRpcNotification>) => void) | undefined;
  done = false;
  onEnd: () => void = () => {};

  push(n: JsonRpcNotification): void {
    if (this.done) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: n, done: false });
    } else {
      this.items.push(n);
    }
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.onEnd();
    if (this.waiting) this.waiting({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<JsonRpcNotification>> {
    const item = this.items.shift();
    if (item) return Promise.resolve({ value: item, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
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

export class Subscriptions {
  /** Modern streams by subscription id (= the listen request's id). */
  private readonly byId = new Map<string | number, Queue>();
  /** Legacy emulations. */
  private readonly legacy = new Map<Queue, SubscriptionFilter>();

  constructor(private readonly client: Client) {}

  /** Takes a notification meant for a listen stream; false if it is not one. */
  route(n: JsonRpcNotification): boolean {
    const id = (n.params?._meta as Record<string, unknown> | undefined)?.[META.subscriptionId];
    if (id !== undefined && (typeof id === 'string' || typeof id === 'number')) {
      const q = this.byId.get(id);
      if (q) {
        if (n.method !== 'notifications/subscriptions/acknowledged') q.push(n);
        return true;
      }
    }
    for (const [q, filter] of this.legacy) if (matches(filter, n)) q.push(n);
    return false;
  }

  open(filter: SubscriptionFilter, signal: AbortSignal | undefined): Queue {
    const q = new Queue();
    const stop = new AbortController();
    const onAbort = () => q.end();
    signal?.addEventListener('abort', onAbort, { once: true });
    q.onEnd = () => {
      stop.abort();
      signal?.removeEventListener('abort', onAbort);
      this.legacy.delete(q);
      for (const [id, other] of this.byId) if (other === q) this.byId.delete(id);
    };
    if (signal?.aborted) q.end();
    else if (this.client.era === 'modern') void this.runModern(q, filter, stop.signal);
    else void this.runLegacy(q, filter);
    return q;
  }

  private async runModern(q: Queue, filter: SubscriptionFilter, signal: AbortSignal): Promise<void> {
    let delay = 250;
    while (!q.done) {
      const id = this.client.rawPeer.newId();
      this.byId.set(id, q);
      try {
        await this.client.modernRequest('subscriptions/listen', { notifications: filter }, { signal, timeoutMs: 0 }, undefined, id);
        // A graceful end from the server: the subscription is over.
        q.end();
        return;
      } catch (e) {
        this.byId.delete(id);
        if (q.done || signal.aborted || (e instanceof JanusError && e.code === 'TRANSPORT_CLOSED')) break;
        // The stream dropped: re-issue the listen after a short backoff.
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
    q.end();
  }

  private async runLegacy(q: Queue, filter: SubscriptionFilter): Promise<void> {
    this.legacy.set(q, filter);
    for (const uri of filter.resourceSubscriptions ?? []) {
      await this.client.request('resources/subscribe', { uri }).catch(() => {});
    }
    const prev = q.onEnd;
    q.onEnd = () => {
      prev();
      for (const uri of filter.resourceSubscriptions ?? []) void this.client.request('resources/unsubscribe', { uri }).catch(() => {});
    };
  }

  /** A legacy session was replaced: its resource subscriptions must be made again. */
  async resubscribe(): Promise<void> {
    for (const filter of this.legacy.values()) {
      for (const uri of filter.resourceSubscriptions ?? []) await this.client.request('resources/subscribe', { uri }).catch(() => {});
    }
  }

  channelClosed(): void {
    // Modern streams re-issue on their own; nothing to do for legacy emulations until close.
  }

  closeAll(): void {
    for (const q of [...this.byId.values(), ...this.legacy.keys()]) q.end();
  }
}
