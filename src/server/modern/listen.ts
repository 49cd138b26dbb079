/**
 * `subscriptions/listen` streams of this process (basic/patterns/subscriptions.mdx). Kept
 * in one set per topic so a change reaches 10,000 streams by walking one set; each
 * notification carries its stream's subscription id.
 */
import { META } from '../../protocol/meta.js';
import { resultResponse, type JsonRpcMessage, type JsonRpcNotification, type RequestId } from '../../protocol/jsonrpc.js';
import type { Implementation, SubscriptionFilter } from '../../protocol/types.js';
import type { Abortable, InflightRegistry } from '../cancel.js';
import type { ListKind } from '../registry.js';
import type { Inbound } from '../transport-seam.js';
import { extend } from '../../protocol/extend.js';

export interface Listener {
  readonly id: RequestId;
  readonly filter: SubscriptionFilter;
  /** Extensions' topics it holds (extension.ts `ListenGrant`), e.g. one task's status. */
  readonly topics: readonly string[];
  /** The channel it was opened on, so a transport shutting down can end its own streams. */
  readonly channel: Inbound;
  send(message: JsonRpcMessage): void;
  /** Server-initiated end: answer the listen request and close. */
  end(): void;
}

export class ListenHub {
  private readonly lists: Record<ListKind, Set<Listener>> = { tools: new Set(), prompts: new Set(), resources: new Set() };
  private readonly byUri = new Map<string, Set<Listener>>();
  private readonly byTopic = new Map<string, Set<Listener>>();
  private readonly all = new Set<Listener>();

  get size(): number {
    return this.all.size;
  }

  add(l: Listener): void {
    this.all.add(l);
    if (l.filter.toolsListChanged) this.lists.tools.add(l);
    if (l.filter.promptsListChanged) this.lists.prompts.add(l);
    if (l.filter.resourcesListChanged) this.lists.resources.add(l);
    for (const uri of l.filter.resourceSubscriptions ?? []) {
      let set = this.byUri.get(uri);
      if (!set) this.byUri.set(uri, (set = new Set()));
      set.add(l);
    }
    for (const topic of l.topics) {
      let set = this.byTopic.get(topic);
      if (!set) this.byTopic.set(topic, (set = new Set()));
      set.add(l);
    }
  }

  remove(l: Listener): void {
    if (!this.all.delete(l)) return;
    this.lists.tools.delete(l);
    this.lists.prompts.delete(l);
    this.lists.resources.delete(l);
    for (const uri of l.filter.resourceSubscriptions ?? []) {
      const set = this.byUri.get(uri);
      if (set?.delete(l) && set.size === 0) this.byUri.delete(uri);
    }
    for (const topic of l.topics) {
      const set = this.byTopic.get(topic);
      if (set?.delete(l) && set.size === 0) this.byTopic.delete(topic);
    }
  }

  listChanged(kind: ListKind): void {
    const method = `notifications/${kind}/list_changed`;
    for (const l of this.lists[kind]) l.send({ jsonrpc: '2.0', method, params: { _meta: { [META.subscriptionId]: l.id } } });
  }

  resourceUpdated(uri: string): void {
    const set = this.byUri.get(uri);
    if (!set) return;
    for (const l of set)
      l.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri, _meta: { [META.subscriptionId]: l.id } } });
  }

  /** An extension's notification to the streams holding `topic`, each with its subscription id. */
  topic(topic: string, n: JsonRpcNotification): void {
    const set = this.byTopic.get(topic);
    if (!set) return;
    for (const l of set) {
      const _meta = extend((n.params?._meta as object | undefined) ?? {}, { [META.subscriptionId]: l.id });
      l.send({ jsonrpc: '2.0', method: n.method, params: extend(n.params ?? {}, { _meta }) });
    }
  }

  endAll(): void {
    for (const l of [...this.all]) l.end();
  }

  endWhere(test: (l: Listener) => boolean): void {
    for (const l of [...this.all]) if (test(l)) l.end();
  }
}

/** What a listen stream needs of its server: the hub it joins and the info its final result carries. */
export interface ListenServer {
  readonly hub: ListenHub;
  readonly info: Implementation;
}

/**
 * One open listen stream. A class rather than closures: a server may hold 10,000 of them,
 * so each costs one object (plus, on a channel without `watch`, its promise), and it is its
 * own abort listener.
 */
export class Subscription implements Listener, Abortable {
  private graceful = false;
  private done = false;
  /** Watched through the channel's `watch` (HTTP), rather than a listener on its signal. */
  private watched = false;

  constructor(
    private readonly server: ListenServer,
    readonly id: RequestId,
    readonly filter: SubscriptionFilter,
    readonly topics: readonly string[],
    readonly channel: Inbound,
    /** stdio: `notifications/cancelled` ends it too. */
    private readonly inflight: InflightRegistry | undefined,
    /** Settles `listen`'s promise; undefined on a watched channel, which `unwatch` tells instead. */
    private readonly resolve: (() => void) | undefined,
  ) {}

  start(): void {
    // subscriptions.mdx: the acknowledgement is the first message of the subscription.
    this.channel.send({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: this.filter, _meta: { [META.subscriptionId]: this.id } },
    });
    const channel = this.channel;
    if (channel.watch !== undefined) {
      this.watched = true;
      channel.watch(this); // calls abort() at once when the channel is already gone
      if (this.done) return;
    } else {
      const signal = channel.signal;
      if (signal?.aborted) {
        this.stop();
        return;
      }
      signal?.addEventListener('abort', this, { once: true });
    }
    this.inflight?.set(this.id, this);
    this.server.hub.add(this);
  }

  send(message: JsonRpcMessage): void {
    this.channel.send(message);
  }

  /** Server-initiated end: a final result, then close. */
  end(): void {
    this.graceful = true;
    this.stop();
  }

  /** Cancelled by the client (stdio notification) or the stream went away (HTTP). */
  abort(): void {
    this.stop();
  }

  handleEvent(): void {
    this.stop();
  }

  private stop(): void {
    if (this.done) return;
    this.done = true;
    this.server.hub.remove(this);
    this.inflight?.delete(this.id);
    if (!this.watched) this.channel.signal?.removeEventListener('abort', this);
    if (this.graceful) {
      this.channel.send(
        resultResponse(this.id, { resultType: 'complete', _meta: { [META.subscriptionId]: this.id, [META.serverInfo]: this.server.info } }),
      );
    }
    // The last thing: a watched channel's payload is over at unwatch (transport-seam.ts).
    if (this.watched) this.channel.unwatch?.(this);
    this.resolve?.();
  }
}
