/**
 * `subscriptions/listen` streams of this process (basic/patterns/subscriptions.mdx). Kept
 * in one set per topic so a change reaches 10,000 streams by walking one set; each
 * notification carries its stream's subscription id.
 */
import { META } from '../../protocol/meta.js';
import type { JsonRpcMessage, RequestId } from '../../protocol/jsonrpc.js';
import type { SubscriptionFilter } from '../../protocol/types.js';
import type { ListKind } from '../registry.js';
import type { Inbound } from '../inbound.js';

export interface Listener {
  readonly id: RequestId;
  readonly filter: SubscriptionFilter;
  /** The channel it was opened on, so a transport shutting down can end its own streams. */
  readonly channel: Inbound;
  send(message: JsonRpcMessage): void;
  /** Server-initiated end: answer the listen request and close. */
  end(): void;
}

export class ListenHub {
  private readonly lists: Record<ListKind, Set<Listener>> = { tools: new Set(), prompts: new Set(), resources: new Set() };
  private readonly byUri = new Map<string, Set<Listener>>();
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
  }

  remove(l: Listener): void {
    if (!this.all.delete(l)) return;
    this.lists.tools.delete(l);
    this.lists.prompts.delete(l);
    this.lists.resources.delete(l);
    for (const uri of l.filter.resourceSubscriptions ?? []) {
      const set = this.byUri.get(uri);
      if (set && set.delete(l) && set.size === 0) this.byUri.delete(uri);
    }
  }

  listChanged(kind: ListKind): void {
    const method = `notifications/${kind}/list_changed`;
    for (const l of this.lists[kind]) l.send({ jsonrpc: '2.0', method, params: { _meta: { [META.subscriptionId]: l.id } } });
  }

  resourceUpdated(uri: string): void {
    const set = this.byUri.get(uri);
    if (!set) return;
    for (const l of set) l.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri, _meta: { [META.subscriptionId]: l.id } } });
  }

  endAll(): void {
    for (const l of [...this.all]) l.end();
  }

  endWhere(test: (l: Listener) => boolean): void {
    for (const l of [...this.all]) if (test(l)) l.end();
  }
}
