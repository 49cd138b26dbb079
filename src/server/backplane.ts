/**
 * What must reach every instance of a server: registry changes, resource updates and
 * extensions' listen notifications.
 * In-process by default; a shared implementation (Redis) lets many processes behind a
 * load balancer tell all their open streams.
 */
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { ListKind } from './registry.js';

/**
 * What one instance tells every instance of the server through the {@link Backplane}: a list
 * changed, a resource was updated, or an extension published a notification on a topic.
 */
export type ServerEvent =
  | { type: 'list_changed'; kind: ListKind }
  | { type: 'resource_updated'; uri: string }
  /** An extension's notification for the listen streams holding `topic` (extension.ts `ExtensionHost.publish`). */
  | { type: 'topic'; topic: string; notification: JsonRpcNotification };

/**
 * Carries {@link ServerEvent}s to every instance of a server, so that each tells its own sessions
 * and listen streams. {@link LocalBackplane} is the default (this process only); `RedisBackplane`
 * (`janus-mcp/redis`) spans processes.
 */
export interface Backplane {
  /** Sends an event to every subscriber on every instance, this one included. */
  publish(event: ServerEvent): void;
  /** Returns an unsubscribe function. */
  subscribe(handler: (event: ServerEvent) => void): () => void;
}

/** The default {@link Backplane}: delivers events to this process's subscribers only, at once. */
export class LocalBackplane implements Backplane {
  private readonly handlers = new Set<(event: ServerEvent) => void>();
  /** Delivers the event to every subscriber, synchronously. */
  publish(event: ServerEvent): void {
    for (const h of this.handlers) h(event);
  }
  subscribe(handler: (event: ServerEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }
}
