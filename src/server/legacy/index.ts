/**
 * The handshake era's server side, as the rest of the build reaches it: the plug-in the core
 * registers (eras.ts), and what this era's session transports (transports/http/legacy) use.
 */
export { handshakeEra, provideSessionSeam, sessionSeamOf, type SessionSeam } from './era.js';
export { Session } from './session.js';
export type { LegacySession, SessionHost } from './transport-seam.js';
export type { EventStore, SessionStore, SessionRecord, SessionSignal, ListKind } from './session-store.js';
export { SESSION_STORE, EVENT_STORE } from './session-store-keys.js';
