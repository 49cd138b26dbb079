/**
 * Handshake-era dispatch (2024-11-05 … 2025-11-25). The handshake swaps tables instead of
 * sprinkling checks: before `initialize` only it and `ping` exist; after it, until
 * `notifications/initialized`, only `ping`; then the full table.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import { errorResponse, resultResponse, type JsonRpcNotification, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { revision, since } from '../../protocol/revisions.js';
import { LATEST_LEGACY_VERSION, isLegacyVersion, type LegacyVersion } from '../../protocol/versions.js';
import { LOGGING_LEVELS, type LoggingLevel } from '../../protocol/types.js';
import { Call, clientCan, type Asker } from '../call.js';
import { Cancellation } from '../cancel.js';
import type { Inbound } from '../inbound.js';
import type { Internals } from '../internals.js';
import { pick } from '../shape.js';
import type { Session } from './session.js';

type Params = Record<string, unknown>;
type Handler = (s: Internals, session: Session, params: Params, call: Call) => Promise<Params> | Params;

const EMPTY = Object.freeze({}) as Params;

function initialize(s: Internals, session: Session, params: Params): Params {
  const requested = params.protocolVersion;
  if (typeof requested !== 'string') throw new McpError(ErrorCode.InvalidParams, 'initialize needs params.protocolVersion');
  // lifecycle.mdx §Version Negotiation: agree to a supported version, else offer our latest
  // handshake revision. 2026-07-28 is never negotiated here: it has no handshake.
  const version: LegacyVersion = isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
  session.protocolVersion = version;
  session.clientInfo = params.clientInfo as Session['clientInfo'];
  const caps = params.capabilities;
  session.clientCapabilities = caps && typeof caps === 'object' ? (caps as Session['clientCapabilities']) : {};
  const result: Params = {
    protocolVersion: version,
    capabilities: s.capabilities(version),
    serverInfo: pick('Implementation', version, s.info as unknown as Params),
  };
  if (s.instructions !== undefined) result.instructions = s.instructions;
  return result;
}

function setLevel(_s: Internals, session: Session, params: Params): Params {
  const level = params.level;
  if (typeof level !== 'string' || !LOGGING_LEVELS.includes(level as LoggingLevel)) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid log level: ${String(level)}`);
  }
  session.logLevel = level as LoggingLevel;
  return EMPTY;
}

function subscription(add: boolean): Handler {
  return (s, session, params) => {
    const uri = params.uri;
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'uri must be a string');
    if (add) (session.subscriptions ??= new Set()).add(uri);
    else session.subscriptions?.delete(uri);
    return EMPTY;
  };
}

/** Methods after the handshake, with the capability each needs (-32601 when undeclared). */
const FULL: Record<string, { need?: 'tools' | 'prompts' | 'resources' | 'completions' | 'logging'; run: Handler }> = {
  ping: { run: () => EMPTY },
  'tools/list': { need: 'tools', run: (s, ss, p) => s.ops.listTools(p, ss.protocolVersion!) },
  'tools/call': { need: 'tools', run: (s, ss, p, c) => s.ops.callTool(p, c, ss.protocolVersion!) },
  'prompts/list': { need: 'prompts', run: (s, ss, p) => s.ops.listPrompts(p, ss.protocolVersion!) },
  'prompts/get': { need: 'prompts', run: (s, ss, p, c) => s.ops.getPrompt(p, c, ss.protocolVersion!) },
  'resources/list': { need: 'resources', run: (s, ss, p) => s.ops.listResources(p, ss.protocolVersion!) },
  'resources/templates/list': { need: 'resources', run: (s, ss, p) => s.ops.listTemplates(p, ss.protocolVersion!) },
  'resources/read': { need: 'resources', run: async (s, ss, p, c) => (await s.ops.readResource(p, c, ss.protocolVersion!)).result },
  'resources/subscribe': { need: 'resources', run: subscription(true) },
  'resources/unsubscribe': { need: 'resources', run: subscription(false) },
  'logging/setLevel': { need: 'logging', run: setLevel },
  'completion/complete': { need: 'completions', run: (s, _ss, p, c) => s.ops.complete(p, c) },
};

const NEVER_READY: Record<string, true> = { initialize: true };

/** 2024-11-05 had completion/complete but no `completions` capability: there, offering prompts or templates is enough. */
function offers(s: Internals, need: string, v: LegacyVersion): boolean {
  if (need === 'completions' && !revision(v).capabilities.server.has('completions')) return s.ops.hasCompletions();
  return need in s.capabilities(v);
}

/** 2025-06-18 `PrimitiveSchemaDefinition`: flat properties of primitive types; multi-select arrived in 2025-11-25. */
function primitiveOnly(schema: unknown): string | undefined {
  const props = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  for (const [name, prop] of Object.entries(props)) {
    if (!['string', 'number', 'integer', 'boolean'].includes(String(prop?.type))) return `field "${name}" has type ${JSON.stringify(prop?.type)}`;
  }
  return undefined;
}

const ELICITATION_SINCE = since((r) => r.methods.serverRequests.has('elicitation/create'));
const SAMPLING_TOOLS_SINCE = since((r) => r.capabilities.client.has('sampling.tools'));

/** Reaches the client through real server-to-client requests on the session. */
class SessionAsker implements Asker {
  constructor(private readonly session: Session, private readonly inbound: Inbound, private readonly cancel: Cancellation) {}
  ask(method: Parameters<Asker['ask']>[0], params: Params, options: { timeoutMs?: number } | undefined): Promise<Params> {
    const v = this.session.protocolVersion!;
    // A failed ask is the handler's problem, not the client's request's: a local error
    // (a tool reports it as isError), never a request that the revision cannot carry.
    const refuse = (why: string) => Promise.reject(new JanusError('PROTOCOL', why));
    const r = revision(v);
    if (method === 'elicitation/create') {
      if (!r.methods.serverRequests.has(method)) return refuse(`elicitation needs protocol ${ELICITATION_SINCE} or later (session uses ${v})`);
      const problem = r.features.multiSelectElicitation ? undefined : primitiveOnly(params.requestedSchema);
      if (problem) return refuse(`${problem}: protocol ${v} elicitation allows only string, number, integer, boolean and enum fields`);
    }
    if (!clientCan(this.session.clientCapabilities, method, params)) {
      return refuse(`the client did not declare the capability ${method} needs`);
    }
    let p = params;
    if (method === 'sampling/createMessage' && !r.capabilities.client.has('sampling.tools') && (p.tools !== undefined || p.toolChoice !== undefined)) {
      return refuse(`sampling with tools needs protocol ${SAMPLING_TOOLS_SINCE} (session uses ${v})`);
    }
    // `mode` came with URL elicitation.
    if (method === 'elicitation/create' && p.mode === undefined && r.features.urlElicitation) p = { mode: 'form', ...p };
    return this.session.request(method, p, this.inbound, this.cancel.signal, options?.timeoutMs);
  }
}

export async function handleLegacyRequest(s: Internals, session: Session, req: JsonRpcRequest, inbound: Inbound): Promise<void> {
  const params = req.params ?? EMPTY;
  const send = (m: Parameters<Inbound['send']>[0]) => inbound.send(m);
  if (req.method === 'initialize') {
    if (session.protocolVersion !== undefined) {
      return send(errorResponse(req.id, { code: ErrorCode.InvalidRequest, message: 'Session already initialized' }));
    }
    try {
      return send(resultResponse(req.id, initialize(s, session, params)));
    } catch (e) {
      return send(errorResponse(req.id, toWireError(s, e)));
    }
  }
  if (session.closed) return send(errorResponse(req.id, { code: ErrorCode.InvalidRequest, message: 'Session closed' }));
  if (req.method === 'ping') return send(resultResponse(req.id, EMPTY));
  if (!session.initialized) {
    const why = session.protocolVersion === undefined ? 'send initialize first' : 'send notifications/initialized first';
    return send(errorResponse(req.id, { code: ErrorCode.InvalidRequest, message: `Session not initialized: ${why}` }));
  }
  const entry = FULL[req.method];
  const v = session.protocolVersion!;
  if (!entry || NEVER_READY[req.method] || (entry.need && !offers(s, entry.need, v))) {
    return send(errorResponse(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${req.method}` }));
  }
  // On HTTP a dropped stream is not cancellation (legacy transports §Sending Messages); on stdio the channel closing is.
  const cancel = new Cancellation(inbound.transport === 'http' ? undefined : inbound);
  session.inflight.set(req.id, cancel);
  const call = new Call({
    requestId: req.id,
    era: 'legacy',
    version: v,
    client: { info: session.clientInfo, capabilities: session.clientCapabilities },
    meta: params._meta as Params | undefined,
    sessionId: session.id,
    inbound,
    cancel,
    // Without logging/setLevel the server may log at any level (2025-11-25 logging.mdx).
    logLevel: session.logLevel ?? 'debug',
    asker: new SessionAsker(session, inbound, cancel),
  });
  let response;
  try {
    response = resultResponse(req.id, await entry.run(s, session, params, call));
  } catch (e) {
    response = errorResponse(req.id, toWireError(s, e));
  } finally {
    session.inflight.delete(req.id);
  }
  // cancellation.mdx: a cancelled request gets no response.
  if (!cancel.aborted) send(response);
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
        session.inflight.get(id)?.abort(new McpError(ErrorCode.InvalidRequest, String(params.reason ?? 'cancelled by client')));
      }
      return;
    }
    default:
      // notifications/roots/list_changed, notifications/progress and unknown ones need no answer.
      return;
  }
}

export function toWireError(s: Internals, e: unknown): { code: number; message: string; data?: unknown } {
  if (e instanceof McpError) return e.toJSON();
  s.reportError(e);
  return { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : 'Internal error' };
}
