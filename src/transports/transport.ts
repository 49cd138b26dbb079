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

export interface TransportHandlers {
  /** One decoded JSON value: a message, or an array (a 2025-03-26 batch). */
  onMessage(message: unknown): void;
  /** A frame that was not JSON; the receiver answers -32700. */
  onParseError?(error: Error): void;
  /** The peer went away or `close()` was called. Called once. */
  onClose?(): void;
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

export interface Transport {
  /**
   * What carries the messages, as the server reports it (`ctx.transport`, logs, traces):
   * `'stdio'` when absent. Cancellation works the same on every message transport: the channel closing cancels.
   */
  readonly kind?: TransportKind;
  start(handlers: TransportHandlers): Promise<void>;
  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void>;
  close(): Promise<void>;
}
