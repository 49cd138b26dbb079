/** The options of the handshake era's half of the endpoint, and their defaults. Runtime-neutral. */
import type { EventStore, SessionSeam } from '../../../server/legacy/index.js';
import { InMemoryEventStore } from './event-store.js';

export interface LegacyHttpOptions {
  /**
   * Where SSE events of legacy sessions are kept for `Last-Event-ID` resumption; `false`
   * disables it. Default: the server's cluster's (its `EVENT_STORE`), else one in memory.
   */
  eventStore?: EventStore | false;
  /**
   * Legacy sessions idle this long (no request, no open stream) are closed. Default 30 min.
   * With a cluster's shared sessions, an instance lets an idle one go and its shared record
   * expires after this long unused on every instance.
   */
  sessionIdleMs?: number;
  /** Most concurrent legacy sessions (Streamable HTTP and HTTP+SSE together). Default 10 000; one more gets 503. */
  maxSessions?: number;
  /**
   * Most concurrent legacy sessions per client address (an IPv6 address counts by its /64).
   * Default 1000; one more gets 429. Clients without a known address are not counted: on Node,
   * loopback peers (this machine, or a reverse proxy speaking for everyone: give it a
   * `clientAddress`); on the fetch handler, every client unless `clientAddress` is given.
   */
  maxSessionsPerClient?: number;
  /**
   * The SSE `retry:` field sent with priming events (2025-11-25 §Sending Messages to the Server,
   * item 6): how long a client waits before polling again after the server closed a stream.
   * Default 1000 ms: the server only closes streams mid-request on purpose, so a prompt poll is
   * what the handler wants (the official SDK's 5000 ms makes every poll a 5 s pause).
   */
  retryMs?: number;
  /** Serve the deprecated HTTP+SSE transport of 2024-11-05 on the same path. Default true. */
  legacySse?: boolean;
}

export interface ResolvedLegacyOptions {
  readonly eventStore: EventStore | undefined;
  readonly sessionIdleMs: number;
  readonly maxSessions: number;
  readonly maxSessionsPerClient: number;
  readonly retryMs: number;
  readonly legacySse: boolean;
}

/** `seam`: the server's era, whose cluster (if any) gives the default event store, shared by all its instances. */
export function resolveLegacyOptions(o: LegacyHttpOptions, seam: Pick<SessionSeam, 'eventStore'>): ResolvedLegacyOptions {
  return {
    eventStore: o.eventStore === false ? undefined : (o.eventStore ?? seam.eventStore ?? new InMemoryEventStore()),
    sessionIdleMs: o.sessionIdleMs ?? 30 * 60_000,
    maxSessions: o.maxSessions ?? 10_000,
    maxSessionsPerClient: o.maxSessionsPerClient ?? 1000,
    retryMs: o.retryMs ?? 1000,
    legacySse: o.legacySse ?? true,
  };
}
