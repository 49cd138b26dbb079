/**
 * What must reach every instance of a server: registry changes, resource updates and
 * extensions' listen notifications.
 * In-process by default; a shared implementation (Redis) lets many processes behind a
 * load balancer tell all their open streams.
 */
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { ListKind } from './registry.js';

export type ServerEvent =
  | { type: 'list_changed'; kind: ListKind }
  | { type: 'resource_updated'; uri: string }
  /** An extension's notification for the listen streams holding `topic` (extension.ts `ExtensionHost.publish`). */
  | { type: 'topic'; topic: string; notification: JsonRpcNotification };

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
