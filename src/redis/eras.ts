/**
 * The one file of janus-mcp/redis that names the handshake era: its stores on Redis
 * (legacy/: shared sessions and SSE events). A build without the era (`npm run
 * build:modern-only`) puts eras.modern-only.ts here instead.
 */
import type { LegacyStores } from './era.js';
import { addLegacyStores } from './legacy/stores.js';

export const LEGACY_STORES: LegacyStores | undefined = { add: addLegacyStores };
export { RedisEventStore, RedisSessionStore } from './legacy/stores.js';
export type { RedisEventStoreOptions, RedisSessionStoreOptions } from './legacy/stores.js';
