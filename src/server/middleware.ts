/**
 * Middleware: a typed `(ctx, next)` chain around every inbound request and notification, the
 * same in both eras and on every transport. It runs after the
 * message is known to be well formed and its era decided, and before routing: so it sees
 * every request the server answers, including the ones answered with an error (an unknown
 * method, a missing capability), and it can refuse any of them.
 *
 * `next()` runs the rest of the chain and then the method itself, and resolves to the
 * method's era-neutral result (what the features return, before it is shaped for the
 * revision in use); a middleware may call it again (retry), transform what it returns,
 * return a result of its own without calling it (short-circuit), or throw (an `McpError` is
 * answered as it is; anything else is masked as -32603 and reported to `onError`). For a
 * notification, not calling `next()` drops it.
 */
import { type ChainRules, runLinks } from '../jsonrpc/chain.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import type { ClientRequestMethod, ClientRequestTypes, MethodsWith } from '../protocol/methods.js';
import type { InputRequiredResult, Meta, Result } from '../protocol/types.js';
import type { Era, ProtocolVersion } from '../protocol/versions.js';
import type { AuthInfo, ClientView, SessionHandle } from './context.js';
import type { TransportKind } from './transport-seam.js';

/** A message's params as they came off the wire. */
export type Params = Record<string, unknown>;

/**
 * The requests a server answers, with their params and the result `next()` resolves to, as the
 * method catalogue types them (src/protocol/methods.ts). The methods that may ask the client
 * resolve to an `InputRequiredResult` when a 2026-07-28 round ends waiting for answers
 * (basic/patterns/mrtr.mdx); a stream-answered one (`subscriptions/listen`) resolves when the
 * stream ends.
 */
export type ServerMethods = {
  [M in ClientRequestMethod]: {
    params: ClientRequestTypes[M]['params'];
    result:
      | ClientRequestTypes[M]['result']
      | (M extends MethodsWith<'asksClient'> ? InputRequiredResult : never)
      | (M extends MethodsWith<'stream'> ? undefined : never);
  };
};

/** The name of a request method a server answers (`tools/call`, …). */
export type ServerMethod = keyof ServerMethods;

/** A 2026-07-28 round that ended waiting for the client's answers, as `next()` may resolve to it. */
export function isInputRequired(result: unknown): result is InputRequiredResult {
  return typeof result === 'object' && result !== null && (result as Result).resultType === 'input_required' && 'inputRequests' in result;
}

/** What every middleware sees of one inbound message. */
export interface MiddlewareContext<P extends Params = Params> {
  /** A request (answered) or a notification (not). */
  readonly kind: 'request' | 'notification';
  /** The message's method (`tools/call`, `notifications/initialized`, …). */
  readonly method: string;
  /**
   * The message's params as sent (`{}` when it had none). Replace them before calling
   * `next()` to change what the method gets; arguments are validated after middleware.
   */
  params: P;
  /** The request's id; undefined for a notification. */
  readonly id: RequestId | undefined;
  /** The era the message came in: `legacy` (a handshake-era session) or `modern` (2026-07-28). */
  readonly era: Era;
  /** The revision in use; undefined on a legacy session before `initialize` succeeded. */
  readonly protocolVersion: ProtocolVersion | undefined;
  /** This message's client: per request on the modern wire, per session on legacy. */
  readonly client: ClientView;
  /** The message's `_meta`, as sent. */
  readonly meta: Meta | undefined;
  /** The legacy session id, when there is one. */
  readonly sessionId: string | undefined;
  /**
   * The legacy session, once initialized (`RequestContext.session`): undefined on the
   * 2026-07-28 wire and during the handshake.
   */
  readonly session: SessionHandle | undefined;
  /** What carried the message (`stdio`, `http`, `sse`, `memory`, or a custom transport's name). */
  readonly transport: TransportKind;
  /** Who sent it, when the transport authenticated them (`Inbound.principal`). */
  readonly principal: string | undefined;
  /** The verified identity behind it (`ctx.auth` in handlers), when the transport authenticated it. */
  readonly auth: AuthInfo | undefined;
  /** Aborts when the request is cancelled or its channel goes away. */
  readonly signal: AbortSignal;
  /**
   * Per-request data, for the middleware after this one and for the handler (`ctx.state`
   * there): who the caller is, a request id for logs, a transaction.
   */
  readonly state: Record<string, unknown>;
}

/** The context of a middleware registered for one method: its params typed. */
export type MethodContext<M extends ServerMethod> = MiddlewareContext<ServerMethods[M]['params']> & { readonly method: M };

/**
 * Runs the rest of the chain (the next middleware, then the method itself) and resolves to its
 * result.
 */
export type Next<R = unknown> = () => Promise<R>;

/**
 * A middleware for every message. Return what `next()` resolved to (or nothing, after
 * calling it), a result of your own, or throw.
 */
export type Middleware = (ctx: MiddlewareContext, next: Next) => unknown;

/** A middleware for one request method, with its params and result typed. */
export type MethodMiddleware<M extends ServerMethod> = (
  ctx: MethodContext<M>,
  next: Next<ServerMethods[M]['result']>,
) => ServerMethods[M]['result'] | undefined | Promise<ServerMethods[M]['result'] | undefined>;

/** One registration: for every message, or for one method. */
interface Registered {
  readonly method: string | undefined;
  readonly run: Middleware;
}

const NONE: readonly Middleware[] = Object.freeze([]);
/** The cache key of the chain of every method nobody registered a middleware for by name. */
const UNNAMED = '';

/**
 * The server's middleware, in registration order. The chain for a method (the global ones
 * and that method's, interleaved as registered) is built once per method name registered,
 * plus once for every other method: a client sending made-up methods cannot grow the cache.
 */
export class MiddlewareStack {
  private readonly registered: Registered[] = [];
  private readonly named = new Set<string>();
  private readonly chains = new Map<string, readonly Middleware[]>();

  add(method: string | undefined, run: Middleware): void {
    if (typeof run !== 'function') throw new TypeError('server.use: a middleware is a function (ctx, next) => result');
    this.registered.push({ method, run });
    if (method !== undefined) this.named.add(method);
    this.chains.clear();
  }

  /** The middleware that applies to `method`, outermost first (empty, and free, when none is registered). */
  chainFor(method: string): readonly Middleware[] {
    if (this.registered.length === 0) return NONE;
    const key = this.named.has(method) ? method : UNNAMED;
    let chain = this.chains.get(key);
    if (chain === undefined) {
      const list = this.registered.filter((r) => r.method === undefined || r.method === method).map((r) => r.run);
      chain = list.length ? list : NONE;
      this.chains.set(key, chain);
    }
    return chain;
  }
}

/**
 * Runs `chain` around `terminal`. Each `next()` runs the rest of the chain again (so a
 * middleware may retry); a middleware that called `next()` and returned nothing passes on
 * the outcome of its last `next()`, waited for if it did not wait itself, and its error if
 * it failed (a middleware that only logs a failure does not turn it into an empty answer).
 * The outcome is a promise, or the method's value itself when the chain knew it at once
 * (src/jsonrpc/chain.ts): a synchronous method behind pass-through middleware is answered
 * as it would be without them.
 */
export function runChain(chain: readonly Middleware[], ctx: MiddlewareContext, terminal: () => unknown): unknown {
  return runLinks(chain, ctx, terminal, SERVER_RULES);
}

const SERVER_RULES: ChainRules<MiddlewareContext> = {
  returned: (out, ctx) => {
    if (ctx.kind === 'request' && (typeof out !== 'object' || out === null || Array.isArray(out))) {
      throw new TypeError(`a middleware for ${ctx.method} returned ${out === null ? 'null' : typeof out}, not a result object`);
    }
  },
  nothing: (ctx) => {
    if (ctx.kind === 'notification') return undefined;
    throw new TypeError(`a middleware for ${ctx.method} neither returned a result nor called next()`);
  },
};

/** What the dispatchers know of a message when they hand it to the chain. */
export interface ExchangeInit {
  readonly kind: 'request' | 'notification';
  readonly method: string;
  readonly params: Params;
  readonly id: RequestId | undefined;
  readonly era: Era;
  readonly protocolVersion: ProtocolVersion | undefined;
  readonly client: ClientView;
  readonly meta: Meta | undefined;
  readonly sessionId: string | undefined;
  readonly transport: TransportKind;
  readonly principal: string | undefined;
  readonly auth?: AuthInfo;
  /** The request's cancellation (its signal is made only when read; `aborted` reads its state without making it). */
  readonly cancel: { readonly signal: AbortSignal; readonly aborted?: boolean };
  /** The legacy session's handle, made when first read; absent on the modern wire. */
  readonly session?: () => SessionHandle | undefined;
}

/** One message going through the chain: the `ctx` every middleware gets. */
export class Exchange implements MiddlewareContext {
  readonly kind: 'request' | 'notification';
  readonly method: string;
  params: Params;
  readonly id: RequestId | undefined;
  readonly era: Era;
  readonly protocolVersion: ProtocolVersion | undefined;
  readonly client: ClientView;
  readonly meta: Meta | undefined;
  readonly sessionId: string | undefined;
  readonly transport: TransportKind;
  readonly principal: string | undefined;
  readonly auth: AuthInfo | undefined;
  readonly state: Record<string, unknown> = {};
  private readonly cancel: ExchangeInit['cancel'];
  private readonly sessionHandle: ExchangeInit['session'];

  constructor(init: ExchangeInit) {
    this.kind = init.kind;
    this.method = init.method;
    this.params = init.params;
    this.id = init.id;
    this.era = init.era;
    this.protocolVersion = init.protocolVersion;
    this.client = init.client;
    this.meta = init.meta;
    this.sessionId = init.sessionId;
    this.transport = init.transport;
    this.principal = init.principal;
    this.auth = init.auth;
    this.cancel = init.cancel;
    this.sessionHandle = init.session;
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  get session(): SessionHandle | undefined {
    return this.sessionHandle?.();
  }

  /**
   * Whether the request was aborted, without making its signal: a middleware that runs on
   * every request (logRequests) must not add a listener to a long-lived channel's signal.
   */
  get aborted(): boolean {
    return this.cancel.aborted ?? this.cancel.signal.aborted;
  }
}
