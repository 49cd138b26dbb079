/**
 * The handshake era's stores on Redis: its shared sessions (and the signals between the
 * instances serving them) and its SSE events, each under its key in `Cluster.stores`.
 */
import { EVENT_STORE, SESSION_STORE } from '../../server/legacy/spi.js';
import type { ClusterStores } from '../../spi/index.js';
import type { RedisLink } from '../link.js';
import type { LegacyStoreOptions } from '../era.js';
import { RedisEventStore } from './event-store.js';
import { RedisSessionStore } from './session-store.js';

/** Starts the era's stores and adds them to `stores`. */
export async function addLegacyStores(stores: ClusterStores, link: RedisLink, o: LegacyStoreOptions): Promise<void> {
  const sessions = new RedisSessionStore(link, {
    prefix: o.prefix,
    commandTimeoutMs: o.commandTimeoutMs,
    onError: o.onError,
  });
  await sessions.start();
  const events = new RedisEventStore(link, {
    ...o.events,
    prefix: o.prefix,
    commandTimeoutMs: o.commandTimeoutMs,
    onError: o.onError,
  });
  stores.set(SESSION_STORE, sessions).set(EVENT_STORE, events);
}

export { RedisEventStore, type RedisEventStoreOptions } from './event-store.js';
export { RedisSessionStore, type RedisSessionStoreOptions } from './session-store.js';
