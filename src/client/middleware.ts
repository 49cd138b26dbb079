/**
 * Client middleware: a typed `(ctx, next)` chain around every logical request the client
 * sends, the same in both eras and on every transport: each
 * call of the `Client` API, and the requests `connect()` sends to detect the era
 * (`server/discover`, `initialize`). Not around the client's answers to server requests,
 * nor notifications.
 *
 * `next()` sends the request (with whatever the era adds: the 2026-07-28 `_meta` envelope
 * and headers, the input_required rounds, a renewed legacy session) and resolves to the
 * era's final wire result; a middleware may call it again (retry), transform what it
 * returns, return a result of its own without calling it (short-circuit), or throw (the
 * call fails with that error). It is the server's chain (src/server/middleware.ts) turned
 * outward.
 */
import { type ChainRules, runLinks } from '../jsonrpc/chain.js';
import type { ClientRequestMethod, ClientRequestTypes } from '../protocol/methods.js';
import type { Meta } from '../protocol/types.js';
import type { Era, ProtocolVersion } from '../protocol/versions.js';
import type { ClientChannel } from './channel.js';
import type { ResultFor } from './results.js';

/** A request's params as the client will send them. */
export type Params = Record<string, unknown> & { _meta?: Meta };

/** The requests a client sends, with their params and the result `next()` resolves to (the method catalogue's). */
export type ClientMethods = {
  [M in ClientRequestMethod]: { params: ClientRequestTypes[M]['params']; result: ResultFor<M> };
};

/** The name of a request method the client sends (`tools/call`, …). */
export type ClientMethod = keyof ClientMethods;

/** What every middleware sees of one outbound request. */
export interface ClientMiddlewareContext<P extends Params = Params> {
  /** The request's method (`tools/call`, …). */
  readonly method: string;
  /**
   * The request's params. Replace them before calling `next()` to change what is sent;
   * `_meta` entries set here go out in both eras, merged with what the era adds (on
   * 2026-07-28 the era's own keys win).
   */
  params: P;
  /** The connection's era; undefined while `connect()` is still detecting it. */
  readonly era: Era | undefined;
  /** The revision in use; undefined while detecting. */
  readonly protocolVersion: ProtocolVersion | undefined;
  /** The legacy Streamable HTTP session id, when there is one. */
  readonly sessionId: string | undefined;
  /** The channel kind (`client.transportKind`). */
  readonly transport: ClientChannel['kind'];
  /** The server's URL, on the HTTP channels (`http`, `sse`). */
  readonly serverUrl: URL | undefined;
  /** The call's signal (`CallOptions.signal`). */
  readonly signal: AbortSignal | undefined;
  /** Per-call data shared along the chain. */
  readonly state: Record<string, unknown>;
}

/** The context of a middleware registered for one method: its params typed. */
export type ClientMethodContext<M extends ClientMethod> = ClientMiddlewareContext<ClientMethods[M]['params']> & { readonly method: M };

/** Sends the request (after the rest of the chain) and resolves to the era's wire result. */
export type ClientNext<R = unknown> = () => Promise<R>;

/**
 * A middleware for every request. Return what `next()` resolved to (or nothing, after
 * calling it), a result of your own, or throw.
 */
export type ClientMiddleware = (ctx: ClientMiddlewareContext, next: ClientNext) => unknown;

/** A middleware for one request method, with its params and result typed. */
export type ClientMethodMiddleware<M extends ClientMethod> = (
  ctx: ClientMethodContext<M>,
  next: ClientNext<ClientMethods[M]['result']>,
) => ClientMethods[M]['result'] | undefined | Promise<ClientMethods[M]['result'] | undefined>;

/** What a call's context reports of the connection (the client's wire and verdict). */
export interface CallSite {
  readonly wire: { readonly kind: ClientChannel['kind']; readonly url: URL | undefined; readonly sessionId: string | undefined };
  readonly server: { readonly current: { readonly era: Era; readonly version: ProtocolVersion } | undefined };
}

/** Sends the request with the params the chain settled on. */
export type Send<R> = (params: Params) => Promise<R>;

interface Registered {
  readonly method: string | undefined;
  readonly run: ClientMiddleware;
}

const NONE: readonly ClientMiddleware[] = Object.freeze([]);

/**
 * The client's middleware, in registration order, and the runner of its chains. Callers on
 * a hot path check `chainFor(method).length` first and call `run` only when there is a
 * chain, so that a client without middleware allocates nothing for it.
 */
export class ClientMiddlewareStack {
  private readonly registered: Registered[] = [];
  private readonly chains = new Map<string, readonly ClientMiddleware[]>();

  constructor(private readonly site: CallSite) {}

  add(method: string | undefined, run: ClientMiddleware): void {
    if (typeof run !== 'function') throw new TypeError('client.use: a middleware is a function (ctx, next) => result');
    this.registered.push({ method, run });
    this.chains.clear();
  }

  /** The middleware that applies to `method`, outermost first (empty, and free, when none is registered). */
  chainFor(method: string): readonly ClientMiddleware[] {
    if (this.registered.length === 0) return NONE;
    let chain = this.chains.get(method);
    if (chain === undefined) {
      const list = this.registered.filter((r) => r.method === undefined || r.method === method).map((r) => r.run);
      chain = list.length ? list : NONE;
      // The client names the methods it sends: the cache is bounded by what its caller asks for.
      this.chains.set(method, chain);
    }
    return chain;
  }

  /** `send` inside the chain for `method`, or directly when there is none (for paths off the hot one). */
  around<R>(method: string, params: Params, signal: AbortSignal | undefined, send: Send<R>): Promise<R> {
    const chain = this.chainFor(method);
    return chain.length === 0 ? send(params) : this.run(chain, method, params, signal, send);
  }

  /**
   * Runs `chain` around `send`. Each `next()` runs the rest of the chain again (so a
   * middleware may retry) and sends `ctx.params` as they are then; a middleware that called
   * `next()` and returned nothing passes on the outcome of its last `next()`, result or error,
   * waited for if it did not wait itself (src/jsonrpc/chain.ts).
   */
  run<R>(chain: readonly ClientMiddleware[], method: string, params: Params, signal: AbortSignal | undefined, send: Send<R>): Promise<R> {
    const ctx = new OutboundCall(this.site, method, params, signal);
    return Promise.resolve(runLinks(chain, ctx, () => send(ctx.params), CLIENT_RULES)) as Promise<R>;
  }
}

const CLIENT_RULES: ChainRules<ClientMiddlewareContext> = {
  nothing: (ctx) => {
    throw new TypeError(`a client middleware for ${ctx.method} neither returned a result nor called next()`);
  },
};

/** One request going through the chain: the `ctx` every middleware gets, as things stood when the call began. */
class OutboundCall implements ClientMiddlewareContext {
  readonly era: Era | undefined;
  readonly protocolVersion: ProtocolVersion | undefined;
  readonly sessionId: string | undefined;
  readonly transport: ClientChannel['kind'];
  readonly serverUrl: URL | undefined;
  readonly state: Record<string, unknown> = {};

  constructor(
    site: CallSite,
    readonly method: string,
    public params: Params,
    readonly signal: AbortSignal | undefined,
  ) {
    const verdict = site.server.current;
    this.era = verdict?.era;
    this.protocolVersion = verdict?.version;
    this.sessionId = site.wire.sessionId;
    this.transport = site.wire.kind;
    this.serverUrl = site.wire.url;
  }
}
