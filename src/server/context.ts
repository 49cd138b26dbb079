/**
 * The context every handler receives: one API for both eras (DESIGN.md §The handler
 * contract). On a legacy session `elicit`/`sample`/`roots` send a real server-to-client
 * request; on a modern request they end the call with `input_required` and the retry
 * replays the handler with the answers.
 */
import type { Era, ProtocolVersion } from '../protocol/versions.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitResult,
  Implementation,
  LoggingLevel,
  Meta,
  Root,
} from '../protocol/types.js';
import type { Parsed, StandardSchema } from './schema/types.js';

export interface AskOptions {
  /**
   * The `inputRequests` key on the modern wire. Defaults to a key derived from the order
   * of asks, which is stable because a retry replays the handler from the start.
   */
  key?: string;
  /** Legacy only: how long to wait for the client's answer (default 60 s). */
  timeoutMs?: number;
}

/**
 * A form for the user (client/elicitation.mdx §Form Mode). `requestedSchema` is either a
 * flat JSON Schema object of primitive properties, sent as is, or a Standard Schema of such
 * an object (e.g. `z.object({ name: z.string() })`), which is converted for the wire and
 * validates the answer: see `RequestContext.elicit`.
 */
export interface ElicitFormRequest<S extends StandardSchema | Record<string, unknown> = Record<string, unknown>> {
  message: string;
  requestedSchema: S;
  _meta?: Meta;
}

/** The answer to a form whose `requestedSchema` is a Standard Schema: accepted content is validated and typed. */
export type ElicitAnswer<T> =
  | { action: 'accept'; content: T; _meta?: Meta }
  | { action: 'decline'; _meta?: Meta }
  | { action: 'cancel'; _meta?: Meta };

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
  /**
   * Asks the user to fill in a form. With a Standard Schema as `requestedSchema` the answer
   * is typed, and accepted content is validated with the schema: content that does not
   * match makes this call throw a `JanusError` (code `'SCHEMA'`) naming the problem (a
   * tool reports an uncaught one as a tool error). The schema must be an object of string,
   * number, integer, boolean and enum properties (client/elicitation.mdx §Requested
   * Schema), or the call throws before asking. A raw JSON Schema is sent as is, and the
   * content is returned unchecked.
   *
   * ```ts
   * const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: z.object({ name: z.string() }) });
   * if (answer.action === 'accept') greet(answer.content.name);
   * ```
   */
  elicit<S extends StandardSchema>(request: ElicitFormRequest<S>, options?: AskOptions): Promise<ElicitAnswer<Parsed<S>>>;
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
