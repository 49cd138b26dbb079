/**
 * What a session transport (Streamable HTTP, HTTP+SSE) gives a handshake-era session beyond a
 * message channel's host (server/channel.ts): in a cluster, how its record is shared and how
 * its GET stream's messages reach whichever instance holds the stream.
 */
import type { JsonRpcNotification } from '../../protocol/jsonrpc.js';
import type { LegacyVersion } from '../../protocol/versions.js';
import type { ChannelHost, ServerChannel } from '../channel.js';

/** Where a session's unsolicited messages go (stdio: stdout; HTTP: the GET stream). */
export interface SessionHost extends ChannelHost {
  /**
   * Set by a transport whose sessions any instance of a cluster may serve (Streamable HTTP):
   * with a cluster's session store, the session's record is shared, expiring after `ttlMs`
   * unused. Absent (stdio, one connection): the session stays in this process.
   */
  readonly share?: { readonly ttlMs: number };
  /** Cluster: another instance took the session's GET stream; end this one's (the session goes on). */
  yieldStream?(): void;
  /**
   * Cluster: `send` stores messages where whichever instance holds the GET stream reads them
   * (a shared event store), so the era need not route them to that instance.
   */
  readonly keeps?: boolean;
  /** Cluster (`keeps`): another instance stored messages for the GET stream; read them if it is held here. */
  pull?(): void;
}

/** What a transport may know of a legacy (handshake-era) session. */
export interface LegacySession extends ServerChannel {
  readonly id: string;
  /** Set once `initialize` succeeded. */
  readonly protocolVersion: LegacyVersion | undefined;
  /** Set once `notifications/initialized` arrived. */
  readonly initialized: boolean;
  /** Who opened the session (`Inbound.principal` at `initialize`; in a cluster, from its shared record). */
  readonly principal?: string;
  readonly closed: boolean;
  /** Closed by `release` rather than ended (cluster: another instance may serve the session on). */
  readonly released?: boolean;
  /**
   * Ends the session: in-flight handlers abort, pending server-to-client requests fail. Shared
   * (cluster), everywhere: a promise then settles once the shared store dropped it.
   */
  close(): void | Promise<void>;
  /**
   * The `list_changed` notifications to announce again (the "changed since last fetched"
   * marker): lists changed since the client last fetched them, whose change did not reach it
   * live. A transport sends them on the
   * session's response streams, before the final response.
   */
  pendingAnnouncements?(): readonly JsonRpcNotification[];
  /** Cluster: how the transport keeps the session's shared record in step; absent when one process serves it. */
  readonly shared?: SharedSessionLink;
  /**
   * This instance lets the session go (idle here, or the transport shutting down) without
   * ending it: in a cluster another instance may serve it on. Without one, the same as `close`.
   */
  release?(): void;
}

/**
 * A session any instance of a cluster serves, as its transport keeps it in step: its record
 * taken again before each request (from the store's copy when it may), and told where its GET
 * stream is.
 */
export interface SharedSessionLink {
  /**
   * Reloads the session's shared record. 'gone': it ended elsewhere or expired (this instance
   * let it go; answer 404); 'unavailable': the store cannot be reached (the session goes on
   * with what this instance knows).
   */
  refresh(): Promise<'ok' | 'gone' | 'unavailable'>;
  /** This instance now holds the session's GET stream. */
  streamOpened(): void;
  /** This instance's GET stream for the session closed. */
  streamClosed(): void;
  /** The host stored a message for the GET stream, which is not held here; the holder reads it. */
  appended(): void;
}
