/**
 * One inbound request being served: its context object and the two era-specific seams,
 * the `Asker` (how `elicit`/`sample`/`roots` reach the client, ask.ts) and the emitters
 * (where progress and logs go).
 */
import { isRequestId, type JsonRpcMessage, type JsonRpcNotification, type RequestId } from '../protocol/jsonrpc.js';
import { revision } from '../protocol/revisions.js';
import type { Era, ProtocolVersion } from '../protocol/versions.js';
import {
  LOGGING_LEVELS,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitResult,
  type LoggingLevel,
  type Meta,
  type Root,
} from '../protocol/types.js';
import type { Asker } from './ask.js';
import { askForm, askRoots, askSample, askUrl } from './asking.js';
import type {
  AskOptions,
  AuthInfo,
  ClientView,
  ElicitAnswer,
  ElicitFormRequest,
  ElicitUrlRequest,
  RequestContext,
  SessionHandle,
} from './context.js';
import type { JsonSchemaObject, Parsed, StandardSchema } from './schema/types.js';
import type { Inbound } from './transport-seam.js';
import type { Cancellation } from './cancel.js';

/**
 * The handshake-era session a request belongs to, as an extension may act on it beyond the
 * request (the tasks extension's 2025-11-25 design: a task asks and notifies on its session).
 */
export interface SiteSession {
  /** The session's id. */
  readonly id: string;
  /** Set once the session ended. */
  readonly closed: boolean;
  /** This instance let the session go without ending it (cluster: another instance serves it on). */
  readonly released: boolean;
  /** Whether a message outside any request reaches the client now (Streamable HTTP: a GET stream is open, here or elsewhere). */
  readonly reachable: boolean;
  /** Runs once the session closes (at once if it has). */
  onClosed(hook: () => void): void;
  /** Sends a message outside any request, on the session's own channel. */
  sendUnsolicited(message: JsonRpcMessage): void;
  /** Asks the client with real server-to-client requests: on `via` (a request's stream), or the session's own channel. */
  asker(via: Inbound | undefined, signal: AbortSignal | undefined): Asker;
  /** The session's public handle (`ctx.session`). */
  handle(): SessionHandle;
}

/**
 * Where a request is being served, beyond what its handler sees (for extensions, extension.ts):
 * the channel it came on and, on the handshake era, its session.
 */
export interface CallSite {
  /** The request's era. */
  readonly era: Era;
  /** The revision the request was made in. */
  readonly protocolVersion: ProtocolVersion;
  /** The request's client. */
  readonly client: ClientView;
  /**
   * The transport's delivery of the request: how answers and the request's own messages reach the
   * client.
   */
  readonly inbound: Inbound;
  /** The handshake-era session the request belongs to; undefined on the 2026-07-28 wire. */
  readonly session: SiteSession | undefined;
}

export interface CallInit {
  readonly requestId: RequestId;
  readonly era: Era;
  readonly version: ProtocolVersion;
  readonly client: ClientView;
  readonly meta: Meta | undefined;
  readonly sessionId: string | undefined;
  readonly inbound: Inbound;
  readonly cancel: Cancellation;
  /** Minimum level to forward, or undefined to forward nothing. */
  readonly logLevel: LoggingLevel | undefined;
  readonly asker: Asker;
  /** The middleware's per-request data, when a chain ran; made on first read otherwise. */
  readonly state?: Record<string, unknown>;
  /** The handshake-era session (`CallSite.session`; `ctx.session` is its handle, made when first read). */
  readonly session?: SiteSession;
}

const NOOP_CLOSE = () => {};

/** `notifications/message` for a log line, or undefined when `threshold` holds it back (undefined: forward nothing). */
export function logMessage(
  threshold: LoggingLevel | undefined,
  level: LoggingLevel,
  data: unknown,
  logger: string | undefined,
): JsonRpcNotification | undefined {
  if (threshold === undefined || LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(threshold)) return undefined;
  const params: Record<string, unknown> = { level, data };
  if (logger !== undefined) params.logger = logger;
  return { jsonrpc: '2.0', method: 'notifications/message', params };
}

export class Call implements RequestContext {
  readonly requestId: RequestId;
  readonly era: Era;
  readonly protocolVersion: ProtocolVersion;
  readonly client: ClientView;
  readonly meta: Meta | undefined;
  readonly sessionId: string | undefined;
  private readonly cancel: Cancellation;
  private readonly inbound: Inbound;
  private readonly logLevel: LoggingLevel | undefined;
  private readonly asker: Asker;
  private userState: Record<string, unknown> | undefined;
  private readonly siteSession: SiteSession | undefined;

  // The init is read, not kept: a call's context is made per request, and an object held per
  // request is memory the hot path pays for (`detach` rebuilds what it needs from the fields).
  constructor(init: CallInit) {
    this.requestId = init.requestId;
    this.era = init.era;
    this.protocolVersion = init.version;
    this.client = init.client;
    this.meta = init.meta;
    this.sessionId = init.sessionId;
    this.cancel = init.cancel;
    this.inbound = init.inbound;
    this.logLevel = init.logLevel;
    this.asker = init.asker;
    this.userState = init.state;
    this.siteSession = init.session;
  }

  get state(): Record<string, unknown> {
    return (this.userState ??= {});
  }

  /** Where this request is served (extension.ts): its channel and, on the handshake era, its session. */
  get site(): CallSite {
    const { era, protocolVersion, client, inbound } = this;
    return { era, protocolVersion, client, inbound, session: this.siteSession };
  }

  /**
   * A context for work that outlives this request (a task): the same client, identity and
   * `_meta`, with its own way to ask, its own cancellation and its own channel for progress
   * and logs. `state` is shared, so what middleware set is still there.
   */
  detach(init: Pick<CallInit, 'asker' | 'cancel' | 'inbound'> & Partial<Pick<CallInit, 'logLevel'>>): Call {
    return new Call({
      requestId: this.requestId,
      era: this.era,
      version: this.protocolVersion,
      client: this.client,
      meta: this.meta,
      sessionId: this.sessionId,
      inbound: init.inbound,
      cancel: init.cancel,
      logLevel: 'logLevel' in init ? init.logLevel : this.logLevel,
      asker: init.asker,
      state: this.state,
      session: this.siteSession,
    });
  }

  get session(): SessionHandle | undefined {
    return this.siteSession?.handle();
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  get auth(): AuthInfo | undefined {
    return this.inbound.auth;
  }

  private emit(message: JsonRpcMessage): void {
    if (!this.cancel.aborted) this.inbound.send(message);
  }

  progress(progress: number, total?: number, message?: string): void {
    const token = this.meta?.progressToken;
    // A progress token is a string or an integer (basic/utilities/progress.mdx), as a request id is.
    if (!isRequestId(token)) return;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    // `message` joined the progress notification in 2025-03-26.
    if (message !== undefined && revision(this.protocolVersion).features.progressMessage) params.message = message;
    this.emit({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const message = logMessage(this.logLevel, level, data, logger);
    if (message !== undefined) this.emit(message);
  }

  elicit<S extends StandardSchema>(request: ElicitFormRequest<S>, options?: AskOptions): Promise<ElicitAnswer<Parsed<S>>>;
  elicit(request: ElicitFormRequest, options?: AskOptions): Promise<ElicitResult>;
  elicit(
    request: ElicitFormRequest<StandardSchema | JsonSchemaObject>,
    options?: AskOptions,
  ): Promise<ElicitResult | ElicitAnswer<unknown>> {
    return askForm(this.asker, request, options);
  }

  elicitUrl(request: ElicitUrlRequest, options?: AskOptions): Promise<ElicitResult> {
    return askUrl(this.asker, this.protocolVersion, this.era, request, options);
  }

  sample(request: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    return askSample(this.asker, request, options);
  }

  roots(options?: AskOptions): Promise<Root[]> {
    return askRoots(this.asker, options);
  }

  closeStream(): void {
    (this.inbound.closeStream ?? NOOP_CLOSE).call(this.inbound);
  }
}
