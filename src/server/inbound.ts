/**
 * The seam between transports and the server core. A transport hands each decoded inbound
 * payload to `ServerCore.handle` together with an `Inbound`: where messages about this
 * payload go, when its channel dies, and which legacy session (if any) it belongs to.
 */
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { LegacyVersion } from '../protocol/versions.js';

export type TransportKind = 'stdio' | 'http' | 'sse' | 'memory';

export interface Inbound {
  readonly transport: TransportKind;
  /**
   * Writes a message that belongs to this payload: progress and log notifications, legacy
   * server-to-client requests made while handling it, and its final response(s).
   */
  send(message: JsonRpcMessage): void;
  /** Aborts when the channel can no longer deliver (HTTP: the response stream closed). */
  readonly signal?: AbortSignal;
  /** The legacy session this payload belongs to; absent for stateless (modern) traffic. */
  readonly session?: LegacySession;
  /** Ends this request's stream early (2025-11-25 SSE polling); later messages are kept for resumption. */
  closeStream?(): void;
  /**
   * The wire the transport received this payload on, when it knows (HTTP decides per POST
   * from headers and body); absent on channels that carry both eras (stdio), where each
   * message is classified by itself.
   */
  readonly wire?: 'legacy' | 'modern';
  /**
   * Writes the responses of a 2025-03-26 batch as one JSON array (JSON-RPC 2.0 §6). Message
   * channels have it; HTTP collects a batch's responses itself from `send`.
   */
  sendBatch?(responses: JsonRpcMessage[]): void;
}

/** Where a legacy session's unsolicited messages go (stdio: stdout; HTTP: the GET stream). */
export interface SessionHost {
  send(message: JsonRpcMessage): void;
  /** The core ended the session itself (server.close()): release its streams now. */
  onSessionClosed?(): void;
}

/** What transports may know of a legacy session. */
export interface LegacySession {
  readonly id: string;
  /** Set once `initialize` succeeded. */
  readonly protocolVersion: LegacyVersion | undefined;
  /** Set once `notifications/initialized` arrived. */
  readonly initialized: boolean;
  readonly closed: boolean;
  /** Ends the session: in-flight handlers abort, pending server-to-client requests fail. */
  close(): void;
}
