/**
 * Stateless-era dispatch (2026-07-28): every request stands alone. The envelope is read per
 * request; features answer era-neutral and each route shapes the answer as 2026-07-28 has it;
 * results carry `resultType`, serverInfo in `_meta`, and cache hints where the schema
 * requires them. Never imports legacy code.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import {
  asWireResult,
  errorResponse,
  resultResponse,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type JsonRpcRequest,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import type { ClientCapabilities, DiscoverResult, InputRequest, Meta, Result, SubscriptionFilter } from '../../protocol/types.js';
import { LATEST_VERSION, type ModernVersion, type ProtocolVersion } from '../../protocol/versions.js';
import type { Asker } from '../ask.js';
import type { Call } from '../call.js';
import { Cancellation, type InflightRegistry } from '../cancel.js';
import { cacheHintOf } from '../features/operations.js';
import { ToolError } from '../features/tool-error.js';
import { toolError } from '../features/tools.js';
import type { CacheHint } from '../features/resources.js';
import { isObject, isUri, quoted } from '../guards.js';
import { settle } from '../settle.js';
import type { CacheableMethod, ServerServices } from '../services.js';
import {
  shapeCallToolResult,
  shapeGetPromptResult,
  shapePromptList,
  shapeReadResourceResult,
  shapeResourceList,
  shapeTemplateList,
  shapeToolList,
} from '../shape.js';
import { Exchange, isInputRequired, runChain, type Middleware } from '../middleware.js';
import { clientDeclares, isVerbatim } from '../extension.js';
import type { Inbound } from '../transport-seam.js';
import { toWireError } from '../wire-error.js';
import { readEnvelope, SUPPORTED_VERSIONS, type Envelope } from './envelope.js';
import { Subscription, type ListenServer } from './listen.js';
import { ROUND_ENDED, requestContext, withInput, type RoundServer } from './input-required.js';
import { copy, extend } from '../../protocol/extend.js';

/** A request's params as they came off the wire. */
type Params = Record<string, unknown>;
type Capability = 'tools' | 'prompts' | 'resources' | 'completions';

/** What the modern dispatcher reads from the server, beyond what both eras do. */
export interface ModernDeps extends ServerServices, ListenServer, RoundServer {
  /** `{ serverInfo }` as a result `_meta`, built once. */
  readonly infoMeta: Meta;
  /** The configured cache hint of a cacheable result (server/utilities/caching.mdx). */
  cacheHint(method: CacheableMethod): CacheHint;
}

/** One method: the capability it needs, its work, its answer's 2026-07-28 shape and, for cacheable results, their hint. */
interface ModernRoute<R extends object = object> {
  /** Answered -32601 unless the server declares this capability. */
  readonly need?: Capability;
  /**
   * Only for the methods that may answer `input_required` (mrtr.mdx: tools/call, prompts/get,
   * resources/read): the target (tool or prompt name, URI) their `requestState` is bound to.
   */
  readonly target?: (params: Params) => unknown;
  run(server: ModernDeps, params: Params, ctx: Call): R | Promise<R>;
  shape(v: ModernVersion, result: R): object;
  cacheHint?(server: ModernDeps, result: R): CacheHint;
}

/** Ties a route's work to its shaping, so that each shaper gets the result of its own route. */
const route = <R extends object>(r: ModernRoute<R>): ModernRoute => r;
const asIs = <R extends Result>(_v: ModernVersion, result: R): R => result;
const configured =
  (method: CacheableMethod) =>
  (server: ModernDeps): CacheHint =>
    server.cacheHint(method);

function discover(server: ModernDeps, v: ProtocolVersion): DiscoverResult {
  const result: DiscoverResult = { supportedVersions: SUPPORTED_VERSIONS, capabilities: server.capabilities(v) };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  return result;
}

const MODERN_ROUTES: ReadonlyMap<string, ModernRoute> = new Map(
  Object.entries({
    'server/discover': route({
      run: (server, _params, ctx) => discover(server, ctx.protocolVersion),
      shape: asIs,
      cacheHint: configured('server/discover'),
    }),
    'tools/list': route({
      need: 'tools',
      run: (server, params) => server.ops.listTools(params),
      shape: shapeToolList,
      cacheHint: configured('tools/list'),
    }),
    'prompts/list': route({
      need: 'prompts',
      run: (server, params) => server.ops.listPrompts(params),
      shape: shapePromptList,
      cacheHint: configured('prompts/list'),
    }),
    'resources/list': route({
      need: 'resources',
      run: (server, params) => server.ops.listResources(params),
      shape: shapeResourceList,
      cacheHint: configured('resources/list'),
    }),
    'resources/templates/list': route({
      need: 'resources',
      run: (server, params) => server.ops.listTemplates(params),
      shape: shapeTemplateList,
      cacheHint: configured('resources/templates/list'),
    }),
    'completion/complete': route({ need: 'completions', run: (server, params, ctx) => server.ops.complete(params, ctx), shape: asIs }),
    'tools/call': route({
      need: 'tools',
      target: (params) => params.name,
      run: (server, params, ctx) => server.ops.callTool(params, ctx),
      shape: shapeCallToolResult,
    }),
    'prompts/get': route({
      need: 'prompts',
      target: (params) => params.name,
      run: (server, params, ctx) => server.ops.getPrompt(params, ctx),
      shape: shapeGetPromptResult,
    }),
    'resources/read': route({
      need: 'resources',
      target: (params) => params.uri,
      run: (server, params, ctx) => server.ops.readResource(params, ctx),
      shape: shapeReadResourceResult,
      cacheHint: (server, read) => cacheHintOf(read) ?? server.cacheHint('resources/read'),
    }),
  }),
);

const NO_PARAMS: Params = Object.freeze({});
const NO_CAPABILITIES: ClientCapabilities = Object.freeze({});

/**
 * A copy of a result (the handler's may be a shared object) with serverInfo in `_meta`
 * (basic/index.mdx §_meta: SHOULD be on every result), its cache hint and its resultType
 * when given.
 */
function withServerInfo(server: ModernDeps, result: Result, hint?: CacheHint, resultType?: 'complete'): Result {
  const meta = result._meta;
  const _meta = isObject(meta) ? extend(meta, { [META.serverInfo]: server.info }) : server.infoMeta;
  // A copy given its keys one by one: no object made for the keys alone (extend.ts on why no spread).
  const out: Record<string, unknown> = copy(result);
  if (hint !== undefined) {
    out.ttlMs = hint.ttlMs;
    out.cacheScope = hint.scope;
  }
  out._meta = _meta;
  if (resultType) out.resultType = resultType;
  return out as Result;
}

/** A route's era-neutral result as 2026-07-28 sends it. */
function completed(server: ModernDeps, entry: ModernRoute, v: ModernVersion, result: object): Result {
  const shaped = asWireResult(entry.shape(v, result));
  return withServerInfo(server, shaped, entry.cacheHint?.(server, result), shaped.resultType === 'input_required' ? undefined : 'complete');
}

/**
 * -32042 does not exist in 2026-07-28 (basic/index.mdx §Error Codes): a handler that throws
 * `UrlElicitationRequiredError` gets an input_required round of URL elicitations instead;
 * the retry runs it again, and it decides from its own records whether the user finished.
 */
function urlRound(server: ModernDeps, e: McpError, env: Envelope): Result {
  const data = e.data;
  const list: unknown[] = isObject(data) && Array.isArray(data.elicitations) ? data.elicitations : [];
  const url = env.capabilities.elicitation;
  if (!isObject(url) || !('url' in url)) {
    throw new McpError(ErrorCode.MissingRequiredClientCapability, 'This request needs URL elicitation', {
      requiredCapabilities: { elicitation: { url: {} } },
    });
  }
  const inputRequests: Record<string, InputRequest> = {};
  list.forEach((item, i) => {
    const el: Params = isObject(item) ? item : {};
    inputRequests[`url-${String(el.elicitationId ?? i)}`] = {
      method: 'elicitation/create',
      params: { mode: 'url', message: el.message, url: el.url },
    };
  });
  return withServerInfo(server, { resultType: 'input_required', inputRequests });
}

/**
 * What a 2026-07-28 request resolves to, before it is shaped: a route's era-neutral result, or
 * an `input_required` round. Not async: a synchronous route costs no extra promise.
 */
function answer(
  server: ModernDeps,
  req: JsonRpcRequest,
  params: Params,
  env: Envelope,
  inbound: Inbound,
  cancel: Cancellation,
  state: Record<string, unknown> | undefined,
): object | Promise<object> {
  const entry = MODERN_ROUTES.get(req.method);
  if (!entry) return extensionAnswer(server, req, params, env, inbound, cancel, state);
  if (entry.need && !(entry.need in server.capabilities(env.version))) {
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${quoted(req.method)}`);
  }
  if (!entry.target) return entry.run(server, params, requestContext(req, env, inbound, cancel, NO_ASKS, state));
  return withInput(server, req, params, env, inbound, cancel, entry.target(params), entry.run, state);
}

/**
 * A method an extension serves (extension.ts): answered -32601 when no extension has it for
 * this revision, and -32021 when it needs the extension declared in this request's client
 * capabilities and it is not (SEP-2575 §Missing Required Capabilities).
 */
function extensionAnswer(
  server: ModernDeps,
  req: JsonRpcRequest,
  params: Params,
  env: Envelope,
  inbound: Inbound,
  cancel: Cancellation,
  state: Record<string, unknown> | undefined,
): object | Promise<object> {
  const found = server.extensions.route(req.method, env.version);
  if (found === undefined) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${quoted(req.method)}`);
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

/** A result as 2026-07-28 sends it: shaped by its route, or as it is (an `input_required` round, an extension's own result). */
function finished(server: ModernDeps, method: string, v: ModernVersion, outcome: object): Result {
  const entry = MODERN_ROUTES.get(method);
  if (isInputRequired(outcome) || isVerbatim(outcome)) return withServerInfo(server, asWireResult(outcome));
  // A middleware's answer to a method no route has: it still names its resultType (basic/index.mdx §ResultType).
  if (!entry) return withServerInfo(server, asWireResult(outcome), undefined, 'resultType' in outcome ? undefined : 'complete');
  return completed(server, entry, v, outcome);
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
    env = readEnvelope(req.params);
  } catch (e) {
    return inbound.send(errorResponse(req.id, toWireError(e, LATEST_VERSION, server)));
  }
  const params = req.params ?? NO_PARAMS;
  // A channel that cancels by notification (stdio) holds its requests in flight; it has a limit.
  if (inflight !== undefined && inflight.size >= server.limits.maxInFlightPerSession) {
    return inbound.send(errorResponse(req.id, tooManyInFlight(server.limits.maxInFlightPerSession)));
  }
  const chain = server.middleware.chainFor(req.method);
  if (req.method === 'subscriptions/listen') {
    if (chain.length === 0) return listen(server, req.id, params, env, inbound, inflight, true);
    return listenThrough(server, chain, req, params, env, inbound, inflight);
  }
  const cancel = new Cancellation(inbound);
  const request: Pending = { server, req, params, env, inbound, inflight, cancel, chain, held: false };
  return settle(request, chain.length === 0 ? answerPlain : answerThrough, conclude, inflight === undefined ? undefined : hold);
}

// The request's work, given the request: no closure per request (settle.ts).
function answerPlain(p: Pending): object | Promise<object> {
  return answer(p.server, p.req, p.params, p.env, p.inbound, p.cancel, undefined);
}

function answerThrough(p: Pending): object | Promise<object> {
  const { server, req, env, inbound, cancel } = p;
  const ex = exchange('request', req.method, p.params, req.id, env, inbound, cancel);
  return runChain(p.chain, ex, () => answer(server, req, ex.params, env, inbound, cancel, ex.state)) as object | Promise<object>;
}

/** In flight only while it runs past its dispatch, as on a legacy session (legacy/dispatch.ts `hold`). */
function hold(p: Pending): void {
  p.held = true;
  p.inflight?.set(p.req.id, p.cancel);
}

/** A 2026-07-28 request being answered. */
interface Pending {
  readonly server: ModernDeps;
  readonly req: JsonRpcRequest;
  readonly params: Params;
  readonly env: Envelope;
  readonly inbound: Inbound;
  /** The channel's in-flight requests, when it cancels by notification (stdio). */
  readonly inflight: InflightRegistry | undefined;
  readonly cancel: Cancellation;
  /** The method's middleware (empty: none). */
  readonly chain: readonly Middleware[];
  /** Held in `inflight` (it did not answer at once). */
  held: boolean;
}

/** Sends a request's answer: its outcome shaped, or its failure (`outcome` undefined). */
function conclude(p: Pending, outcome: object | undefined, error: unknown): void {
  const { server, req, env, cancel } = p;
  let response: JsonRpcResponse | undefined;
  try {
    if (outcome !== undefined) response = resultResponse(req.id, finished(server, req.method, env.version, outcome));
    // A cancelled request gets no answer, so its failure (often the cancellation itself) is not one to report.
    else if (!cancelled(cancel)) response = failure(server, req, env, error);
  } catch (e) {
    if (!cancelled(cancel)) response = failure(server, req, env, e);
  } finally {
    if (p.held) p.inflight?.delete(req.id);
    cancel.release();
  }
  // A cancelled request gets no response; on HTTP its stream is gone anyway.
  if (response !== undefined && !cancelled(cancel)) p.inbound.send(response);
}

/**
 * subscriptions/listen through middleware: `next()` opens the stream and resolves when it
 * ends (the stream sends its own answers); a middleware that refuses it answers instead.
 */
async function listenThrough(
  server: ModernDeps,
  chain: readonly Middleware[],
  req: JsonRpcRequest,
  params: Params,
  env: Envelope,
  inbound: Inbound,
  inflight: InflightRegistry | undefined,
): Promise<void> {
  const cancel = new Cancellation(inbound);
  const ex = exchange('request', req.method, params, req.id, env, inbound, cancel);
  let opened = false;
  try {
    const result = await runChain(chain, ex, async () => {
      opened = true;
      // Middleware hears of the stream's end (`next()` resolves then): the promise is kept.
      await listen(server, req.id, ex.params, env, inbound, inflight, false);
      return undefined;
    });
    if (!opened && isObject(result)) {
      // Answered by middleware: as a graceful end is (subscriptions.mdx §Graceful closure), naming the stream.
      const _meta = { ...(isObject(result._meta) ? result._meta : {}), [META.subscriptionId]: req.id };
      inbound.send(resultResponse(req.id, withServerInfo(server, extend(result, { _meta }), undefined, 'complete')));
    }
  } catch (e) {
    if (!opened) inbound.send(errorResponse(req.id, toWireError(e, env.version, server)));
    else server.reportError(e);
  } finally {
    cancel.release();
  }
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
    env = readEnvelope(n.params);
  } catch {
    // A notification need not carry the whole envelope: the middleware sees what it has.
  }
  const cancel = new Cancellation(inbound);
  const ex = exchange('notification', n.method, params, undefined, env, inbound, cancel);
  return Promise.resolve(runChain(chain, ex, async () => notified(n.method, ex.params, inflight)))
    .then(
      () => undefined,
      (e: unknown) => {
        if (!(e instanceof McpError)) server.reportError(e);
      },
    )
    .finally(() => cancel.release());
}

function notified(method: string, params: Params, inflight: InflightRegistry | undefined): void {
  if (method !== 'notifications/cancelled' || inflight === undefined) return;
  const id = params.requestId;
  if (typeof id === 'string' || typeof id === 'number') {
    const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by client';
    inflight.get(id)?.abort(new McpError(ErrorCode.InvalidRequest, reason));
  }
}

/** Cancelled by the client (or its stream closing), as opposed to a round that ended with `input_required`. */
function cancelled(cancel: Cancellation): boolean {
  return cancel.aborted && cancel.reason !== ROUND_ENDED;
}

function failure(server: ModernDeps, req: JsonRpcRequest, env: Envelope, e: unknown): JsonRpcResponse {
  // A middleware refusing a tool call with a ToolError: the model reads it, as a handler's.
  if (req.method === 'tools/call' && e instanceof ToolError) {
    return resultResponse(req.id, finished(server, req.method, env.version, toolError(e.message)));
  }
  let error = e;
  if (MODERN_ROUTES.get(req.method)?.target && e instanceof McpError && e.code === ErrorCode.UrlElicitationRequired) {
    try {
      return resultResponse(req.id, urlRound(server, e, env));
    } catch (refused) {
      error = refused;
    }
  }
  return errorResponse(req.id, toWireError(error, env.version, server));
}

/** The answer to one request too many on a channel (limits.maxInFlightPerSession). */
function tooManyInFlight(max: number): { code: number; message: string } {
  return { code: ErrorCode.InvalidRequest, message: `Invalid Request: more than ${max} requests in flight on this channel` };
}

const NO_ASKS: Asker = {
  ask: (method) =>
    Promise.reject(new McpError(ErrorCode.InternalError, `${method} can only be asked during tools/call, prompts/get or resources/read`)),
};

/**
 * subscriptions/listen (basic/patterns/subscriptions.mdx): settles when the stream ends, or,
 * with `endByUnwatch` (no middleware waits on it), returns at once on a channel that has `watch`.
 */
function listen(
  server: ModernDeps,
  id: RequestId,
  params: Params,
  env: Envelope,
  inbound: Inbound,
  inflight: InflightRegistry | undefined,
  endByUnwatch: boolean,
): void | Promise<void> {
  const asked = params.notifications;
  if (!isObject(asked)) {
    return inbound.send(errorResponse(id, { code: ErrorCode.InvalidParams, message: 'subscriptions/listen needs params.notifications' }));
  }
  const { maxListenStreams, maxListenUris } = server.limits;
  if (server.hub.size >= maxListenStreams) {
    return inbound.send(
      errorResponse(id, {
        code: ErrorCode.InternalError,
        message: `Server busy: ${maxListenStreams} subscriptions/listen streams are open`,
      }),
    );
  }
  const caps = server.capabilities(env.version);
  // Honour only what this server can deliver (subscriptions.mdx: the ack names the subset).
  const filter: SubscriptionFilter = {};
  if (asked.toolsListChanged === true && caps.tools?.listChanged) filter.toolsListChanged = true;
  if (asked.promptsListChanged === true && caps.prompts?.listChanged) filter.promptsListChanged = true;
  if (asked.resourcesListChanged === true && caps.resources?.listChanged) filter.resourcesListChanged = true;
  const uris = asked.resourceSubscriptions;
  if (Array.isArray(uris) && caps.resources?.subscribe) {
    // Distinct URIs, at most maxListenUris: a stream holds them for its lifetime and the
    // acknowledgement names them all, so the list is refused before anything is kept.
    const distinct = new Set<string>();
    for (const u of uris) {
      // Only URIs: each is echoed in the acknowledgement and in every resources/updated.
      if (!isUri(u)) continue;
      distinct.add(u);
      if (distinct.size > maxListenUris) {
        const message = `subscriptions/listen: at most ${maxListenUris} distinct resourceSubscriptions per stream (got ${uris.length} entries)`;
        return inbound.send(errorResponse(id, { code: ErrorCode.InvalidParams, message }));
      }
    }
    filter.resourceSubscriptions = [...distinct];
  }
  // Extensions grant their own parts (a task's status), or refuse the stream (McpError).
  const topics: string[] = [];
  if (server.extensions.size > 0) {
    const client = { info: env.clientInfo, capabilities: env.capabilities };
    const site = { era: 'modern' as const, protocolVersion: env.version, client, inbound, session: undefined };
    try {
      for (const e of server.extensions.all) {
        const grant = e.listen?.(asked, client, site);
        if (grant === undefined) continue;
        Object.assign(filter, grant.acknowledged);
        topics.push(...grant.topics);
      }
    } catch (e) {
      return inbound.send(errorResponse(id, toWireError(e, env.version, server)));
    }
  }
  // A watched channel (HTTP) hears of the end at `unwatch` (transport-seam.ts): no promise per
  // open stream. Otherwise the work settles when the stream ends, the one promise it holds.
  if (endByUnwatch && inbound.watch !== undefined)
    return new Subscription(server, id, filter, topics, inbound, inflight, undefined).start();
  return new Promise<void>((resolve) => new Subscription(server, id, filter, topics, inbound, inflight, resolve).start());
}
