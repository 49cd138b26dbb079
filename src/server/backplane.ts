/**
 * What must reach every instance of a server: registry changes and resource updates.
 * In-process by default; a shared implementation (Redis) lets many processes behind a
 * load balancer tell all their open streams.
 */
import type { ListKind } from './registry.js';

export type ServerEvent = { type: 'list_changed'; kind: ListKind } | { type: 'resource_updated'; uri: string };

export interface Backplane {
  publish(event: ServerEvent): void;
  /** Returns an unsubscribe function. */
  subscribe(handler: (event: ServerEvent) => void): () => void;
}

export class LocalBackplane implements Backplane {
  private readonly handlers = new Set<(event: ServerEvent) => void>();
  publish(event: ServerEvent): void {
    for (const h of this.handlers) h(event);
  }
  subscribe(handler: (event: ServerEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }
}
