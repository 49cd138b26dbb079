/**
 * Running a 2026-07-28 method that may ask the client (basic/patterns/mrtr.mdx: tools/call,
 * prompts/get, resources/read): the answers so far go in, and while some are missing the call
 * ends with `input_required` and a sealed `requestState` (request-state.ts) that the retry
 * presents, once.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import type { InputRequiredResult } from '../../protocol/types.js';
import type { Asker } from '../ask.js';
import { Call } from '../call.js';
import type { Cancellation } from '../cancel.js';
import { isObject, setOwn } from '../guards.js';
import type { ResolvedLimits } from '../limits.js';
import type { Inbound } from '../transport-seam.js';
import type { Envelope } from './envelope.js';
import { BLOCKED, MrtrRound } from './mrtr.js';
import type { RequestStateCodec, StateBinding } from './request-state.js';

/** A request's params as they came off the wire. */
type Params = Record<string, unknown>;

/** What a round needs of the server. */
export interface RoundServer {
  /** Seals and opens MRTR `requestState`. */
  readonly codec: RequestStateCodec;
  readonly limits: ResolvedLimits;
}

/** The cancellation reason of a round that ended with `input_required` (its answer is still sent). */
export const ROUND_ENDED = Symbol('input_required');

export function requestContext(
  req: JsonRpcRequest,
  env: Envelope,
  inbound: Inbound,
  cancel: Cancellation,
  asker: Asker,
  state: Record<string, unknown> | undefined,
): Call {
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
    state,
  });
}

/**
 * What a `requestState` is bound to (mrtr.mdx §Server Requirements item 5): the method, its
 * target and a digest of the arguments; and the client. Who the client is, the server can
 * only verify through authentication: the transport's `principal` when it has one. Without
 * one, the state is bound to what the request declares (clientInfo and capabilities), which
 * keeps a state from serving another kind of client by mistake but is no proof of identity:
 * there, single use and encryption are what protect it. Only computed when a state is opened
 * or sealed: most calls never pay for the hashes.
 */
async function stateBinding(
  codec: RequestStateCodec,
  req: JsonRpcRequest,
  params: Params,
  target: unknown,
  env: Envelope,
  inbound: Inbound,
): Promise<StateBinding> {
  const argumentsBound = req.method === 'tools/call' || req.method === 'prompts/get';
  const principal = inbound.principal;
  const client =
    principal !== undefined
      ? { principal }
      : { info: env.clientInfo ? { name: env.clientInfo.name, version: env.clientInfo.version } : null, capabilities: env.capabilities };
  const [d, c] = await Promise.all([codec.digest(argumentsBound ? params.arguments : null), codec.digest(client)]);
  // A target that is not a string is refused by the feature; it binds to nothing.
  return { m: req.method, t: typeof target === 'string' ? target : '', d, c };
}

const NO_ANSWERS: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null));

/** The retry's `inputResponses`, checked before its state is claimed, so a malformed retry does not use it up. */
function inputResponses(params: Params): Record<string, unknown> | undefined {
  const responses = params.inputResponses;
  if (responses === undefined) return undefined;
  if (!isObject(responses)) throw new McpError(ErrorCode.InvalidParams, 'inputResponses must be an object keyed by input request');
  return responses;
}

/** A request that may answer `input_required`, as the round functions below pass it along. */
interface RoundRequest<S extends RoundServer> {
  readonly server: S;
  readonly req: JsonRpcRequest;
  readonly params: Params;
  readonly env: Envelope;
  readonly inbound: Inbound;
  readonly cancel: Cancellation;
  /** What its `requestState` is bound to (the tool or prompt name, the URI). */
  readonly target: unknown;
  readonly run: (server: S, params: Params, ctx: Call, scope: undefined) => object | Promise<object>;
  readonly state: Record<string, unknown> | undefined;
}

/**
 * Runs `run` with the answers so far; `input_required` while some are missing (mrtr.mdx
 * §Basic Workflow). A first call (no state, no answers) whose handler finishes synchronously
 * is answered without a promise.
 */
export function withInput<S extends RoundServer>(
  server: S,
  req: JsonRpcRequest,
  params: Params,
  env: Envelope,
  inbound: Inbound,
  cancel: Cancellation,
  target: unknown,
  run: (server: S, params: Params, ctx: Call, scope: undefined) => object | Promise<object>,
  state: Record<string, unknown> | undefined,
): object | Promise<object | InputRequiredResult> {
  const responses = inputResponses(params);
  if (params.requestState !== undefined || responses !== undefined) {
    return answered({ server, req, params, env, inbound, cancel, target, run, state }, responses);
  }
  // Most calls carry no answers: nothing to open, and the request is gathered into a
  // RoundRequest only when its handler is still running (inRound, unrolled for that).
  const round = new MrtrRound(NO_ANSWERS, env.capabilities, server.limits.maxInputRequests);
  const work = run(server, params, requestContext(req, env, inbound, cancel, round, state), undefined);
  if (!(work instanceof Promise)) return work;
  return roundOutcome({ server, req, params, env, inbound, cancel, target, run, state }, round, work, 0);
}

/** A retry: its sealed state opened and its answers gathered, then the round. */
async function answered<S extends RoundServer>(
  r: RoundRequest<S>,
  responses: Record<string, unknown> | undefined,
): Promise<object | InputRequiredResult> {
  const codec = r.server.codec;
  let lastAsked: string[] | undefined;
  let rounds = 0;
  // Keyed by the client's strings: no prototype, so `__proto__` or `toString` is an ordinary key.
  const answers: Record<string, unknown> = Object.create(null);
  if (r.params.requestState !== undefined) {
    const opened = await codec.open(r.params.requestState, await stateBinding(codec, r.req, r.params, r.target, r.env, r.inbound));
    Object.assign(answers, opened.a);
    lastAsked = opened.k;
    rounds = opened.r;
  }
  // mrtr.mdx: unknown keys SHOULD be ignored; earlier rounds' answers come only from the sealed state.
  for (const [k, v] of Object.entries(responses ?? {})) if (!lastAsked || lastAsked.includes(k)) setOwn(answers, k, v);
  return inRound(r, answers, rounds);
}

/** Runs the handler with `known` answers: its result, or the next `input_required` round. */
function inRound<S extends RoundServer>(
  r: RoundRequest<S>,
  known: Readonly<Record<string, unknown>>,
  rounds: number,
): object | Promise<object | InputRequiredResult> {
  const round = new MrtrRound(known, r.env.capabilities, r.server.limits.maxInputRequests);
  const work = r.run(r.server, r.params, requestContext(r.req, r.env, r.inbound, r.cancel, round, r.state), undefined);
  if (!(work instanceof Promise)) return work; // finished synchronously: it asked for nothing
  return roundOutcome(r, round, work, rounds);
}

/** A handler still running: its result, or (parked on an ask) the `input_required` round that ends here. */
async function roundOutcome<S extends RoundServer>(
  r: RoundRequest<S>,
  round: MrtrRound,
  work: Promise<object>,
  rounds: number,
): Promise<object | InputRequiredResult> {
  const finished = await round.outcome(work);
  if (finished !== BLOCKED) return finished;
  // The handler is parked on an ask: end the round and let it unwind.
  r.cancel.abort(ROUND_ENDED);
  const max = r.server.limits.maxInputRounds;
  if (rounds >= max) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `Invalid Request: ${r.req.method} needs more than ${max} input rounds (the server's limit)`,
    );
  }
  const codec = r.server.codec;
  const binding = await stateBinding(codec, r.req, r.params, r.target, r.env, r.inbound);
  const requestState = await codec.seal(binding, { a: round.used, k: [...round.asked.keys()], r: rounds + 1 });
  // The end of the round: the handler is parked on asks the client must answer first.
  return { resultType: 'input_required', inputRequests: round.inputRequests(), requestState };
}
