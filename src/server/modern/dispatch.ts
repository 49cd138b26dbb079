/**
 * Stateless-era dispatch (2026-07-28): every request stands alone. The envelope is read
 * per request; results carry `resultType`, serverInfo in `_meta`, and cache hints where
 * the schema requires them. Never imports legacy code.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { errorResponse, resultResponse, type JsonRpcMessage, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import type { SubscriptionFilter } from '../../protocol/types.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import { Call, type Asker } from '../call.js';
import { Cancellation, type Abortable } from '../cancel.js';
import type { Inbound } from '../inbound.js';
import type { Internals } from '../internals.js';
import { readEnvelope, SUPPORTED_VERSIONS, type Envelope } from './envelope.js';
import type { ListenHub, Listener } from './listen.js';
import { BLOCKED, MrtrRound } from './mrtr.js';
import type { RequestStateCodec } from './request-state.js';

type Params = Record<string, unknown>;

export interface ModernDeps extends Internals {
  readonly codec: RequestStateCodec;
  readonly hub: ListenHub;
  /** In-flight requests of a channel that cancels by notification (stdio), if any. */
  inflightFor(inbound: Inbound): Map<string | number, Abortable> | undefined;
  /** `{ serverInfo }` as a result `_meta`, built once. */
  readonly infoMeta: Params;
}

type Kind = 'tools' | 'prompts' | 'resources' | 'completions';
type Plain = (d: ModernDeps, p: Params, call: Call) => Params | Promise<Params>;
/** The three methods that may answer input_required (mrtr.mdx). */
type Asking = { target: (p: Params) => unknown; run: (d: ModernDeps, p: Params, call: Call) => Params | Promise<Params> };

const PLAIN: Record<string, { need?: Kind; cache?: true; run: Plain }> = {
  'server/discover': { cache: true, run: (d, _p, c) => discover(d, c.protocolVersion) },
  'tools/list': { need: 'tools', cache: true, run: (d, p, c) => d.ops.listTools(p, c.protocolVersion) },
  'prompts/list': { need: 'prompts', cache: true, run: (d, p, c) => d.ops.listPrompts(p, c.protocolVersion) },
  'resources/list': { need: 'resources', cache: true, run: (d, p, c) => d.ops.listResources(p, c.protocolVersion) },
  'resources/templates/list': { need: 'resources', cache: true, run: (d, p, c) => d.ops.listTemplates(p, c.protocolVersion) },
  'completion/complete': { need: 'completions', run: (d, p, c) => d.ops.complete(p, c) },
};

const ASKING: Record<string, { need: Kind } & Asking> = {
  'tools/call': { need: 'tools', target: (p) => p.name, run: (d, p, c) => d.ops.callTool(p, c, c.protocolVersion) },
  'prompts/get': { need: 'prompts', target: (p) => p.name, run: (d, p, c) => d.ops.getPrompt(p, c, c.protocolVersion) },
  'resources/read': {
    need: 'resources',
    target: (p) => p.uri,
    run: async (d, p, c) => {
      const { result, cache } = await d.ops.readResource(p, c, c.protocolVersion);
      const hint = cache ?? d.cacheHint('resources/read');
      return { ...result, ttlMs: hint.ttlMs, cacheScope: hint.scope };
    },
  },
};

function discover(d: ModernDeps, v: ProtocolVersion): Params {
  const result: Params = { supportedVersions: SUPPORTED_VERSIONS, capabilities: d.capabilities(v) };
  if (d.instructions !== undefined) result.instructions = d.instructions;
  return result;
}

/**
 * One copy of a result (the handler's may be a shared object) with serverInfo in `_meta`
 * (basic/index.mdx §_meta: SHOULD be on every result) and, when given, its resultType.
 */
function withServerInfo(d: ModernDeps, result: Params, resultType?: 'complete'): Params {
  const meta = result._meta as Params | undefined;
  const out: Params = { ...result, _meta: meta ? { ...meta, [META.serverInfo]: d.info } : d.infoMeta };
  if (resultType) out.resultType = resultType;
  return out;
}

/**
 * -32042 does not exist in 2026-07-28 (basic/index.mdx §Error Codes): a handler that throws
 * `UrlElicitationRequiredError` gets an input_required round of URL elicitations instead;
 * the retry runs it again, and it decides from its own records whether the user finished.
 */
function urlRound(d: ModernDeps, e: McpError, env: Envelope): Params {
  const list = ((e.data as { elicitations?: Array<Record<string, unknown>> } | undefined)?.elicitations ?? []);
  const url = env.capabilities.elicitation as Record<string, unknown> | undefined;
  if (!url || !('url' in url)) {
    throw new McpError(ErrorCode.MissingRequiredClientCapability, 'This request needs URL elicitation', { requiredCapabilities: { elicitation: { url: {} } } });
  }
  const inputRequests: Params = {};
  list.forEach((el, i) => {
    inputRequests[`url-${String(el.elicitationId ?? i)}`] = { method: 'elicitation/create', params: { mode: 'url', message: el.message, url: el.url } };
  });
  return withServerInfo(d, { resultType: 'input_required', inputRequests });
}

export async function handleModernRequest(d: ModernDeps, req: JsonRpcRequest, inbound: Inbound): Promise<void> {
  let env: Envelope;
  try {
    env = readEnvelope(req.params);
  } catch (e) {
    return inbound.send(errorResponse(req.id, (e as McpError).toJSON()));
  }
  const params = req.params!;
  if (req.method === 'subscriptions/listen') return listen(d, req, env, inbound);
  const plain = PLAIN[req.method];
  const asking = plain ? undefined : ASKING[req.method];
  const need = plain?.need ?? asking?.need;
  if ((!plain && !asking) || (need && !(need in d.capabilities(env.version)))) {
    return inbound.send(errorResponse(req.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${req.method}` }));
  }
  const inflight = d.inflightFor(inbound);
  const cancel = new Cancellation(inbound);
  inflight?.set(req.id, cancel);
  let response;
  try {
    const result = plain
      ? await plain.run(d, params, call(d, req, env, inbound, cancel, NO_ASKS))
      : await withInput(d, req, env, inbound, cancel, asking!);
    if (plain?.cache) {
      const hint = d.cacheHint(req.method);
      result.ttlMs = hint.ttlMs;
      result.cacheScope = hint.scope;
    }
    response = resultResponse(req.id, withServerInfo(d, result, result.resultType === 'input_required' ? undefined : 'complete'));
  } catch (e) {
    let error = e;
    if (asking && e instanceof McpError && e.code === ErrorCode.UrlElicitationRequired) {
      try {
        response = resultResponse(req.id, urlRound(d, e, env));
      } catch (refused) {
        error = refused;
      }
    }
    response ??= errorResponse(req.id, error instanceof McpError ? error.toJSON() : internal(d, error));
  } finally {
    inflight?.delete(req.id);
  }
  // A cancelled request gets no response; on HTTP its stream is gone anyway.
  if (!cancel.aborted || cancel.reason === ROUND_ENDED) inbound.send(response);
}

const ROUND_ENDED = Symbol('input_required');
const NO_ASKS: Asker = {
  ask: (method) => Promise.reject(new McpError(ErrorCode.InternalError, `${method} can only be asked during tools/call, prompts/get or resources/read`)),
};

function call(d: ModernDeps, req: JsonRpcRequest, env: Envelope, inbound: Inbound, cancel: Cancellation, asker: Asker): Call {
  return new Call({
    requestId: req.id,
    era: 'modern',
    version: env.version,
    client: { info: env.clientInfo, capabilities: env.capabilities },
    meta: env.meta,
    sessionId: undefined,
    inbound,
    cancel,
    logLevel: env.logLevel,
    asker,
  });
}

async function withInput(d: ModernDeps, req: JsonRpcRequest, env: Envelope, inbound: Inbound, cancel: Cancellation, m: Asking): Promise<Params> {
  const params = req.params!;
  // The state's binding (method, target, digest of the arguments) is only needed when a
  // state is verified or issued: most calls never pay for the hash.
  const binding = async () => ({
    m: req.method,
    t: String(m.target(params) ?? ''),
    d: await d.codec.digest(req.method === 'tools/call' || req.method === 'prompts/get' ? params.arguments : null),
  });
  const known: Params = {};
  let lastAsked: string[] | undefined;
  if (params.requestState !== undefined) {
    const state = await d.codec.verify(params.requestState, await binding());
    Object.assign(known, state.a);
    lastAsked = state.k;
  }
  const responses = params.inputResponses;
  if (responses !== undefined) {
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
      throw new McpError(ErrorCode.InvalidParams, 'inputResponses must be an object keyed by input request');
    }
    // mrtr.mdx: unknown keys SHOULD be ignored; earlier rounds' answers come only from the signed state.
    for (const [k, v] of Object.entries(responses)) if (!lastAsked || lastAsked.includes(k)) known[k] = v;
  }
  const round = new MrtrRound(known, env.capabilities);
  const work = m.run(d, params, call(d, req, env, inbound, cancel, round));
  if (!(work instanceof Promise)) return work; // finished synchronously: it asked for nothing
  const finished = await round.outcome(work);
  if (finished !== BLOCKED) return finished;
  // The handler is parked on an ask: end the round and let it unwind.
  cancel.abort(ROUND_ENDED);
  const requestState = await d.codec.sign({ ...(await binding()), x: Date.now() + d.codec.ttlMs, a: round.used, k: [...round.asked.keys()] });
  return { resultType: 'input_required', inputRequests: round.inputRequests(), requestState };
}

async function listen(d: ModernDeps, req: JsonRpcRequest, env: Envelope, inbound: Inbound): Promise<void> {
  const asked = req.params!.notifications;
  if (!asked || typeof asked !== 'object' || Array.isArray(asked)) {
    return inbound.send(errorResponse(req.id, { code: ErrorCode.InvalidParams, message: 'subscriptions/listen needs params.notifications' }));
  }
  const want = asked as SubscriptionFilter;
  const caps = d.capabilities(env.version);
  // Honour only what this server can deliver (subscriptions.mdx: the ack names the subset).
  const filter: SubscriptionFilter = {};
  if (want.toolsListChanged === true && caps.tools?.listChanged) filter.toolsListChanged = true;
  if (want.promptsListChanged === true && caps.prompts?.listChanged) filter.promptsListChanged = true;
  if (want.resourcesListChanged === true && caps.resources?.listChanged) filter.resourcesListChanged = true;
  if (Array.isArray(want.resourceSubscriptions) && caps.resources?.subscribe) {
    filter.resourceSubscriptions = want.resourceSubscriptions.filter((u): u is string => typeof u === 'string');
  }
  await new Promise<void>((resolve) => new Subscription(d, req.id, filter, inbound, resolve).start());
}

/**
 * One open listen stream. A class rather than closures: a server may hold 10,000 of them,
 * so each costs one object (plus its promise), and it is its own abort listener.
 */
class Subscription implements Listener, Abortable {
  private graceful = false;
  private done = false;
  private readonly inflight: Map<string | number, Abortable> | undefined;

  constructor(
    private readonly d: ModernDeps,
    readonly id: string | number,
    readonly filter: SubscriptionFilter,
    readonly channel: Inbound,
    private readonly resolve: () => void,
  ) {
    this.inflight = d.inflightFor(channel);
  }

  start(): void {
    // subscriptions.mdx: the acknowledgement is the first message of the subscription.
    this.channel.send({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: this.filter, _meta: { [META.subscriptionId]: this.id } },
    });
    const signal = this.channel.signal;
    if (signal?.aborted) return this.stop();
    signal?.addEventListener('abort', this, { once: true });
    this.inflight?.set(this.id, this); // stdio: notifications/cancelled ends it
    this.d.hub.add(this);
  }

  send(message: JsonRpcMessage): void {
    this.channel.send(message);
  }

  /** Server-initiated end: a final result, then close. */
  end(): void {
    this.graceful = true;
    this.stop();
  }

  /** Cancelled by the client (stdio notification) or the stream went away (HTTP). */
  abort(): void {
    this.stop();
  }

  handleEvent(): void {
    this.stop();
  }

  private stop(): void {
    if (this.done) return;
    this.done = true;
    this.d.hub.remove(this);
    this.inflight?.delete(this.id);
    this.channel.signal?.removeEventListener('abort', this);
    if (this.graceful) {
      this.channel.send(resultResponse(this.id, { resultType: 'complete', _meta: { [META.subscriptionId]: this.id, [META.serverInfo]: this.d.info } }));
    }
    this.resolve();
  }
}

function internal(d: ModernDeps, e: unknown): { code: number; message: string } {
  d.reportError(e);
  return { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : 'Internal error' };
}
