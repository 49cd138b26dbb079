/**
 * Handshake-era dispatch (2024-11-05 … 2025-11-25). A session's phase picks its route table
 * (routes.ts: before `initialize`, until `notifications/initialized`, then the session's);
 * once initialized, a method is admitted only where the session's revision has it (the
 * revisions table) and a route or an extension serves it. Features answer era-neutral; each
 * route shapes the answer for the session's revision. The pipeline (pipeline.ts) is the one
 * both eras share.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import {
  asWireResult,
  errorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import { revision } from '../../protocol/revisions.js';
import type { Result } from '../../protocol/types.js';
import { LATEST_LEGACY_VERSION, type LegacyVersion } from '../../protocol/versions.js';
import { Call } from '../call.js';
import { Cancellation } from '../cancel.js';
import { isVerbatim } from '../extension.js';
import { isObject, quoted } from '../guards.js';
import { Exchange, type Middleware } from '../middleware.js';
import { notifyThrough, runRequest, type EraPolicy, type PendingRequest } from '../pipeline.js';
import type { Capability, Params } from '../routes.js';
import type { ServerServices } from '../services.js';
import type { Inbound } from '../transport-seam.js';
import { toWireError } from '../wire-error.js';
import { HANDSHAKE, INITIALIZING, SESSION, type Phase, type SessionScope } from './routes.js';
import type { Session } from './session.js';
import { SessionAsker } from './session-asker.js';
import { handleOf } from './session-handle.js';
import { siteOf } from './session-site.js';

const EMPTY: Params = Object.freeze({});

/** The table of the session's phase: the handshake swaps it (routes.ts). */
function phaseOf(session: Session): Phase {
  if (session.initialized) return SESSION;
  return session.protocolVersion === undefined ? HANDSHAKE : INITIALIZING;
}

/** 2024-11-05 had completion/complete but no `completions` capability: there, offering prompts or templates is enough. */
function offers(server: ServerServices, need: Capability, v: LegacyVersion): boolean {
  if (need === 'completions' && !revision(v).capabilities.server.has('completions')) return server.ops.hasCompletions();
  return need in server.capabilities(v);
}

const notFound = (method: string) => new McpError(ErrorCode.MethodNotFound, `Method not found: ${quoted(method)}`);

/** A request on a legacy session being answered. */
class LegacyRequest implements PendingRequest<LegacyRequest>, SessionScope {
  readonly policy = LEGACY;
  held = false;
  constructor(
    readonly server: ServerServices,
    readonly session: Session,
    readonly req: JsonRpcRequest,
    readonly params: Params,
    readonly inbound: Inbound,
    readonly cancel: Cancellation,
    readonly chain: readonly Middleware[],
    /** The session's in-flight map, for the requests that count against its limit (all but the handshake and ping). */
    readonly inflight: Session['inflight'] | undefined,
  ) {}
}

/** What a session request resolves to, before it is shaped for the session's revision. */
function answer(p: LegacyRequest, params: Params, state: Record<string, unknown> | undefined): object | Promise<object> {
  const { server, session, req } = p;
  if (session.closed) throw new McpError(ErrorCode.InvalidRequest, 'Session closed');
  const phase = phaseOf(session);
  const v = session.protocolVersion;
  let r = phase.routes.get(req.method);
  // Once initialized, the session's revision decides what exists: a method it lacks is -32601, whatever route there is.
  if (phase === SESSION && r !== undefined && !revision(v!).methods.clientRequests.has(req.method)) r = undefined;
  if (r === undefined) {
    if (phase !== SESSION) throw new McpError(ErrorCode.InvalidRequest, phase.refusal);
    const found = server.extensions.route(req.method, v!);
    if (found === undefined) throw notFound(req.method);
    const ctx = callOf(p, v!, params, state);
    return found.method.run(params, ctx, ctx.site);
  }
  if (r.need !== undefined && (v === undefined || !offers(server, r.need, v))) throw notFound(req.method);
  return r.run(server, params, callOf(p, v ?? LATEST_LEGACY_VERSION, params, state), p);
}

function callOf(p: LegacyRequest, v: LegacyVersion, params: Params, state: Record<string, unknown> | undefined): Call {
  const { session, req, inbound, cancel } = p;
  return new Call({
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
    session: siteOf(session),
  });
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

const LEGACY: EraPolicy<LegacyRequest> = {
  answer,
  exchange: (p) => exchange(p.session, 'request', p.req.method, p.params, p.req.id, p.inbound, p.cancel),
  /** In the wire shape of the session's revision (the handshake, ping and extensions' own results answer as they are). */
  result(p, outcome): Result {
    const v = p.session.protocolVersion;
    const r = isVerbatim(outcome) || v === undefined ? undefined : SESSION.routes.get(p.req.method);
    return asWireResult(r !== undefined && v !== undefined ? r.shape(v, outcome) : outcome);
  },
  failure: (p, e): JsonRpcResponse => errorResponse(p.req.id, toWireError(e, p.session.protocolVersion ?? LATEST_LEGACY_VERSION, p.server)),
  // cancellation.mdx: a cancelled request gets no response.
  cancelled: (p) => p.cancel.aborted,
};

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
  const cancel = new Cancellation(inbound);
  const chain = server.middleware.chainFor(req.method);
  return runRequest(new LegacyRequest(server, session, req, params, inbound, cancel, chain, counted ? session.inflight : undefined));
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
  // One the server could not take in (-32603: its session's shared store is away) is refused to the transport.
  return notifyThrough(
    chain,
    ex,
    (p) => notified(session, n.method, p),
    cancel,
    (e) => server.reportError(e),
    (e) => e.code === ErrorCode.InternalError,
  );
}

/**
 * What a session does with each client notification its revisions have; one not here needs
 * nothing (`notifications/progress`: the server sends no request that asks for progress).
 */
export const SESSION_NOTIFICATIONS: ReadonlyMap<string, (session: Session, params: Params) => void | Promise<void>> = new Map([
  ['notifications/initialized', (session: Session) => session.markInitialized()],
  ['notifications/roots/list_changed', (session: Session) => session.rootsChanged()],
  [
    'notifications/cancelled',
    (session: Session, params: Params) => {
      const id = params.requestId;
      if (typeof id === 'string' || typeof id === 'number') {
        session.cancel(id, typeof params.reason === 'string' ? params.reason : 'cancelled by client');
      }
    },
  ],
]);

function notified(session: Session, method: string, params: Params): void | Promise<void> {
  return SESSION_NOTIFICATIONS.get(method)?.(session, params);
}
