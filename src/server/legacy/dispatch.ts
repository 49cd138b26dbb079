/**
 * Handshake-era dispatch (2024-11-05 … 2025-11-25). The handshake swaps tables instead of
 * sprinkling checks: before `initialize` only it and `ping` exist; after it, until
 * `notifications/initialized`, only `ping`; then the full table. Features answer
 * era-neutral; each route shapes the answer for the session's revision (shape.ts).
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import {
  asWireResult,
  errorResponse,
  resultResponse,
  type JsonRpcResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import { revision } from '../../protocol/revisions.js';
import { LATEST_LEGACY_VERSION, isLegacyVersion, type LegacyVersion } from '../../protocol/versions.js';
import type { ClientCapabilities, InitializeResult, Result } from '../../protocol/types.js';
import { Call } from '../call.js';
import { Cancellation } from '../cancel.js';
import { isImplementation, isLoggingLevel, isObject, isUri, quoted } from '../guards.js';
import { settle } from '../settle.js';
import type { ServerServices } from '../services.js';
import {
  pick,
  shapeCallToolResult,
  shapeGetPromptResult,
  shapePromptList,
  shapeReadResourceResult,
  shapeResourceList,
  shapeTemplateList,
  shapeToolList,
} from '../shape.js';
import { ToolError } from '../features/tool-error.js';
import { toolError } from '../features/tools.js';
import { Exchange, runChain, type Middleware } from '../middleware.js';
import { isVerbatim } from '../extension.js';
import type { SessionHandle } from '../context.js';
import type { Inbound } from '../transport-seam.js';
import { toWireError } from '../wire-error.js';
import type { ListKind } from '../registry.js';
import type { Session } from './session.js';
import { SessionAsker } from './session-asker.js';
import { handleOf } from './session-handle.js';

/** A request's params as they came off the wire. */
type Params = Record<string, unknown>;
type Capability = 'tools' | 'prompts' | 'resources' | 'completions' | 'logging';

const EMPTY: Result = Object.freeze({});

/** `ctx.session` of a call on a session: one function for all calls rather than a closure per call. */
const sessionHandleOf = (session: unknown): SessionHandle => handleOf(session as Session);

/** One method of the session table: the capability it needs, its work, and its answer's shape for the session's revision. */
interface SessionRoute<R extends object = object> {
  /** Answered -32601 unless the server declares this capability. */
  readonly need?: Capability;
  run(server: ServerServices, session: Session, params: Params, ctx: Call): R | Promise<R>;
  shape(v: LegacyVersion, result: R): object;
}

/** Ties a route's work to its shaping, so that each shaper gets the result of its own route. */
const route = <R extends object>(r: SessionRoute<R>): SessionRoute => r;
const asIs = <R extends Result>(_v: LegacyVersion, result: R): R => result;

function subscription(add: boolean): SessionRoute {
  return route({
    need: 'resources',
    run: async (server, session, params) => {
      const uri = params.uri;
      if (!isUri(uri)) throw new McpError(ErrorCode.InvalidParams, 'uri must be a URI (RFC 3986)');
      // A session holds its subscriptions for its lifetime: as many as one listen stream may.
      if (add) await session.subscribe(uri, server.limits.maxListenUris);
      else await session.unsubscribe(uri);
      return EMPTY;
    },
    shape: asIs,
  });
}

/** A list was served: its "changed since last fetched" marker is cleared. */
function fetched<R>(session: Session, kind: ListKind, result: R | Promise<R>): R | Promise<R> {
  if (!(result instanceof Promise)) {
    const saved = session.listFetched(kind);
    return saved === undefined ? result : saved.then(() => result);
  }
  return result.then(async (r) => {
    await session.listFetched(kind);
    return r;
  });
}

/** The methods after the handshake (`initialize` and `ping` are answered before it). */
const SESSION_ROUTES: ReadonlyMap<string, SessionRoute> = new Map(
  Object.entries({
    'tools/list': route({
      need: 'tools',
      run: (server, session, params) => fetched(session, 'tools', server.ops.listTools(params)),
      shape: shapeToolList,
    }),
    'tools/call': route({
      need: 'tools',
      run: (server, _session, params, ctx) => server.ops.callTool(params, ctx),
      shape: shapeCallToolResult,
    }),
    'prompts/list': route({
      need: 'prompts',
      run: (server, session, params) => fetched(session, 'prompts', server.ops.listPrompts(params)),
      shape: shapePromptList,
    }),
    'prompts/get': route({
      need: 'prompts',
      run: (server, _session, params, ctx) => server.ops.getPrompt(params, ctx),
      shape: shapeGetPromptResult,
    }),
    'resources/list': route({
      need: 'resources',
      run: (server, session, params) => fetched(session, 'resources', server.ops.listResources(params)),
      shape: shapeResourceList,
    }),
    'resources/templates/list': route({
      need: 'resources',
      run: (server, session, params) => fetched(session, 'resources', server.ops.listTemplates(params)),
      shape: shapeTemplateList,
    }),
    'resources/read': route({
      need: 'resources',
      run: (server, _session, params, ctx) => server.ops.readResource(params, ctx),
      shape: shapeReadResourceResult,
    }),
    'resources/subscribe': subscription(true),
    'resources/unsubscribe': subscription(false),
    'logging/setLevel': route({
      need: 'logging',
      run: (_server, session, params) => {
        if (!isLoggingLevel(params.level)) throw new McpError(ErrorCode.InvalidParams, `Invalid log level: ${quoted(params.level)}`);
        const saved = session.setLogLevel(params.level);
        return saved === undefined ? EMPTY : saved.then(() => EMPTY);
      },
      shape: asIs,
    }),
    'completion/complete': route({
      need: 'completions',
      run: (server, _session, params, ctx) => server.ops.complete(params, ctx),
      shape: asIs,
    }),
  }),
);

/** lifecycle.mdx §Initialization: the handshake's answer, and the session's negotiated revision and client. */
function initialize(server: ServerServices, session: Session, params: Params): InitializeResult {
  const requested = params.protocolVersion;
  if (typeof requested !== 'string') throw new McpError(ErrorCode.InvalidParams, 'initialize needs params.protocolVersion');
  // lifecycle.mdx §Version Negotiation: agree to a supported version, else offer our latest
  // handshake revision. 2026-07-28 is never negotiated here: it has no handshake.
  const version: LegacyVersion = isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
  session.protocolVersion = version;
  session.clientInfo = isImplementation(params.clientInfo) ? params.clientInfo : undefined;
  const caps: ClientCapabilities = isObject(params.capabilities) ? params.capabilities : {};
  session.clientCapabilities = caps;
  const result: InitializeResult = {
    protocolVersion: version,
    capabilities: server.capabilities(version),
    serverInfo: pick('Implementation', version, server.info),
  };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  return result;
}

/** 2024-11-05 had completion/complete but no `completions` capability: there, offering prompts or templates is enough. */
function offers(server: ServerServices, need: Capability, v: LegacyVersion): boolean {
  if (need === 'completions' && !revision(v).capabilities.server.has('completions')) return server.ops.hasCompletions();
  return need in server.capabilities(v);
}

/** What a session request resolves to, before it is shaped for the session's revision. */
function answer(
  server: ServerServices,
  session: Session,
  req: JsonRpcRequest,
  params: Params,
  inbound: Inbound,
  cancel: Cancellation,
  state: Record<string, unknown> | undefined,
): object | Promise<object> {
  if (req.method === 'initialize') {
    if (session.protocolVersion !== undefined) throw new McpError(ErrorCode.InvalidRequest, 'Session already initialized');
    session.transport = inbound.transport;
    session.principal = inbound.principal;
    const result = initialize(server, session, params);
    // Shared (cluster), the record exists before the client learns the session id.
    const shared = session.shared;
    if (shared === undefined) return result;
    const { protocolVersion, clientInfo, clientCapabilities, principal } = session;
    return shared.create({ protocolVersion: protocolVersion!, clientInfo, clientCapabilities, principal }).then(() => result);
  }
  if (session.closed) throw new McpError(ErrorCode.InvalidRequest, 'Session closed');
  if (req.method === 'ping') return EMPTY;
  const v = session.protocolVersion;
  if (!session.initialized || v === undefined) {
    const why = v === undefined ? 'send initialize first' : 'send notifications/initialized first';
    throw new McpError(ErrorCode.InvalidRequest, `Session not initialized: ${why}`);
  }
  const entry = SESSION_ROUTES.get(req.method);
  const extension = entry === undefined ? server.extensions.route(req.method, v) : undefined;
  if ((!entry && !extension) || (entry?.need && !offers(server, entry.need, v))) {
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${quoted(req.method)}`);
  }
  const ctx = new Call({
    requestId: req.id,
    era: 'legacy',
    version: v,
    client: session.client,
    meta: isObject(params._meta) ? params._meta : undefined,
    sessionId: session.id,
    inbound,
    cancel,
    // Without logging/setLevel the server may log at any level (2025-11-25 logging.mdx).
    logLevel: session.logLevel ?? 'debug',
    asker: new SessionAsker(session, inbound, cancel),
    state,
    legacySession: session,
    sessionHandle: sessionHandleOf,
  });
  return entry ? entry.run(server, session, params, ctx) : extension!.method.run(params, ctx, ctx.site);
}

/** A result in the wire shape of the session's revision (initialize, ping and extensions' own results answer as they are). */
function shaped(method: string, v: LegacyVersion | undefined, result: object): Result {
  const entry = isVerbatim(result) ? undefined : SESSION_ROUTES.get(method);
  return asWireResult(entry && v !== undefined ? entry.shape(v, result) : result);
}

/**
 * A request on a legacy session. Returns a promise only when the answer is not ready at once: a
 * synchronous handler without middleware is answered before this returns.
 */
export function handleLegacyRequest(server: ServerServices, session: Session, req: JsonRpcRequest, inbound: Inbound): void | Promise<void> {
  const params = req.params ?? EMPTY;
  // The handshake and ping are always answered; everything else counts against the session's limit.
  const counted = req.method !== 'initialize' && req.method !== 'ping';
  const maxInFlight = server.limits.maxInFlightPerSession;
  if (counted && session.inflight.size >= maxInFlight) {
    return inbound.send(
      errorResponse(req.id, {
        code: ErrorCode.InvalidRequest,
        message: `Invalid Request: more than ${maxInFlight} requests in flight on this session`,
      }),
    );
  }
  // On HTTP a dropped stream is not cancellation (legacy transports §Sending Messages); on stdio the channel closing is.
  const cancel = new Cancellation(inbound.transport === 'http' ? undefined : inbound);
  const chain = server.middleware.chainFor(req.method);
  const request: Pending = { server, session, req, params, inbound, cancel, chain, held: false };
  return settle(request, chain.length === 0 ? answerPlain : answerThrough, conclude, counted ? hold : undefined);
}

// The request's work, given the request: no closure per request (settle.ts).
function answerPlain(p: Pending): object | Promise<object> {
  return answer(p.server, p.session, p.req, p.params, p.inbound, p.cancel, undefined);
}

function answerThrough(p: Pending): object | Promise<object> {
  const { server, session, req, inbound, cancel } = p;
  const ex = exchange(session, 'request', req.method, p.params, req.id, inbound, cancel);
  return runChain(p.chain, ex, () => answer(server, session, req, ex.params, inbound, cancel, ex.state)) as object | Promise<object>;
}

/**
 * A request still running past its dispatch is in flight: cancellable, counted against the
 * limit. One answered at once never is (nothing else runs meanwhile), which also spares the
 * session's Map an entry made and dropped per call (V8 reallocates its table as it empties).
 */
function hold(p: Pending): void {
  p.held = true;
  p.session.inflight.set(p.req.id, p.cancel);
}

/** A legacy request being answered. */
interface Pending {
  readonly server: ServerServices;
  readonly session: Session;
  readonly req: JsonRpcRequest;
  readonly params: Params;
  readonly inbound: Inbound;
  readonly cancel: Cancellation;
  /** The method's middleware (empty: none). */
  readonly chain: readonly Middleware[];
  /** Held in the session's in-flight map (it did not answer at once, and counts against the limit). */
  held: boolean;
}

/** Sends a request's answer: its result shaped, or its failure (`result` undefined). */
function conclude(p: Pending, result: object | undefined, error: unknown): void {
  const { server, session, req, cancel } = p;
  let response: JsonRpcResponse | undefined;
  try {
    if (result !== undefined) response = resultResponse(req.id, shaped(req.method, session.protocolVersion, result));
    // A cancelled request gets no answer, so its failure (often the cancellation itself) is not one to report.
    else if (!cancel.aborted) response = failure(server, session, req, error);
  } catch (e) {
    if (!cancel.aborted) response = failure(server, session, req, e);
  } finally {
    if (p.held) session.inflight.delete(req.id);
    cancel.release();
  }
  // cancellation.mdx: a cancelled request gets no response.
  if (response !== undefined && !cancel.aborted) p.inbound.send(response);
}

function failure(server: ServerServices, session: Session, req: JsonRpcRequest, e: unknown): JsonRpcResponse {
  const v = session.protocolVersion;
  // A middleware refusing a tool call with a ToolError: the model reads it, as a handler's.
  if (req.method === 'tools/call' && e instanceof ToolError && v !== undefined) {
    return resultResponse(req.id, shaped(req.method, v, toolError(e.message)));
  }
  return errorResponse(req.id, toWireError(e, v ?? LATEST_LEGACY_VERSION, server));
}

/** The middleware's view of a message on a legacy session. */
function exchange(
  session: Session,
  kind: 'request' | 'notification',
  method: string,
  params: Params,
  id: RequestId | undefined,
  inbound: Inbound,
  cancel: Cancellation,
): Exchange {
  return new Exchange({
    kind,
    method,
    params,
    id,
    era: 'legacy',
    protocolVersion: session.protocolVersion,
    client: session.client,
    meta: isObject(params._meta) ? params._meta : undefined,
    sessionId: session.id,
    transport: inbound.transport,
    principal: inbound.principal,
    auth: inbound.auth,
    cancel,
    session: () => (session.initialized ? handleOf(session) : undefined),
  });
}

export function handleLegacyNotification(
  server: ServerServices,
  session: Session,
  n: JsonRpcNotification,
  inbound: Inbound,
): void | Promise<void> {
  const params = n.params ?? EMPTY;
  const chain = server.middleware.chainFor(n.method);
  if (chain.length === 0) return notified(session, n.method, params);
  const cancel = new Cancellation(inbound);
  const ex = exchange(session, 'notification', n.method, params, undefined, inbound, cancel);
  return Promise.resolve(runChain(chain, ex, async () => notified(session, n.method, ex.params)))
    .then(
      () => undefined,
      // Nobody to answer: a refusal (McpError) just drops it; anything else is the server's failure.
      // One the server could not take in (-32603: its session's shared store is away) is refused to the transport.
      (e: unknown) => {
        if (e instanceof McpError && e.code === ErrorCode.InternalError) throw e;
        if (!(e instanceof McpError)) server.reportError(e);
      },
    )
    .finally(() => cancel.release());
}

function notified(session: Session, method: string, params: Params): void | Promise<void> {
  switch (method) {
    case 'notifications/initialized':
      return session.markInitialized();
    case 'notifications/roots/list_changed':
      session.rootsChanged();
      return;
    case 'notifications/cancelled': {
      const id = params.requestId;
      if (typeof id === 'string' || typeof id === 'number') {
        const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by client';
        session.cancel(id, reason);
      }
      return;
    }
    default:
      // notifications/progress and unknown ones need no answer.
      return;
  }
}
