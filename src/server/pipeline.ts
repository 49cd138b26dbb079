/**
 * The request pipeline both eras share: a request runs through its method's middleware (or
 * straight to its route when it has none), is held in its channel's in-flight registry while
 * it runs past its dispatch (so `notifications/cancelled` finds it and it counts against the
 * limit), and is concluded: its outcome shaped as its era sends it, or its failure answered
 * in its era's codes; a cancelled request gets no answer (cancellation.mdx). What differs per
 * era is an `EraPolicy`, one object per era made once, so the pipeline makes no closure per
 * request. Notifications go through the same middleware (`notifyThrough`).
 */
import { McpError } from '../protocol/errors.js';
import { resultResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { Result } from '../protocol/types.js';
import type { Cancellation, InflightRegistry } from './cancel.js';
import { ToolError } from './features/tool-error.js';
import { toolError } from './features/tools.js';
import { type Exchange, type Middleware, runChain } from './middleware.js';
import type { Params } from './routes.js';
import { settle } from './settle.js';
import type { Inbound } from './transport-seam.js';

/** One request being answered, as the pipeline sees it; each era's request adds what it needs. */
export interface PendingRequest<P extends PendingRequest<P>> {
  readonly policy: EraPolicy<P>;
  readonly req: JsonRpcRequest;
  readonly params: Params;
  readonly inbound: Inbound;
  readonly cancel: Cancellation;
  /** The method's middleware (empty: none). */
  readonly chain: readonly Middleware[];
  /** Where the request is held while it runs past its dispatch; undefined: nowhere (it is not counted). */
  readonly inflight: InflightRegistry | undefined;
  /** Held in `inflight` (it did not answer at once). */
  held: boolean;
}

/** What an era does at each step of the pipeline. */
export interface EraPolicy<P extends PendingRequest<P>> {
  /** The request's work, routing included: its era-neutral outcome. Not async: a synchronous route makes no promise. */
  answer(p: P, params: Params, state: Record<string, unknown> | undefined): object | Promise<object>;
  /** The middleware's view of the request. */
  exchange(p: P): Exchange;
  /** The outcome as the era sends it (shaped for the revision, with its envelope fields). */
  result(p: P, outcome: object): Result;
  /** A failure as the era answers it (its codes for the revision in use). */
  failure(p: P, error: unknown): JsonRpcResponse;
  /** Whether the request was cancelled, so that it gets no answer. */
  cancelled(p: P): boolean;
}

/** Runs a request through the pipeline. A promise only when the answer is not ready at once. */
export function runRequest<P extends PendingRequest<P>>(p: P): void | Promise<void> {
  return settle(p, p.chain.length === 0 ? answerPlain : answerThrough, conclude, p.inflight === undefined ? undefined : hold);
}

// The request's work, given the request: no closure per request (settle.ts).
function answerPlain<P extends PendingRequest<P>>(p: P): object | Promise<object> {
  return p.policy.answer(p, p.params, undefined);
}

function answerThrough<P extends PendingRequest<P>>(p: P): object | Promise<object> {
  const ex = p.policy.exchange(p);
  return runChain(p.chain, ex, () => p.policy.answer(p, ex.params, ex.state)) as object | Promise<object>;
}

/**
 * A request still running past its dispatch is in flight: cancellable, counted against the
 * limit. One answered at once never is (nothing else runs meanwhile), which also spares the
 * registry an entry made and dropped per call (V8 reallocates a Map's table as it empties).
 */
function hold<P extends PendingRequest<P>>(p: P): void {
  p.held = true;
  p.inflight?.set(p.req.id, p.cancel);
}

/** Sends a request's answer: its outcome, or its failure (`outcome` undefined). */
function conclude<P extends PendingRequest<P>>(p: P, outcome: object | undefined, error: unknown): void {
  const { policy, req, cancel } = p;
  let response: JsonRpcResponse | undefined;
  try {
    if (outcome !== undefined) response = resultResponse(req.id, policy.result(p, outcome));
    // A cancelled request gets no answer, so its failure (often the cancellation itself) is not one to report.
    else if (!policy.cancelled(p)) response = failure(p, error);
  } catch (e) {
    if (!policy.cancelled(p)) response = failure(p, e);
  } finally {
    if (p.held) p.inflight?.delete(req.id);
    cancel.release();
  }
  // cancellation.mdx: a cancelled request gets no response; on modern HTTP its stream is gone anyway.
  if (response !== undefined && !policy.cancelled(p)) p.inbound.send(response);
}

function failure<P extends PendingRequest<P>>(p: P, e: unknown): JsonRpcResponse {
  // A middleware refusing a tool call with a ToolError: the model reads it, as a handler's.
  if (p.req.method === 'tools/call' && e instanceof ToolError) return resultResponse(p.req.id, p.policy.result(p, toolError(e.message)));
  return p.policy.failure(p, e);
}

/**
 * A notification through its middleware: `deliver` takes it in; a refusal (`McpError`) drops it,
 * anything else is the server's failure, reported. `rethrow` names the refusals the transport
 * must hear of (it answers them with an error status).
 */
export function notifyThrough(
  chain: readonly Middleware[],
  ex: Exchange,
  deliver: (params: Params) => void | Promise<void>,
  cancel: Cancellation,
  reportError: (e: unknown) => void,
  rethrow?: (e: McpError) => boolean,
): Promise<void> {
  return Promise.resolve(runChain(chain, ex, async () => deliver(ex.params)))
    .then(
      () => undefined,
      (e: unknown) => {
        if (!(e instanceof McpError)) reportError(e);
        else if (rethrow?.(e)) throw e;
      },
    )
    .finally(() => cancel.release());
}
