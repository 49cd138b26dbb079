/**
 * `janus-mcp/spi/legacy`: what the authors of a cluster's stores need of the handshake era
 * (2024-11-05 … 2025-11-25): the shared session records and their signals, the SSE event
 * store, and the keys they go under in `Cluster.stores`. A build without that era has none.
 *
 * @module janus-mcp/spi/legacy
 */
export { SESSION_STORE, EVENT_STORE } from './session-store-keys.js';
export type {
  SessionStore,
  SessionRecord,
  NewSessionRecord,
  SessionSignal,
  ExpiredSession,
  SubscribeOutcome,
  EventStore,
  ListKind,
} from './session-store.js';
