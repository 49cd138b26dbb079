/**
 * The handshake era's half of the HTTP transport, as the registering file (../eras.ts) reaches
 * it: the session endpoint, its options, and the public in-memory event store.
 */
export { legacyEndpoint } from './endpoint.js';
export type { LegacyHttpOptions } from './options.js';
export { InMemoryEventStore, type InMemoryEventStoreOptions } from './event-store.js';
export type { EventStore } from '../../../server/legacy/index.js';
