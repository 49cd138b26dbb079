/**
 * The one file of the HTTP transport that names the handshake era: its half of the endpoint
 * (legacy/: sessions, GET streams, DELETE, HTTP+SSE), its options and its public event store.
 * A build without the era (`npm run build:modern-only`) puts eras.modern-only.ts here instead.
 */
import type { LegacyHalfFactory } from './era.js';
import { legacyEndpoint } from './legacy/index.js';

export const LEGACY_ENDPOINT: LegacyHalfFactory | undefined = legacyEndpoint;
export type { LegacyHttpOptions, EventStore, InMemoryEventStoreOptions } from './legacy/index.js';
export { InMemoryEventStore } from './legacy/index.js';
