/**
 * eras.ts of a build without the handshake era (`npm run build:modern-only`): the endpoint
 * serves 2026-07-28 alone (a GET or DELETE is 405, an `initialize` POST gets -32022 naming
 * what the server speaks), and there are no legacy options nor event store.
 */
import { JanusError } from '../../protocol/errors.js';
import type { EventLog } from './channel.js';
import type { LegacyHalfFactory } from './era.js';

/** The endpoint's handshake-era half: none. */
export const LEGACY_ENDPOINT: LegacyHalfFactory | undefined = undefined;

/** No options of the handshake era. */
export type LegacyHttpOptions = Record<never, never>;
export type EventStore = EventLog;
export type InMemoryEventStoreOptions = Record<never, never>;

/** SSE resumption belongs to the handshake era, which this build leaves out. */
export class InMemoryEventStore {
  constructor() {
    throw new JanusError('PROTOCOL', 'this build of janus-mcp serves only 2026-07-28, whose streams are not resumable: no event store');
  }
}
