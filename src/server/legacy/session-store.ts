/**
 * What the instances of a cluster share of their legacy (2025 Streamable HTTP) sessions, so
 * that any instance serves any session (docs/scale-out.md): the session's record (what
 * `initialize` negotiated, the log level, the resource subscriptions, the lists changed since
 * the client fetched them, which instance holds its GET stream), the signals the instances
 * send each other about a session, and the SSE events a client may resume from.
 * `janus-mcp/redis` implements it on Redis; without a cluster, sessions live in their process.
 */
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../protocol/types.js';
import type { ListKind } from '../registry.js';

export type { ListKind };

/** A session as `initialize` left it: what its record starts with. */
export interface NewSessionRecord {
  /** The revision `initialize` negotiated. */
  readonly protocolVersion: string;
  /** The client's name and version, from `initialize`. */
  readonly clientInfo?: Implementation;
  /** The client's capabilities, from `initialize`. */
  readonly clientCapabilities: ClientCapabilities;
  /** Who opened it, when the transport authenticated them (an OAuth subject): only they may use it, on any instance. */
  readonly principal?: string;
}

/** A session's shared record, as one instance loads it. */
export interface SessionRecord extends NewSessionRecord {
  /** `notifications/initialized` arrived (on any instance). */
  readonly initialized: boolean;
  /** The level set by `logging/setLevel`, if any. */
  readonly logLevel?: LoggingLevel;
  /** The resource URIs the client subscribed to. */
  readonly subscriptions: readonly string[];
  /**
   * Lists that changed since the client last fetched them and whose change did not reach it
   * live since (the "changed since last fetched" marker): they are announced again on its
   * next response stream.
   */
  readonly unannounced: readonly ListKind[];
  /** The instance holding the session's GET stream, if one does. */
  readonly holder?: string;
}

/** A session whose record expired in the store, unused by every instance for its idle time. */
export interface ExpiredSession {
  readonly id: string;
  /** What `initialize` left in its record. */
  readonly record: NewSessionRecord;
}

/** What one instance tells another (or all) about a session. */
export type SessionSignal =
  /**
   * Write this on the session's GET stream (the sender believes the receiver holds it; one that
   * no longer does passes it on once, `forwarded`, to the holder it finds).
   */
  | { readonly type: 'deliver'; readonly session: string; readonly message: JsonRpcMessage; readonly forwarded?: boolean }
  /** The client's answer to one of the receiver's requests, POSTed to the sender. */
  | { readonly type: 'answer'; readonly session: string; readonly message: JsonRpcResponse }
  /** The client cancelled one of its requests; whoever runs it aborts it. */
  | { readonly type: 'cancel'; readonly session: string; readonly requestId: RequestId; readonly reason: string }
  /**
   * The session's record changed: what changed, for the holder of its GET stream to apply at
   * once (in order with the backplane's events); with nothing named, reload it.
   */
  | {
      readonly type: 'changed';
      readonly session: string;
      readonly logLevel?: LoggingLevel;
      readonly subscribed?: string;
      readonly unsubscribed?: string;
    }
  /** A message for the session's GET stream was stored: the instance holding the stream reads it. */
  | { readonly type: 'appended'; readonly session: string }
  /** Another instance took the session's GET stream: end yours. */
  | { readonly type: 'yield'; readonly session: string }
  /** The session ended (DELETE, or the server closed it): let it go. */
  | { readonly type: 'ended'; readonly session: string };

/** The outcome of a subscription, checked against the limit where the set is. */
export type SubscribeOutcome = 'ok' | 'full' | 'gone';

/**
 * The shared side of legacy sessions. Every method that returns a promise rejects when the
 * store cannot be reached; a session that does not exist (ended, or expired) is not an error.
 * `ttlMs` is how long a session may go unused before its record expires (the transport's
 * idle expiry); loads renew it, so that a session used within `ttlMs` does not expire.
 */
export interface SessionStore {
  /** This instance's id among the cluster's: unique, free of '.', '#' and whitespace. */
  readonly instanceId: string;
  /** Creates the record of a session whose `initialize` succeeded. */
  create(id: string, record: NewSessionRecord, ttlMs: number): Promise<void>;
  /**
   * The record, its expiry renewed; undefined when the session does not exist. A store may
   * answer from a copy of its own, so long as a change written through any instance (each
   * method below, once its promise resolved) and the session's end are seen by the next load on
   * every instance, and an active session does not expire.
   */
  load(id: string, ttlMs: number): Promise<SessionRecord | undefined>;
  /** Sets fields of the record; false when the session does not exist. */
  update(id: string, fields: { readonly initialized?: true; readonly logLevel?: LoggingLevel }): Promise<boolean>;
  /** Adds a subscription unless the session holds `max` already; also says who holds the GET stream. */
  subscribe(id: string, uri: string, max: number): Promise<{ outcome: SubscribeOutcome; holder?: string }>;
  /** Removes a subscription; says who holds the GET stream. */
  unsubscribe(id: string, uri: string): Promise<{ holder?: string }>;
  /** The client fetched the current list of `kind`: nothing to announce for it. */
  fetched(id: string, kind: ListKind): Promise<void>;
  /** The change of `kind` reached the client live on its GET stream. */
  told(id: string, kind: ListKind): Promise<void>;
  /** This instance now holds the session's GET stream; resolves to the instance that held it before, if another did. */
  hold(id: string): Promise<string | undefined>;
  /** This instance's GET stream for the session closed (a no-op if another instance holds it now). */
  unhold(id: string): Promise<void>;
  /** Deletes the record. */
  remove(id: string): Promise<void>;
  /** Sends a signal to one instance, or to every instance (this one included) when `to` is undefined. */
  signal(to: string | undefined, signal: SessionSignal): Promise<void>;
  /** Receives the signals sent to this instance; returns an unsubscribe function. */
  onSignal(handler: (signal: SessionSignal) => void): () => void;
  /**
   * Calls `handler` for each initialized session whose record expired unused (not one that was
   * removed), on one instance of the cluster, once: there its `onClosed` runs. Optional: with a
   * store without it, such sessions end without the hook. Returns an unsubscribe function.
   */
  onExpired?(handler: (expired: ExpiredSession) => void): () => void;
}

/**
 * SSE event storage for resuming legacy Streamable HTTP streams (2025-03-26 … 2025-11-25
 * transports §Resumability and Redelivery): `janus-mcp/http`'s `eventStore` option, and what a
 * cluster shares so that a client resumes its stream on any instance. 2026-07-28 streams are
 * never resumable, so only legacy sessions use it.
 */
export interface EventStore {
  /**
   * Stores one event of a stream and returns its id, which must be unique across all streams
   * and identify its stream. `message` is undefined for a priming event (2025-11-25): it only
   * reserves a resumption cursor and is never replayed. `json` is the message as the stream
   * writes it (`JSON.stringify(message)`), for stores that keep text.
   */
  append(streamId: string, message: JsonRpcMessage | undefined, json?: string): string | Promise<string>;
  /**
   * Calls `sink` in order for every stored message of the stream `lastEventId` belongs to that
   * came after it, and returns that stream's id; undefined when the id is unknown or expired.
   */
  replayAfter(
    lastEventId: string,
    sink: (eventId: string, message: JsonRpcMessage) => void,
  ): string | undefined | Promise<string | undefined>;
  /**
   * Forgets streams whose session ended (DELETE, idle expiry, shutdown): nothing can resume
   * them any more. Optional; a store without it keeps them until its own expiry.
   */
  deleteStreams?(streamIds: readonly string[]): void | Promise<void>;
}
