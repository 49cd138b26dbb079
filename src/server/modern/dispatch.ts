/**
 * Stateless-era dispatch (2026-07-28): every request stands alone. The envelope is read per
 * request; a method is admitted only where the request's revision has it (the revisions
 * table) and a route or an extension serves it; features answer era-neutral and each route
 * shapes the answer as the revision has it (routes.ts). The pipeline (pipeline.ts) is the one
 * both eras share. Never imports legacy code.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import {
  asWireResult,
  errorResponse,
  resultResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import { revision } from '../../protocol/revisions.js';
import type { ClientCapabilities, Result } from '../../protocol/types.js';
import { latestVersion } from '../../protocol/versions.js';
import type { Asker } from '../ask.js';
import { Cancellation, type InflightRegistry } from '../cancel.js';
import { clientDeclares, isVerbatim } from '../extension.js';
import { isObject, quoted } from '../guards.js';
import { Exchange, isInputRequired, type Middleware } from '../middleware.js';
import { notifyThrough, runRequest, type EraPolicy, type PendingRequest } from '../pipeline.js';
import type { Params } from '../routes.js';
import type { Inbound } from '../transport-seam.js';
import { toWireError } from '../wire-error.js';
import { readEnvelope, type Envelope } from './envelope.js';
import { ROUND_ENDED, requestContext, withInput } from './input-required.js';
import { listenThrough, openListen } from './listen-admission.js';
import { completed, MODERN_ROUTES, withServerInfo, type ModernDeps } from './routes.js';
import { needsUrlElicitation, urlRound } from './url-round.js';

export type { ModernDeps } from './routes.js';

const NO_PARAMS: Params = Object.freeze({});
const NO_CAPABILITIES: ClientCapabilities = Object.freeze({});

const NO_ASKS: Asker = {
  ask: (method) =>
    Promise.reject(new McpError(ErrorCode.InternalError, `${method} can only be asked during tools/call, prompts/get or resources/read`)),
};

const notFound = (method: string) => new McpError(ErrorCode.MethodNotFound, `Method not found: ${quoted(method)}`);

/** A 2026-07-28 request being answered. */
class ModernRequest implements PendingRequest<ModernRequest> {
  readonly policy = MODERN;
  held = false;
  constructor(
    readonly server: ModernDeps,
    readonly req: JsonRpcRequest,
    readonly params: Params,
    readonly env: Envelope,
    readonly inbound: Inbound,
    /** The channel's in-flight requests, when it cancels by notification (stdio). */
    readonly inflight: InflightRegistry | undefined,
    readonly cancel: Cancellation,
    readonly chain: readonly Middleware[],
  ) {}
}

/**
 * What a 2026-07-28 request resolves to, before it is shaped: a route's era-neutral result, or
 * an `input_required` round. The revision's table decides first: a method it lacks is -32601,
 * whatever route exists. Not async: a synchronous route costs no extra promise.
 */
function answer(p: ModernRequest, params: Params, state: Record<string, unknown> | undefined): object | Promise<object> {
  const { server, req, env, inbound, cancel } = p;
  const entry = MODERN_ROUTES.get(req.method);
  if (entry === undefined || !revision(env.version).methods.clientRequests.has(req.method)) {
    return extensionAnswer(p, params, state);
  }
  const need = entry.route.need;
  if (need !== undefined && !(need in server.capabilities(env.version))) throw notFound(req.method);
  if (entry.target === undefined)
    return entry.route.run(server, params, requestContext(req, env, inbound, cancel, NO_ASKS, state), undefined);
  return withInput(server, req, params, env, inbound, cancel, params[entry.target], entry.route.run, state);
}

/**
 * A method an extension serves (extension.ts): -32601 when no extension has it for this
 * revision, and -32021 when it needs the extension declared in this request's client
 * capabilities and it is not (SEP-2575 §Missing Required Capabilities).
 */
function extensionAnswer(p: ModernRequest, params: Params, state: Record<string, unknown> | undefined): object | Promise<object> {
  const { server, req, env, inbound, cancel } = p;
  const found = server.extensions.route(req.method, env.version);
  if (found === undefined) throw notFound(req.method);
  const { extension, method } = found;
  const ctx = requestContext(req, env, inbound, cancel, NO_ASKS, state);
  if (method.needsClientExtension && !clientDeclares(ctx.client, extension.id)) {
    throw new McpError(
      ErrorCode.MissingRequiredClientCapability,
      `${req.method} needs the client to declare the ${extension.id} extension`,
      {
        requiredCapabilities: { extensions: { [extension.id]: {} } },
      },
    );
  }
  return method.run(params, ctx, ctx.site);
}

/** The middleware's view of a 2026-07-28 message. */
function exchange(
  kind: 'request' | 'notification',
  method: string,
  params: Params,
  id: RequestId | undefined,
  env: Envelope | undefined,
  inbound: Inbound,
  cancel: Cancellation,
): Exchange {
  return new Exchange({
    kind,
    method,
    params,
    id,
    era: 'modern',
    protocolVersion: env?.version,
    client: { info: env?.clientInfo, capabilities: env?.capabilities ?? NO_CAPABILITIES },
    meta: env?.meta ?? (isObject(params._meta) ? params._meta : undefined),
    sessionId: undefined,
    transport: inbound.transport,
    principal: inbound.principal,
    auth: inbound.auth,
    cancel,
  });
}

/** Cancelled by the client (or its stream closing), as opposed to a round that ended with `input_required`. */
function cancelled(cancel: Cancellation): boolean {
  return cancel.aborted && cancel.reason !== ROUND_ENDED;
}

const MODERN: EraPolicy<ModernRequest> = {
  answer,
  exchange: (p) => exchange('request', p.req.method, p.params, p.req.id, p.env, p.inbound, p.cancel),
  /** As 2026-07-28 sends it: shaped by its route, or as it is (an `input_required` round, an extension's own result). */
  result(p, outcome): Result {
    const { server, req, env } = p;
    if (isInputRequired(outcome) || isVerbatim(outcome)) return withServerInfo(server, asWireResult(outcome));
    const entry = MODERN_ROUTES.get(req.method);
    // A middleware's or an extension's answer: it still names its resultType (basic/index.mdx §ResultType).
    if (entry === undefined)
      return withServerInfo(server, asWireResult(outcome), undefined, 'resultType' in outcome ? undefined : 'complete');
    return completed(server, entry, env.version, outcome);
  },
  failure(p, e): JsonRpcResponse {
    const { server, req, env } = p;
    let error = e;
    if (needsUrlElicitation(e) && MODERN_ROUTES.get(req.method)?.target !== undefined) {
      try {
        return resultResponse(req.id, urlRound(server, e, env));
      } catch (refused) {
        error = refused;
      }
    }
    return errorResponse(req.id, toWireError(error, env.version, server));
  },
  cancelled: (p) => cancelled(p.cancel),
};

/**
 * `inflight`: the channel's in-flight requests when it cancels by notification (stdio).
 * Returns a promise only when the answer is not ready at once: a synchronous handler without
 * middleware is answered before this returns, with no promise made on the way.
 */
export function handleModernRequest(
  server: ModernDeps,
  req: JsonRpcRequest,
  inbound: Inbound,
  inflight: InflightRegistry | undefined,
): void | Promise<void> {
  let env: Envelope;
  try {
    env = readEnvelope(req.params, server.supportedVersions);
  } catch (e) {
    return inbound.send(errorResponse(req.id, toWireError(e, latestVersion(), server)));
  }
  const params = req.params ?? NO_PARAMS;
  // A channel that cancels by notification (stdio) holds its requests in flight; it has a limit.
  if (inflight !== undefined && inflight.size >= server.limits.maxInFlightPerSession) {
    return inbound.send(errorResponse(req.id, tooManyInFlight(server.limits.maxInFlightPerSession)));
  }
  const chain = server.middleware.chainFor(req.method);
  if (req.method === 'subscriptions/listen' && revision(env.version).methods.clientRequests.has(req.method)) {
    if (chain.length === 0) return openListen(server, req.id, params, env, inbound, inflight, true);
    const cancel = new Cancellation(inbound);
    const ex = exchange('request', req.method, params, req.id, env, inbound, cancel);
    return listenThrough(server, chain, req, ex, env, inbound, inflight, cancel);
  }
  return runRequest(new ModernRequest(server, req, params, env, inbound, inflight, new Cancellation(inbound), chain));
}

/**
 * A notification on the 2026-07-28 wire (stdio: `notifications/cancelled`; others are
 * ignored). Through middleware when there is any; a refusal drops it.
 */
export function handleModernNotification(
  server: ModernDeps,
  n: JsonRpcNotification,
  inbound: Inbound,
  inflight: InflightRegistry | undefined,
): void | Promise<void> {
  const params = n.params ?? NO_PARAMS;
  const chain = server.middleware.chainFor(n.method);
  if (chain.length === 0) return notified(n.method, params, inflight);
  let env: Envelope | undefined;
  try {
    env = readEnvelope(n.params, server.supportedVersions);
  } catch {
    // A notification need not carry the whole envelope: the middleware sees what it has.
  }
  const cancel = new Cancellation(inbound);
  const ex = exchange('notification', n.method, params, undefined, env, inbound, cancel);
  return notifyThrough(
    chain,
    ex,
    (p) => notified(n.method, p, inflight),
    cancel,
    (e) => server.reportError(e),
  );
}

/**
 * What the stateless era does with each client notification its revisions have: only a
 * channel that cancels by notification (stdio) has any use for one.
 */
export const MODERN_NOTIFICATIONS: ReadonlyMap<string, (params: Params, inflight: InflightRegistry) => void> = new Map([
  [
    'notifications/cancelled',
    (params: Params, inflight: InflightRegistry) => {
      const id = params.requestId;
      if (typeof id === 'string' || typeof id === 'number') {
        const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by client';
        inflight.get(id)?.abort(new McpError(ErrorCode.InvalidRequest, reason));
      }
    },
  ],
]);

function notified(method: string, params: Params, inflight: InflightRegistry | undefined): void {
  if (inflight !== undefined) MODERN_NOTIFICATIONS.get(method)?.(params, inflight);
}

/** The answer to one request too many on a channel (limits.maxInFlightPerSession). */
function tooManyInFlight(max: number): { code: number; message: string } {
  return { code: ErrorCode.InvalidRequest, message: `Invalid Request: more than ${max} requests in flight on this channel` };
}
