/**
 * Handshake-era dispatch (2024-11-05 … 2025-11-25). The handshake swaps tables instead of
 * sprinkling checks: before `initialize` only it and `ping` exist; after it, until
 * `notifications/initialized`, only `ping`; then the full table. Features answer
 * era-neutral; each route shapes the answer for the session's revision (shape.ts).
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import {
  asWireResult,
  errorResponse,
  resultResponse,
  type JsonRpcResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from '../../protocol/jsonrpc.js';
import { revision, since } from '../../protocol/revisions.js';
import { LATEST_LEGACY_VERSION, isLegacyVersion, type LegacyVersion } from '../../protocol/versions.js';
import type { ClientCapabilities, InitializeResult, Result } from '../../protocol/types.js';
import { clientCan, isAnswer, type AskAnswers, type AskMethod, type AskParams, type Asker } from '../ask.js';
import { Call } from '../call.js';
import { Cancellation } from '../cancel.js';
import type { AskOptions } from '../context.js';
import { isImplementation, isLoggingLevel, isObject, isUri, quoted } from '../guards.js';
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
import type { Inbound } from '../transport-seam.js';
import { toWireError } from '../wire-error.js';
import type { ListKind } from '../registry.js';
import type { Session } from './session.js';

/** A request's params as they came off the wire. */
type Params = Record<string, unknown>;
type Capability = 'tools' | 'prompts' | 'resources' | 'completions' | 'logging';

const EMPTY: Result = Object.freeze({});

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
    run: (server, session, params) => {
      const uri = params.uri;
      if (!isUri(uri)) throw new McpError(ErrorCode.InvalidParams, 'uri must be a URI (RFC 3986)');
      if (!add) {
        session.subscriptions?.delete(uri);
        return EMPTY;
      }
      // A session holds its subscriptions for its lifetime: as many as one listen stream may.
      const subscriptions = (session.subscriptions ??= new Set());
      const max = server.limits.maxListenUris;
      if (!subscriptions.has(uri) && subscriptions.size >= max) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `resources/subscribe: at most ${max} resources per session; unsubscribe from one first`,
        );
      }
      subscriptions.add(uri);
      return EMPTY;
    },
    shape: asIs,
  });
}

/** A list was served: seed 004's "changed since last fetched" marker for it is cleared. */
function fetched<R>(session: Session, kind: ListKind, result: R | Promise<R>): R | Promise<R> {
  if (!(result instanceof Promise)) {
    session.listFetched(kind);
    return result;
  }
  return result.then((r) => {
    session.listFetched(kind);
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
      shape: (v, read) => shapeReadResourceResult(v, read.result),
    }),
    'resources/subscribe': subscription(true),
    'resources/unsubscribe': subscription(false),
    'logging/setLevel': route({
      need: 'logging',
      run: (_server, session, params) => {
        if (!isLoggingLevel(params.level)) throw new McpError(ErrorCode.InvalidParams, `Invalid log level: ${quoted(params.level)}`);
        session.logLevel = params.level;
        return EMPTY;
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

/** 2025-06-18 `PrimitiveSchemaDefinition`: flat properties of primitive types; multi-select arrived in 2025-11-25. */
function primitiveOnly(schema: unknown): string | undefined {
  const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  for (const [name, prop] of Object.entries(props)) {
    const type = isObject(prop) ? prop.type : undefined;
    if (!['string', 'number', 'integer', 'boolean'].includes(String(type))) return `field "${name}" has type ${JSON.stringify(type)}`;
  }
  return undefined;
}

const ELICITATION_SINCE = since((r) => r.methods.serverRequests.has('elicitation/create'));
const SAMPLING_TOOLS_SINCE = since((r) => r.capabilities.client.has('sampling.tools'));

/** Reaches the client through real server-to-client requests on the session. */
class SessionAsker implements Asker {
  constructor(
    private readonly session: Session,
    private readonly inbound: Inbound,
    private readonly cancel: Cancellation,
  ) {}

  async ask<M extends AskMethod>(method: M, params: AskParams[M], options: AskOptions | undefined): Promise<AskAnswers[M]> {
    const session = this.session;
    const v = session.protocolVersion ?? LATEST_LEGACY_VERSION;
    // A failed ask is the handler's problem, not the client's request's: a local error
    // (a tool reports it as isError), never a request that the revision cannot carry.
    const refuse = (why: string) => new JanusError('PROTOCOL', why);
    const rev = revision(v);
    const wire: Params = { ...params };
    if (method === 'elicitation/create') {
      if (!rev.methods.serverRequests.has(method))
        throw refuse(`elicitation needs protocol ${ELICITATION_SINCE} or later (session uses ${v})`);
      const problem = rev.features.multiSelectElicitation ? undefined : primitiveOnly(wire.requestedSchema);
      if (problem) throw refuse(`${problem}: protocol ${v} elicitation allows only string, number, integer, boolean and enum fields`);
    }
    if (!clientCan(session.clientCapabilities, method, params)) throw refuse(`the client did not declare the capability ${method} needs`);
    if (
      method === 'sampling/createMessage' &&
      !rev.capabilities.client.has('sampling.tools') &&
      (wire.tools !== undefined || wire.toolChoice !== undefined)
    ) {
      throw refuse(`sampling with tools needs protocol ${SAMPLING_TOOLS_SINCE} (session uses ${v})`);
    }
    // `mode` came with URL elicitation.
    const sent =
      method === 'elicitation/create' && wire.mode === undefined && rev.features.urlElicitation ? { mode: 'form', ...wire } : wire;
    const answer = await session.request(method, sent, this.inbound, this.cancel.signal, options?.timeoutMs);
    if (!isAnswer(method, answer)) throw refuse(`the client's answer to ${method} does not have the shape its result needs`);
    return answer;
  }
}

export async function handleLegacyRequest(server: ServerServices, session: Session, req: JsonRpcRequest, inbound: Inbound): Promise<void> {
  const params = req.params ?? EMPTY;
  if (req.method === 'initialize') {
    if (session.protocolVersion !== undefined) {
      return inbound.send(errorResponse(req.id, { code: ErrorCode.InvalidRequest, message: 'Session already initialized' }));
    }
    try {
      return inbound.send(resultResponse(req.id, initialize(server, session, params)));
    } catch (e) {
      return inbound.send(errorResponse(req.id, toWireError(e, LATEST_LEGACY_VERSION, server)));
    }
  }
  if (session.closed) return inbound.send(errorResponse(req.id, { code: ErrorCode.InvalidRequest, message: 'Session closed' }));
  if (req.method === 'ping') return inbound.send(resultResponse(req.id, EMPTY));
  const v = session.protocolVersion;
  if (!session.initialized || v === undefined) {
    const why = v === undefined ? 'send initialize first' : 'send notifications/initialized first';
    return inbound.send(errorResponse(req.id, { code: ErrorCode.InvalidRequest, message: `Session not initialized: ${why}` }));
  }
  const entry = SESSION_ROUTES.get(req.method);
  if (!entry || (entry.need && !offers(server, entry.need, v))) {
    return inbound.send(errorResponse(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${quoted(req.method)}` }));
  }
  const maxInFlight = server.limits.maxInFlightPerSession;
  if (session.inflight.size >= maxInFlight) {
    return inbound.send(
      errorResponse(req.id, {
        code: ErrorCode.InvalidRequest,
        message: `Invalid Request: more than ${maxInFlight} requests in flight on this session`,
      }),
    );
  }
  // On HTTP a dropped stream is not cancellation (legacy transports §Sending Messages); on stdio the channel closing is.
  const cancel = new Cancellation(inbound.transport === 'http' ? undefined : inbound);
  session.inflight.set(req.id, cancel);
  const ctx = new Call({
    requestId: req.id,
    era: 'legacy',
    version: v,
    client: { info: session.clientInfo, capabilities: session.clientCapabilities },
    meta: isObject(params._meta) ? params._meta : undefined,
    sessionId: session.id,
    inbound,
    cancel,
    // Without logging/setLevel the server may log at any level (2025-11-25 logging.mdx).
    logLevel: session.logLevel ?? 'debug',
    asker: new SessionAsker(session, inbound, cancel),
  });
  let response: JsonRpcResponse | undefined;
  try {
    response = resultResponse(req.id, asWireResult(entry.shape(v, await entry.run(server, session, params, ctx))));
  } catch (e) {
    // A cancelled request gets no answer, so its failure (often the cancellation itself) is not one to report.
    if (!cancel.aborted) response = errorResponse(req.id, toWireError(e, v, server));
  } finally {
    session.inflight.delete(req.id);
  }
  // cancellation.mdx: a cancelled request gets no response.
  if (response !== undefined && !cancel.aborted) inbound.send(response);
}

export function handleLegacyNotification(session: Session, n: JsonRpcNotification): void {
  const params = n.params ?? EMPTY;
  switch (n.method) {
    case 'notifications/initialized':
      if (session.protocolVersion !== undefined) session.initialized = true;
      return;
    case 'notifications/cancelled': {
      const id = params.requestId;
      if (typeof id === 'string' || typeof id === 'number') {
        const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by client';
        session.inflight.get(id)?.abort(new McpError(ErrorCode.InvalidRequest, reason));
      }
      return;
    }
    default:
      // notifications/roots/list_changed, notifications/progress and unknown ones need no answer.
      return;
  }
}
