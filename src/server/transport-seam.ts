/**
 * The interface between a transport and the server: everything a transport needs to serve a
 * `Server`, and nothing about MCP methods or eras. This is the public seam for transport
 * authors (exported by `janus-mcp/spi`); the built-in stdio, in-memory and HTTP transports use
 * it.
 * A connection that carries JSON-RPC messages both ways can instead implement `Transport` and
 * call `server.connect(transport)`; a custom transport that needs more control (a WebSocket
 * server, a message queue, another request-scoped protocol) drives the core directly:
 *
 * ```ts
 * const core = coreOf(server);
 * const send = (m: JsonRpcMessage) => socket.send(JSON.stringify(m));
 * const channel = core.openChannel({ send }); // the connection; a handshake-era client's session lives on it
 * const inbound: Inbound = { transport: 'websocket', send, channel };
 * socket.onmessage = (e) => void core.handle(JSON.parse(e.data), inbound);
 * socket.onclose = () => channel.close();
 * ```
 *
 * The transport owns framing and its own rules (HTTP statuses, SSE, session ids); the core
 * decides the era of every message and answers it through `Inbound.send`. Request-scoped
 * transports with sessions of their own (Streamable HTTP's `Mcp-Session-Id`) are the handshake
 * era's business: the built-in HTTP transport serves them through that era's own seam.
 */
import type { JsonRpcErrorObject } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { HeaderParam } from '../protocol/x-mcp-header.js';
import type { TransportKind } from '../transports/transport.js';
import type { AuthInfo } from './auth-info.js';
import type { ChannelHost, ServerChannel } from './channel.js';

export type { ChannelHost, ServerChannel };

/** An `x-mcp-header` annotation on a tool's input property (docs/2026-07-28/server/tools.mdx §x-mcp-header). */
export type { HeaderParam };

/** What carries a payload: a label for logs, traces and `ctx.transport` (transports/transport.ts). */
export type { TransportKind };

/**
 * One inbound payload's channel, handed to `ServerCore.handle` with it: where messages about
 * this payload go, when its channel dies, and which channel (if any) it came on.
 */
export interface Inbound {
  /** What carried the payload (`stdio`, `http`, …), as the server reports it. */
  readonly transport: TransportKind;
  /**
   * Whether the channel dropping (`signal`, `watch`) cancels this payload's requests. Yes on a
   * message channel (stdio, memory, a WebSocket): nothing is left to answer. No on a
   * handshake-era Streamable HTTP POST, whose stream dropping is not cancellation (2025-11-25
   * transports §Sending Messages: the client says so with `notifications/cancelled`). Absent: yes.
   * A `subscriptions/listen` stream ends with its channel whatever this says: it is the stream.
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
  /**
   * Removes a watcher `watch` registered: the channel will not call it, and the payload's work is
   * over.
   */
  unwatch?(watcher: { abort(): void }): void;
  /**
   * The channel this payload came on (`ServerCore.openChannel`; a handshake-era session on
   * Streamable HTTP); absent for a payload that stands alone (a 2026-07-28 POST).
   */
  readonly channel?: ServerChannel;
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
  /**
   * A connection that carries many messages both ways (stdio, in-memory, a WebSocket): the core
   * keeps it (`server.close()` ends it), holds the requests in flight on it (so that
   * `notifications/cancelled` reaches them), and, where the handshake era is served, a client
   * that sends `initialize` on it has its session there. Give it as `Inbound.channel`.
   */
  openChannel(host: ChannelHost): ServerChannel;
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
