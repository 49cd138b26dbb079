/**
 * The runtime-neutral MCP endpoint: routes one HTTP exchange to the right wire. Per POST it
 * asks the protocol's era classifier (src/protocol/era-claim.ts) which wire the client
 * speaks, because the HTTP rules differ per era: the 2026-07-28 stateless wire is served here;
 * the handshake era's (its `initialize`, session POSTs, GET streams, DELETE and the 2024-11-05
 * HTTP+SSE transport) by its half of the endpoint, legacy/endpoint.ts, where the build and the
 * server have that era (eras.ts). It knows HTTP (statuses, headers, streams), not MCP methods.
 * node.ts and fetch.ts adapt runtimes to `HttpExchange`; nothing here imports `node:`.
 */
import { classifyPayload, versionHeaderClaimsModern } from '../../protocol/era-claim.js';
import { ErrorCode } from '../../protocol/errors.js';
import { classify, type Classified } from '../../protocol/jsonrpc.js';
import { checkRequestHeaders } from '../../protocol/request-headers.js';
import { answersWithStream } from '../../protocol/revisions.js';
import type { ServerCore } from '../../spi/index.js';
import { BodyDeadlines } from './body-deadline.js';
import type { EndpointHost, LegacyHalf } from './era.js';
import { LEGACY_ENDPOINT } from './eras.js';
import type { BodyResult, HttpExchange } from './exchange.js';
import type { HttpHandlerOptions } from './handler-options.js';
import { guardContentType, guardHostAndOrigin, parseAccept, type Accepts } from './guards.js';
import { warn, type ResolvedOptions } from './options.js';
import { EXPECT_BATCH, EXPECT_NONE, PostResponder, type Expect } from './responder.js';
import { Protection } from './protection.js';
import { OpenStreams } from './sse.js';
import { replyError } from './status.js';

const ALLOW_ALL = { allow: 'GET, POST, DELETE' };
const ALLOW_POST = { allow: 'POST' };
const NOT_A_PAGE =
  'Method Not Allowed: this is a Model Context Protocol endpoint (Streamable HTTP, every revision). ' +
  'MCP clients POST JSON-RPC messages here; a GET opens an event stream only with Accept: text/event-stream.';

/** #json's "already answered" marker. */
const NO_BODY: unique symbol = Symbol('no body');

/** What `handle` returns for an exchange answered synchronously. */
const SETTLED: Promise<void> = Promise.resolve();

/** The version header claims the modern wire, where GET and DELETE do not exist (2026-07-28 §Backward Compatibility). */
function modernHeader(ex: HttpExchange): boolean {
  return versionHeaderClaimsModern(ex.header('mcp-protocol-version'), ex.header('mcp-session-id'));
}

/** What the responder waits for, from the payload's classification (undefined for a batch). */
function expectFor(classified: Classified | undefined): Expect {
  if (classified === undefined) return EXPECT_BATCH;
  if (classified.kind === 'request') return { kind: 'single', id: classified.message.id };
  if (classified.kind === 'invalid') return { kind: 'single', id: classified.id };
  return EXPECT_NONE;
}

export class HttpHandler implements EndpointHost {
  readonly core: ServerCore;
  readonly options: ResolvedOptions;
  readonly streams: OpenStreams;
  /** The handshake era's half, where the build and the server have that era. */
  readonly legacy: LegacyHalf | undefined;
  readonly #deadlines: BodyDeadlines;
  /** The OAuth resource server, with the `auth` option. */
  readonly #protection: Protection | undefined;

  /** `given`: the options as given, whose handshake-era part that era's half reads. */
  constructor(core: ServerCore, options: ResolvedOptions, given: HttpHandlerOptions = {}) {
    this.core = core;
    this.options = options;
    this.#deadlines = new BodyDeadlines(options.bodyTimeoutMs);
    this.#protection = options.auth === undefined ? undefined : new Protection(core, options);
    if (options.dnsRebindingProtection === false) {
      warn(
        core,
        options,
        'dnsRebindingProtection is off: any web page a browser on this network opens can reach this MCP endpoint ' +
          '(DNS rebinding). Name your hosts in allowedHosts instead (transports §Security Warning).',
      );
    }
    this.streams = new OpenStreams(options.keepAliveMs);
    this.legacy = LEGACY_ENDPOINT?.(this, given);
  }

  /** With the `auth` option: the handshake era's sessions belong to whoever opened them. */
  get authenticates(): boolean {
    return this.#protection !== undefined;
  }

  reportError(e: unknown): void {
    this.core.reportError(e);
  }

  /** Whether this handler serves that path. */
  matches(pathname: string): boolean {
    return this.options.path === false || pathname === this.options.path || this.#protection?.servesMetadata(pathname) === true;
  }

  /**
   * Handles one exchange; never rejects. Resolves once the core is done with it, or with
   * `untracked` (nobody waits: Node's listener) once the handler's own steps are: an open
   * stream's chain then ends at the core's work, without one more promise waiting on it for
   * as long as the stream lasts.
   */
  handle(ex: HttpExchange, untracked = false): Promise<void> {
    try {
      return this.#route(ex, untracked) ?? SETTLED;
    } catch (e) {
      this.#failed(ex, e);
      return SETTLED;
    }
  }

  /**
   * The exchange's work, with a promise only while some is left: a POST waits for its body,
   * and then (a synchronous tool, no middleware) is answered without another promise. The
   * promise never rejects: each step that may catches what it throws where it runs, so the
   * common POST carries no catch-all promise of its own (an open listen stream holds its
   * chain for as long as it lasts).
   */
  #route(ex: HttpExchange, untracked: boolean): Promise<void> | undefined {
    if (this.#protection?.servesMetadata(ex.pathname)) {
      this.#protection.metadata(ex);
      return undefined;
    }
    if (guardHostAndOrigin(ex, this.options)) return undefined;
    // Every request carries the token (authorization.mdx §Token Requirements), whatever its era or method.
    if (this.#protection !== undefined) {
      const admitted = this.#protection.admit(ex).then((ok) => (ok ? this.#byMethod(ex, untracked) : undefined));
      return this.guarded(ex, admitted);
    }
    return this.#byMethod(ex, untracked);
  }

  /** A step that may reject, made one that does not: a failure is reported and answered 500. */
  guarded(ex: HttpExchange, work: Promise<void>): Promise<void> {
    return work.catch((e: unknown) => this.#failed(ex, e));
  }

  #byMethod(ex: HttpExchange, untracked: boolean): Promise<void> | undefined {
    switch (ex.method) {
      case 'POST':
        return this.#post(ex, untracked);
      case 'GET':
        return this.guarded(ex, this.#get(ex));
      case 'DELETE':
        return this.guarded(ex, this.#delete(ex));
      default:
        replyError(ex, 405, 'Method Not Allowed', ErrorCode.InvalidRequest, null, ALLOW_ALL);
        return undefined;
    }
  }

  #failed(ex: HttpExchange, e: unknown): void {
    this.core.reportError(e);
    if (ex.open) replyError(ex, 500, 'Internal error', ErrorCode.InternalError);
  }

  /** Ends every session and open stream. */
  async close(): Promise<void> {
    // Listen streams first, gracefully (subscriptions.mdx: a final result, then close)...
    this.core.endListeners((i) => i instanceof PostResponder && i.belongsTo(this));
    await new Promise<void>((r) => setTimeout(r, 0));
    // ...then everything else: sessions end, in-flight modern requests are cancelled.
    this.legacy?.close();
    this.streams.endAll();
    this.#deadlines.close();
  }

  #post(ex: HttpExchange, untracked: boolean): Promise<void> | undefined {
    if (guardContentType(ex)) return undefined;
    if (this.legacy?.unknownSseSession(ex) === true) return undefined;
    const accepts = parseAccept(ex.header('accept'));
    if (this.legacy?.isSsePost(ex) !== true && !accepts.json && !accepts.sse) {
      replyError(ex, 406, 'Not Acceptable: Accept must allow application/json or text/event-stream');
      return undefined;
    }
    const reading = this.#deadlines.start(ex);
    return ex.readBody(this.options.maxBodyBytes).then(
      (body) => {
        try {
          this.#deadlines.done(reading);
          const work = this.#posted(ex, body, accepts);
          return untracked ? undefined : work;
        } catch (e) {
          this.#failed(ex, e);
          return undefined;
        }
      },
      (e: unknown) => this.#failed(ex, e),
    );
  }

  /** A POST whose body has arrived (or could not). */
  #posted(ex: HttpExchange, body: BodyResult, accepts: Accepts): Promise<void> | undefined {
    const payload = this.#json(ex, body);
    if (payload === NO_BODY) return undefined;
    if (this.#protection?.refusesScopes(ex, payload)) return undefined;
    const legacy = this.legacy;
    if (legacy?.postSse(ex, payload) === true) return undefined;
    const era = classifyPayload(payload, ex.header('mcp-protocol-version'), ex.header('mcp-session-id'));
    // Without the handshake era, every POST is stateless: an `initialize` gets -32022 naming the revisions the server speaks.
    if (era === 'modern' || legacy === undefined) return this.#modern(ex, payload, accepts);
    if (era === 'handshake') return this.guarded(ex, legacy.handshake(ex, payload, accepts, expectFor(classify(payload))));
    return legacy.post(ex, payload, accepts, expectFor(Array.isArray(payload) ? undefined : classify(payload)));
  }

  /** The body as JSON, or NO_BODY once the request was answered for it (too large, too slow, not JSON). */
  #json(ex: HttpExchange, body: BodyResult): unknown {
    switch (body.kind) {
      case 'parsed':
        return body.value;
      case 'too-large':
        replyError(ex, 413, `Payload Too Large: the limit is ${this.options.maxBodyBytes} bytes`);
        return NO_BODY;
      case 'timeout':
        replyError(ex, 408, `Request Timeout: the body did not arrive within ${this.options.bodyTimeoutMs} ms (bodyTimeoutMs)`);
        return NO_BODY;
      case 'aborted':
        return NO_BODY;
      case 'ok':
        try {
          return JSON.parse(body.text);
        } catch {
          replyError(ex, 400, 'Parse error: the body is not valid JSON', ErrorCode.ParseError);
          return NO_BODY;
        }
    }
  }

  /** 2026-07-28: stateless; session ids and Last-Event-ID are ignored, none is ever minted. */
  #modern(ex: HttpExchange, payload: unknown, accepts: Accepts): Promise<void> | undefined {
    const classified = classify(payload);
    if (classified.kind === 'request') {
      // 2026-07-28 streamable-http.mdx §Server Validation: headers that disagree with the body are refused with 400.
      const problem = checkRequestHeaders(ex, classified.message, this.core);
      if (problem !== undefined) {
        replyError(ex, 400, problem, ErrorCode.HeaderMismatch, classified.message.id);
        return undefined;
      }
      // Its answer is a stream that never ends in one JSON object: a client that takes no stream
      // would wait forever (§Sending Messages item 2: clients MUST accept both).
      if (!accepts.sse && answersWithStream(classified.message.method)) {
        const method = classified.message.method;
        replyError(
          ex,
          406,
          `Not Acceptable: ${method} is answered with an event stream; Accept must allow text/event-stream`,
          ErrorCode.InvalidRequest,
          classified.message.id,
        );
        return undefined;
      }
    }
    return this.dispatch(ex, new PostResponder(this, ex, 'modern', accepts, expectFor(classified)), payload);
  }

  /** Runs the payload through the core, then lets the responder conclude (202, or the end of its stream). Never rejects. */
  dispatch(ex: HttpExchange, responder: PostResponder, payload: unknown): Promise<void> | undefined {
    if (this.options.sseAlways) responder.startEarly();
    const core = this.core;
    let pending: Promise<void> | undefined;
    try {
      pending = core.dispatch !== undefined ? core.dispatch(payload, responder) : core.handle(payload, responder);
    } catch (e) {
      core.reportError(e); // the contract says never, but a transport must not hang on it
    }
    if (pending === undefined) {
      responder.settled();
      return undefined;
    }
    return pending.then(
      () => this.#settled(ex, responder),
      (e: unknown) => {
        core.reportError(e);
        this.#settled(ex, responder);
      },
    );
  }

  #settled(ex: HttpExchange, responder: PostResponder): void {
    try {
      responder.settled();
    } catch (e) {
      this.#failed(ex, e);
    }
  }

  /**
   * GET and DELETE exist on the handshake era's wire only: 405 on the stateless one (2026-07-28
   * §Backward Compatibility), and wherever the server does not serve the handshake era.
   */
  async #get(ex: HttpExchange): Promise<void> {
    if (modernHeader(ex) || this.legacy === undefined) {
      replyError(ex, 405, this.legacy === undefined ? NOT_A_PAGE : 'Method Not Allowed', ErrorCode.InvalidRequest, null, ALLOW_POST);
      return;
    }
    await this.legacy.get(ex, () => replyError(ex, 405, NOT_A_PAGE, ErrorCode.InvalidRequest, null, ALLOW_POST));
  }

  async #delete(ex: HttpExchange): Promise<void> {
    if (modernHeader(ex) || this.legacy === undefined) {
      replyError(ex, 405, 'Method Not Allowed', ErrorCode.InvalidRequest, null, ALLOW_POST);
      return;
    }
    await this.legacy.delete(ex);
  }
}
