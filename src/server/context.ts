/**
 * The context every handler receives: one API for both eras (DESIGN.md §The handler
 * contract). On a legacy session `elicit`/`sample`/`roots` send a real server-to-client
 * request; on a modern request they end the call with `input_required` and the retry
 * replays the handler with the answers.
 */
import type { Era, ProtocolVersion } from '../protocol/versions.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import type {
  ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitResult, Implementation,
  LoggingLevel, Meta, Root,
} from '../protocol/types.js';

export interface AskOptions {
  /**
   * The `inputRequests` key on the modern wire. Defaults to a key derived from the order
   * of asks, which is stable because a retry replays the handler from the start.
   */
  key?: string;
  /** Legacy only: how long to wait for the client's answer (default 60 s). */
  timeoutMs?: number;
}

export interface ElicitFormRequest {
  message: string;
  /** A flat JSON Schema object of primitive properties (docs/…/client/elicitation.mdx). */
  requestedSchema: Record<string, unknown>;
  _meta?: Meta;
}

export interface ElicitUrlRequest {
  message: string;
  url: string;
  /** 2025-11-25: correlates `notifications/elicitation/complete`; generated when absent. */
  elicitationId?: string;
  _meta?: Meta;
}

export interface ClientView {
  readonly info: Implementation | undefined;
  readonly capabilities: ClientCapabilities;
}

export interface RequestContext {
  /** Aborts on cancellation, on the request's stream closing (modern HTTP), or when a modern round ends. */
  readonly signal: AbortSignal;
  readonly requestId: RequestId;
  readonly era: Era;
  readonly protocolVersion: ProtocolVersion;
  /** This request's client: per request on the modern wire, per session on legacy. */
  readonly client: ClientView;
  /** The request's `_meta`, as sent. */
  readonly meta: Meta | undefined;
  /** The legacy session id, when there is one. */
  readonly sessionId: string | undefined;
  /** Sends `notifications/progress` when the request carried a progress token; otherwise does nothing. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` when the client's log level lets it through. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  elicit(request: ElicitFormRequest, options?: AskOptions): Promise<ElicitResult>;
  elicitUrl(request: ElicitUrlRequest, options?: AskOptions): Promise<ElicitResult>;
  sample(request: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult>;
  roots(options?: AskOptions): Promise<Root[]>;
  /**
   * Ends this request's SSE stream now (2025-11-25 SSE polling); the client resumes with
   * `Last-Event-ID`. Does nothing where the transport has no such stream.
   */
  closeStream(): void;
}
