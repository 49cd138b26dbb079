/**
 * The seam the handshake era's stores on Redis (legacy/) plug into `redisCluster` with. The one
 * registering file (eras.ts) names them; a build without the era has none.
 */
import type { ClusterStores } from '../spi/index.js';
import type { RedisLink } from './link.js';

export interface LegacyStoreOptions {
  readonly prefix: string;
  readonly commandTimeoutMs: number;
  readonly onError: (e: Error) => void;
  /** Bounds and expiry of the SSE events kept for resumption. */
  readonly events?: { readonly maxEventsPerStream?: number; readonly maxBytesPerStream?: number; readonly ttlMs?: number };
}

export interface LegacyStores {
  /** Starts the era's stores (shared sessions, SSE events) and adds them to `stores` under their keys. */
  add(stores: ClusterStores, link: RedisLink, options: LegacyStoreOptions): Promise<void>;
}
