/**
 * A message transport carries JSON-RPC messages both ways over one connection (stdio, an
 * in-memory pair). It knows no MCP method names. Writes are serialized; `close()` is
 * idempotent. HTTP is request-scoped and has its own handler in `transports/http/`.
 */
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';

/**
 * What our transports' `send` returns once the message is written, or queued in order, before it
 * returns: a caller that only listens for failures skips a handler on it (a promise reaction per
 * message adds up on a busy channel). Not public: another transport's promises are handled as usual.
 */
export const SENT: Promise<void> = Promise.resolve();

/** What a {@link Transport} tells its user: each message it receives, and its failures and end. */
export interface TransportHandlers {
  /** One decoded JSON value: a message, or an array (a 2025-03-26 batch). */
  onMessage(message: unknown): void;
  /** A frame that was not JSON; the receiver answers -32700. */
  onParseError?(error: Error): void;
  /** The peer went away or `close()` was called. Called once. */
  onClose?(): void;
  /** A failure of the connection (a write or read error) that does not end it by itself. */
  onError?(error: Error): void;
  /**
   * The peer has not read what was sent for so long that the transport's bound was reached:
   * notifications are dropped until it drains. Said once per such stall; the receiver ends
   * what cannot survive a lost notification (a listen subscription, so its client lists anew).
   */
  onOverflow?(): void;
}

/**
 * What carries a peer's messages, as the server and the client report it (`ctx.transport`,
 * `client.transportKind`, logs, traces): the built-in ones, or any name a custom transport
 * gives itself (`'websocket'`). Behaviour never depends on it: what differs between transports
 * is said by their interfaces (`Inbound.cancelsOnDrop`).
 */
export type TransportKind = 'stdio' | 'http' | 'sse' | 'memory' | (string & {});

/**
 * A message transport: carries JSON-RPC messages both ways over one connection (stdio, an
 * in-memory pair, your own). A server serves one with `server.connect(transport)`; a client
 * connects over one with `connect(transport)`. Writes keep their order; `close()` may be called
 * more than once.
 */
export interface Transport {
  /**
   * What carries the messages, as the server reports it (`ctx.transport`, logs, traces):
   * `'stdio'` when absent. Cancellation works the same on every message transport: the channel closing cancels.
   */
  readonly kind?: TransportKind;
  /** Starts receiving: from now on messages go to `handlers`. Called once. */
  start(handlers: TransportHandlers): Promise<void>;
  /**
   * Sends one message (or a 2025-03-26 batch). Resolves once it is written or queued in order;
   * rejects when it cannot go out (the transport is closed, the message is not JSON).
   */
  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void>;
  /** Closes the connection; `onClose` is called. Does nothing once closed. */
  close(): Promise<void>;
}
