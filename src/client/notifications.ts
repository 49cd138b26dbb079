/**
 * Where the server's notifications go, in order: the response cache drops what they make
 * stale; a listen stream takes those meant for it (a modern subscription's, by id); the
 * rest reach `onNotification` and every listener the caller registered.
 */
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { ResponseCache } from './cache.js';
import type { ConnectOptions } from './options.js';

export type NotificationListener = (notification: JsonRpcNotification) => void;

export class NotificationFanOut {
  private readonly listeners = new Set<NotificationListener>();

  constructor(
    private readonly options: ConnectOptions,
    private readonly cache: ResponseCache | undefined,
    /** True when a listen stream took the notification (it goes no further). */
    private readonly toStream: (notification: JsonRpcNotification) => boolean,
  ) {}

  add(listener: NotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  deliver(n: JsonRpcNotification): void {
    this.cache?.invalidate(n);
    if (this.toStream(n)) return;
    this.options.onNotification?.(n);
    for (const l of this.listeners) l(n);
  }
}
