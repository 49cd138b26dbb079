/**
 * The context every handler receives: one API for both eras, so that a handler is written
 * once for both. On a legacy session `elicit`/`sample`/`roots` send a real server-to-client
 * request; on a modern request they end the call with `input_required` and the retry
 * replays the handler with the answers.
 */
import type { Era, LegacyVersion, ProtocolVersion } from '../protocol/versions.js';
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
import type { AuthInfo } from './auth-info.js';
import type { TransportKind } from './transport-seam.js';

/** How a handler's request to the client (`ctx.elicit`, `ctx.sample`, `ctx.roots`) is sent. */
export interface AskOptions {
  /**
   * The `inputRequests` key on the modern wire. Defaults to a key derived from the order
   * of asks, which is stable because a retry replays the handler from the start.
   */
  key?: string;
  /** Legacy only: how long to wait for the client's answer (default 60 s; for a task, for each of its requests). */
  timeoutMs?: number;
  /**
   * 2025-11-25, sampling and elicitation: ask the client to run the request as a task (its
   * `tasks.requests` capability says whether it can; otherwise the request is sent plainly).
   * The server then polls the client's task and this call resolves with its outcome, so a
   * long wait for a user or a model does not hold one request open. `ttlMs` is the lifetime
   * asked for. Ignored on other revisions.
   */
  task?: boolean | { ttlMs?: number };
}

/**
 * A form for the user (client/elicitation.mdx §Form Mode). `requestedSchema` is either a
 * flat JSON Schema object of primitive properties, sent as is, or a Standard Schema of such
 * an object (e.g. `z.object({ name: z.string() })`), which is converted for the wire and
 * validates the answer: see `RequestContext.elicit`.
 */
export interface ElicitFormRequest<S extends StandardSchema | Record<string, unknown> = Record<string, unknown>> {
  /** What to ask the user, shown with the form. */
  message: string;
  /**
   * The form: a flat JSON Schema object, or a Standard Schema of one that also validates the
   * answer.
   */
  requestedSchema: S;
  /** Sent as the request's `_meta`. */
  _meta?: Meta;
}

/** The answer to a form whose `requestedSchema` is a Standard Schema: accepted content is validated and typed. */
export type ElicitAnswer<T> =
  | { action: 'accept'; content: T; _meta?: Meta }
  | { action: 'decline'; _meta?: Meta }
  | { action: 'cancel'; _meta?: Meta };

/**
 * A URL elicitation (client/elicitation.mdx §URL Mode): the user is sent to `url`, for what must
 * not pass through the client (credentials, payments).
 */
export interface ElicitUrlRequest {
  /** Why the user should go there, shown to them. */
  message: string;
  /** The URL to send the user to. */
  url: string;
  /** 2025-11-25: correlates `notifications/elicitation/complete`; generated when absent. */
  elicitationId?: string;
  /** Sent as the request's `_meta`. */
  _meta?: Meta;
}

export type { AuthInfo } from './auth-info.js';

/** The client behind a request or a session, as it introduced itself. */
export interface ClientView {
  /** The client's name and version, as it sent them (undefined when it sent none). */
  readonly info: Implementation | undefined;
  /** What the client declared it can do: what `ctx.elicit`, `ctx.sample` and `ctx.roots` need. */
  readonly capabilities: ClientCapabilities;
}

/**
 * What every handler gets besides its arguments: the request (its id, revision, client, signal)
 * and what it may do while it runs (report progress, log, ask the client). One API for both eras:
 * on a handshake-era session the asks are real server-to-client requests; on 2026-07-28 they end
 * the call with an `input_required` result, and the client's retry replays the handler with the
 * answers.
 *
 * @example
 * ```ts
 * server.tool('deploy', { input: z.object({ env: z.string() }) }, async ({ env }, ctx) => {
 *   ctx.progress(0, 2, 'building');
 *   ctx.log('info', { env });
 *   return `deployed to ${env} for ${ctx.client.info?.name}`;
 * });
 * ```
 */
export interface RequestContext {
  /** Aborts on cancellation, on the request's stream closing (modern HTTP), or when a modern round ends. */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the request being handled. */
  readonly requestId: RequestId;
  /** The era of the request: `legacy` (a handshake-era session) or `modern` (2026-07-28). */
  readonly era: Era;
  /** The revision the request was made in; the result is shaped for it. */
  readonly protocolVersion: ProtocolVersion;
  /** This request's client: per request on the modern wire, per session on legacy. */
  readonly client: ClientView;
  /** The request's `_meta`, as sent. */
  readonly meta: Meta | undefined;
  /** The legacy session id, when there is one. */
  readonly sessionId: string | undefined;
  /**
   * The legacy session this request belongs to, to act on it beyond this request (keep it,
   * notify it later, read its `state`); undefined on the 2026-07-28 wire, which is stateless.
   * Inside a request prefer `ctx.elicit`/`ctx.log`: they travel with the request, while the
   * session's own go on its standalone channel.
   */
  readonly session: SessionHandle | undefined;
  /** Per-request data set by middleware (`ctx.state` there), e.g. who the caller is. */
  readonly state: Record<string, unknown>;
  /**
   * The verified identity behind this request when the transport authenticated it (HTTP with
   * the `auth` option: the access token's subject, client, scopes); undefined otherwise.
   */
  readonly auth: AuthInfo | undefined;
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
  /** A form with a raw JSON Schema as `requestedSchema`: sent as is, the answer returned unchecked. */
  elicit(request: ElicitFormRequest, options?: AskOptions): Promise<ElicitResult>;
  /**
   * Sends the user to a URL (2025-11-25 and later) and resolves with whether they accepted. Throws
   * when the client did not declare URL elicitation (on 2026-07-28 an `McpError`
   * `MissingRequiredClientCapability`).
   */
  elicitUrl(request: ElicitUrlRequest, options?: AskOptions): Promise<ElicitResult>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`). Throws when the client
   * did not declare sampling (with tools: `sampling.tools`).
   */
  sample(request: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult>;
  /**
   * The client's roots (`roots/list`). Throws when the client did not declare the `roots`
   * capability.
   */
  roots(options?: AskOptions): Promise<Root[]>;
  /**
   * Ends this request's SSE stream now (2025-11-25 SSE polling); the client resumes with
   * `Last-Event-ID`. Does nothing where the transport has no such stream.
   */
  closeStream(): void;
}

/**
 * A handshake-era session (2024-11-05 … 2025-11-25) as the server can act on it outside a
 * request: from a session hook, `server.session(id)` or `ctx.session`. Only initialized
 * sessions have one (the 2026-07-28 wire has no sessions). One handle per session, the same
 * object every time.
 *
 * What it sends goes on the session's own channel: stdout on stdio, the standalone GET stream
 * on Streamable HTTP, the event stream on 2024-11-05 HTTP+SSE. Each method checks the
 * session's revision and the client's capabilities the way `RequestContext` does, and throws a
 * `JanusError` (`'PROTOCOL'`) for what the session cannot carry; on a closed session, a
 * `JanusError` (`'TRANSPORT_CLOSED'`).
 *
 * ```ts
 * const server = createServer({
 *   name: 'files', version: '1.0.0',
 *   sessions: {
 *     async onInitialized(session) {
 *       session.log('info', `hello ${session.client.info?.name}`);
 *       if (session.client.capabilities.roots) session.state.roots = await session.roots();
 *     },
 *     onClosed(session) { console.error('gone', session.id); },
 *   },
 * });
 * ```
 */
export interface SessionHandle {
  /** The session's id: `ctx.sessionId`; on Streamable HTTP the `Mcp-Session-Id`. */
  readonly id: string;
  /** The revision `initialize` negotiated. */
  readonly protocolVersion: LegacyVersion;
  /** The client's info and capabilities, as `initialize` declared them. */
  readonly client: ClientView;
  /** The kind of channel the session is on: `stdio` (and other message channels), `http`, or `sse` (2024-11-05 HTTP+SSE). */
  readonly transport: TransportKind;
  /** Set once the session ended (the client went, DELETE, expiry, `close()`, `server.close()`, a ping unanswered). */
  readonly closed: boolean;
  /** Your data for this session, kept until it ends. */
  readonly state: Record<string, unknown>;
  /**
   * Sends a server notification. Throws a `JanusError` (`'PROTOCOL'`) when the session's
   * revision has no such server-to-client notification (e.g. `notifications/elicitation/complete`
   * before 2025-11-25). Delivery is best effort, like the server's own list changes: on HTTP with
   * no GET stream open it is kept for a resumption when an event store is configured, else dropped.
   */
  notify(method: string, params?: Record<string, unknown>): void;
  /**
   * Sends `notifications/message` when the session's level (`logging/setLevel`; none set: every
   * level) lets it through. Dropped quietly once the session is closed, like `ctx.log` after its request.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * Pings the client (basic/utilities/ping.mdx). Rejects with a `JanusError` `'TIMEOUT'` when no
   * answer comes within `timeoutMs` (default 60 s; the client is told it was given up), at once
   * with `'TRANSPORT_CLOSED'` when nothing can reach the client (an HTTP session with no GET
   * stream open), and with the client's `McpError` if it answers with an error.
   */
  ping(options?: { timeoutMs?: number }): Promise<void>;
  /** `RequestContext.elicit` outside a request: the same checks (2025-06-18 or later, the client's capability, the schema). */
  elicit<S extends StandardSchema>(request: ElicitFormRequest<S>, options?: AskOptions): Promise<ElicitAnswer<Parsed<S>>>;
  /** A form with a raw JSON Schema as `requestedSchema`: sent as is, the answer returned unchecked. */
  elicit(request: ElicitFormRequest, options?: AskOptions): Promise<ElicitResult>;
  /** `RequestContext.elicitUrl` outside a request (2025-11-25). */
  elicitUrl(request: ElicitUrlRequest, options?: AskOptions): Promise<ElicitResult>;
  /** `RequestContext.sample` outside a request. */
  sample(request: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult>;
  /** `RequestContext.roots` outside a request; fails at once on an HTTP session with no GET stream open. */
  roots(options?: AskOptions): Promise<Root[]>;
  /** Ends the session: its handlers abort, its requests to the client fail; on HTTP the client gets 404 next. */
  close(): void;
}
