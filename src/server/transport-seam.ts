/**
 * The interface between a transport and the server: everything a transport needs to serve a
 * `Server`, and nothing about MCP methods. This is the public seam for transport authors
 * (exported by `janus-mcp/server`); the built-in stdio, in-memory and HTTP transports use it.
 * A connection that carries JSON-RPC messages both ways can instead implement `Transport` and
 * call `server.connect(transport)`; a custom transport that needs more control (a WebSocket
 * server, a message queue, another request-scoped protocol) drives the core directly:
 *
 * ```ts
 * const core = coreOf(server);
 * const send = (m: JsonRpcMessage) => socket.send(JSON.stringify(m));
 * const session = core.openSession({ send }); // the legacy session of this connection, if the client initializes
 * const inbound: Inbound = { transport: 'memory', send, session };
 * socket.onmessage = (e) => void core.handle(JSON.parse(e.data), inbound);
 * socket.onclose = () => session.close();
 * ```
 *
 * The transport owns framing and its own rules (HTTP statuses, SSE, session ids); the core
 * decides the era of every message and answers it through `Inbound.send`.
 */
import type { JsonRpcErrorObject } from '../protocol/errors.js';
import type { JsonRpcMessage, JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { LegacyVersion } from '../protocol/versions.js';
import type { HeaderParam } from '../protocol/x-mcp-header.js';
import type { TransportKind } from '../transports/transport.js';
import type { AuthInfo } from './auth-info.js';
import type { EventStore } from './session-store.js';

/** An `x-mcp-header` annotation on a tool's input property (docs/2026-07-28/server/tools.mdx §x-mcp-header). */
export type { HeaderParam };

/** What carries a payload: a label for logs, traces and `ctx.transport` (transports/transport.ts). */
export type { TransportKind };

/**
 * One inbound payload's channel, handed to `ServerCore.handle` with it: where messages about
 * this payload go, when its channel dies, and which legacy session (if any) it belongs to.
 */
export interface Inbound {
  readonly transport: TransportKind;
  /**
   * Whether the channel dropping (`signal`, `watch`) cancels this payload's requests. Yes on a
   * message channel (stdio, memory, a WebSocket): nothing is left to answer. No on a
   * handshake-era Streamable HTTP POST, whose stream dropping is not cancellation (2025-11-25
   * transports §Sending Messages: the client says so with `notifications/cancelled`). Absent: yes.
   */
  readonly cancelsOnDrop?: boolean;
  /**
   * Writes a message that belongs to this payload: progress and log notifications, legacy
   * server-to-client requests made while handling it, and its final response(s).
   */
  send(message: JsonRpcMessage): void;
  /** Aborts when the channel can no longer deliver (HTTP: the response stream closed). */
  readonly signal?: AbortSignal;
  /**
   * What `signal` tells, for a request that may stay open for hours (a `subscriptions/listen`
   * stream): `watcher.abort()` is called once when the channel can no longer deliver, unless
   * `unwatch(watcher)` came first. Lighter than an AbortSignal and its listener, which a server
   * holding thousands of streams pays for each. Optional: without it, `signal` is used.
   *
   * A watcher also holds the payload's work open: the core's `handle` may settle while a
   * watcher is still registered (the stream is open and answers by itself), and the payload is
   * over only at `unwatch`, which comes after the watcher's last `send`. A transport that
   * concludes its exchange when `handle` settles waits for that too; so a listen stream costs
   * no promise while it is open.
   */
  watch?(watcher: { abort(): void }): void;
  unwatch?(watcher: { abort(): void }): void;
  /** The legacy session this payload belongs to (from `ServerCore.openSession`); absent for stateless (modern) traffic. */
  readonly session?: LegacySession;
  /** Ends this request's stream early (2025-11-25 SSE polling); later messages are kept for resumption. */
  closeStream?(): void;
  /**
   * The wire the transport received this payload on, when it knows (HTTP decides per POST
   * from headers and body, with `classifyPayload`); absent on channels that carry both eras
   * (stdio), where the core classifies each message by itself.
   */
  readonly wire?: 'legacy' | 'modern';
  /**
   * Writes the responses of a 2025-03-26 batch as one JSON array (JSON-RPC 2.0 §6). Message
   * channels have it; HTTP collects a batch's responses itself from `send`.
   */
  sendBatch?(responses: JsonRpcMessage[]): void;
  /**
   * Answers a batch refused as a whole (not allowed on this revision, empty, or holding
   * `initialize`) with its one error object (JSON-RPC 2.0 §6). A transport that assembles a
   * batch's answers from `send` has it, to tell this from an array of one; absent: `send`.
   */
  refuseBatch?(error: JsonRpcMessage): void;
  /**
   * The server could not accept this payload of notifications or responses (the shared store
   * that must record it is unavailable): the transport answers with an error status instead
   * of accepting it (2025-11-25 transports §Sending Messages item 4). Absent: nothing is sent.
   */
  refuse?(error: JsonRpcErrorObject): void;
  /**
   * Who sent this payload, when the transport authenticated them (an OAuth subject, an API
   * key's owner): a stable identifier, never a secret. A 2026-07-28 `requestState` is bound
   * to it, so another principal cannot present it (mrtr.mdx §Server Requirements item 5).
   * Absent when the transport knows no identity; the state is then bound to the request's
   * declared clientInfo and capabilities.
   */
  readonly principal?: string;
  /** The verified identity behind this payload (`ctx.auth`), when the transport authenticated it. */
  readonly auth?: AuthInfo;
}

/** Where a legacy session's unsolicited messages go (stdio: stdout; HTTP: the GET stream). */
export interface SessionHost {
  /**
   * The id the transport gave the session (HTTP: `Mcp-Session-Id`), to be the session's own
   * (`ctx.sessionId`, `server.session(id)`); absent, or already taken, a random UUID.
   */
  readonly id?: string;
  send(message: JsonRpcMessage): void;
  /**
   * Whether `send` reaches the client right now; false on HTTP while no GET stream is open
   * (list changes are then announced again: `LegacySession.pendingAnnouncements`). Absent: always.
   */
  readonly connected?: boolean;
  /** The core ended the session itself (server.close()): release its streams now. */
  onSessionClosed?(): void;
  /**
   * Set by a transport whose sessions any instance of a cluster may serve (Streamable HTTP):
   * with a cluster's `sessions` store, the session's record is shared, expiring after `ttlMs`
   * unused. Absent (stdio, one connection): the session stays in this process.
   */
  readonly share?: { readonly ttlMs: number };
  /** Cluster: another instance took the session's GET stream; end this one's (the session goes on). */
  yieldStream?(): void;
  /**
   * Cluster: `send` stores messages where whichever instance holds the GET stream reads them
   * (a shared event store), so the core need not route them to that instance.
   */
  readonly keeps?: boolean;
  /** Cluster (`keeps`): another instance stored messages for the GET stream; read them if it is held here. */
  pull?(): void;
}

/** What a transport may know of a legacy (handshake-era) session. */
export interface LegacySession {
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
  /**
   * Cluster: whether the session is shared (any instance serves it); its traffic then calls
   * `refresh` before each request, and `streamOpened`/`streamClosed` around its GET stream.
   */
  readonly clustered?: boolean;
  /**
   * Cluster: reloads the session's shared record before a request. 'gone': it ended elsewhere
   * or expired (this instance let it go; answer 404); 'unavailable': the store cannot be
   * reached (the session goes on with what this instance knows).
   */
  refresh?(): Promise<'ok' | 'gone' | 'unavailable'>;
  /** Cluster: this instance now holds the session's GET stream. */
  streamOpened?(): void;
  /** Cluster: this instance's GET stream for the session closed. */
  streamClosed?(): void;
  /** Cluster: the host stored a message for the GET stream, which is not held here; the holder reads it. */
  appended?(): void;
  /**
   * This instance lets the session go (idle here, or the transport shutting down) without
   * ending it: in a cluster another instance may serve it on. Without one, the same as `close`.
   */
  release?(): void;
}

/** What a transport drives: `coreOf(server)`. */
export interface ServerCore {
  /**
   * Handles one decoded payload (a message, or an array for a 2025-03-26 batch). Every
   * message about it goes through `inbound.send`; the promise settles once the last of
   * them (the final response, or all responses of a batch) has been sent. For a
   * notification or a response it settles as soon as it was routed. It never rejects.
   */
  handle(payload: unknown, inbound: Inbound): Promise<void>;
  /**
   * `handle` without a promise for work that finished synchronously: undefined then.
   * @internal
   */
  dispatch?(payload: unknown, inbound: Inbound): Promise<void> | undefined;
  /** A new, uninitialized legacy session whose unsolicited messages go to `host`. */
  openSession(host: SessionHost): LegacySession;
  /**
   * Cluster: the session `host.id` that another instance opened, served here from its shared
   * record; undefined when no such session exists. Rejects when the store cannot be reached.
   * Absent on a core without shared sessions.
   */
  adoptSession?(host: SessionHost): Promise<LegacySession | undefined>;
  /** Cluster: this instance's id, for naming what it creates (stream ids) apart from the others'. */
  readonly instanceId?: string;
  /** Cluster: where SSE events are kept so a client resumes its stream on any instance. */
  readonly eventStore?: EventStore;
  /** The `x-mcp-header` parameters of a tool, or undefined when no such tool exists (HTTP header validation). */
  toolHeaderParams(name: string): readonly HeaderParam[] | undefined;
  /**
   * The params field a method's `Mcp-Name` header mirrors, for a method outside the protocol's
   * catalogue (an extension's); undefined: none. Optional, for cores written before it.
   */
  mcpNameField?(method: string): string | undefined;
  /**
   * The scopes a request needs beyond the transport's own (a tool's, prompt's or resource's
   * `scopes`), so that an authenticating transport can refuse it (HTTP 403 insufficient_scope)
   * before answering; undefined when it needs none. Optional, for cores written before it.
   */
  requiredScopes?(method: string, params: unknown): readonly string[] | undefined;
  /** Ends, gracefully, the listen streams opened through the matching inbound channels (a transport shutting down). */
  endListeners(match: (inbound: Inbound) => boolean): void;
  /** Server name for logs and diagnostics. */
  readonly name: string;
  /** Reports an error that has no peer to go to (never written to stdout). */
  reportError(error: unknown): void;
  /**
   * Reports a configuration warning (the server's `logger`, else stderr; never stdout).
   * Optional, for cores written before it: a transport falls back to `console.warn`.
   */
  reportWarning?(message: string): void;
}
