/** The keys of the handshake era's stores in a cluster (`Cluster.stores`). */
import { StoreKey } from '../cluster.js';
import type { EventStore, SessionStore } from './session-store.js';

/** The cluster's store of handshake-era sessions (`Cluster.stores`). */
export const SESSION_STORE = new StoreKey<SessionStore>('janus-mcp/sessions');
/** The cluster's store of SSE events, so a client resumes its stream on any instance (`Cluster.stores`). */
export const EVENT_STORE = new StoreKey<EventStore>('janus-mcp/events');
