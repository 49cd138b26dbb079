/**
 * The client's view of a transport. Message transports (stdio, in-memory) share one
 * stream for everything; HTTP is request-scoped (each POST has its own response stream,
 * and headers travel per request). Both fit this shape.
 */
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { LegacyVersion } from '../protocol/versions.js';
import type { TransportKind } from '../transports/transport.js';

/** What a {@link ClientChannel} tells the client: the server's messages, and the channel's end. */
export interface ChannelHandlers {
  /** Server requests and notifications (and, on stdio, anything not answering a pending request). */
  onMessage(message: JsonRpcMessage): void;
  /** The channel is gone (process exited, streams closed). */
  onClose(error?: Error): void;
  /**
   * Any message arrived from the server, responses included: a sign that it is running and
   * reading. The stdio probe waits for one before it starts counting `probeTimeoutMs`.
   */
  onActivity?(): void;
  /** Something worth a log line that no caller is waiting to hear (an oversized event on the standalone stream, say). */
  onWarning?(message: string): void;
}

/** How one message goes out on a {@link ClientChannel}. */
export interface SendOptions {
  /** Extra HTTP headers (ignored by message channels). */
  headers?: Record<string, string>;
  /** Cancels the send, and the wait for a response. */
  signal?: AbortSignal;
}

/**
 * The client's view of a connection to a server, for those who write one: message transports
 * (stdio, in-memory) share one stream for everything; HTTP is request-scoped, each POST with its
 * own response stream. `connect()` takes one as its target.
 */
export interface ClientChannel {
  /** What carries the messages (`stdio`, `http`, `memory`, …). */
  readonly kind: TransportKind;
  /** Opens the channel: from now on the server's messages go to `handlers`. */
  start(handlers: ChannelHandlers): Promise<void>;
  /**
   * Sends a request and resolves with its response (an error response resolves too: the
   * caller decides). Messages sent before the response on the request's own stream are
   * delivered to `onMessage` first. Rejects with a `ChannelError` when the transport fails.
   */
  request(request: JsonRpcRequest, options?: SendOptions): Promise<JsonRpcResponse>;
  /** Sends a notification, or a response to a server request. */
  send(message: JsonRpcNotification | JsonRpcResponse, options?: SendOptions): Promise<void>;
  /** Legacy HTTP: the negotiated version, sent as MCP-Protocol-Version from now on. */
  setLegacyVersion?(version: LegacyVersion): void;
  /** Legacy HTTP: opens the standalone GET stream for unsolicited messages (if the server offers one). */
  openEventStream?(): void;
  /** Closes the channel; `onClose` is called. */
  close(): Promise<void>;
}

/** A transport-level failure, with the HTTP status and body when there was one. */
export class ChannelError extends Error {
  /**
   * @param message What failed.
   * @param status The HTTP status, when the failure was an HTTP response.
   * @param body The response's body, when there was one.
   * @param options The error's `cause`.
   */
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ChannelError';
  }
}
