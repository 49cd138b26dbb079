/**
 * The runtime-neutral MCP endpoint: routes one HTTP exchange to the right wire. Per POST it
 * asks the protocol's era classifier (src/protocol/era-claim.ts) which wire the client
 * speaks, the 2026-07-28 stateless one or a legacy session, because the HTTP rules differ per
 * era; the core dispatches by that wire. It knows HTTP (statuses, headers, streams, sessions),
 * not MCP methods. node.ts and fetch.ts adapt runtimes to `HttpExchange`; nothing here
 * imports `node:`.
 */
import { classifyPayload, legacyVersionHeaderProblem, versionHeaderClaimsModern } from '../../protocol/era-claim.js';
import { ErrorCode } from '../../protocol/errors.js';
import { classify, type Classified, type RequestId } from '../../protocol/jsonrpc.js';
import { checkRequestHeaders } from '../../protocol/request-headers.js';
import { answersWithStream, revision } from '../../protocol/revisions.js';
import { isLegacyVersion } from '../../protocol/versions.js';
import type { ServerCore } from '../../spi/index.js';
import { BodyDeadlines } from './body-deadline.js';
import type { BodyResult, HttpExchange } from './exchange.js';
import { guardContentType, guardHostAndOrigin, namesEventStream, parseAccept, type Accepts } from './guards.js';
import { LegacySseEndpoint } from './legacy-sse.js';
import { warn, type ResolvedOptions } from './options.js';
import { EXPECT_BATCH, EXPECT_NONE, PostResponder, primes, type Expect, type ResponderHost } from './responder.js';
import { clientKey, mintSessionId, SessionRegistry, StreamableSession } from './sessions.js';
import { principalOf, Protection } from './protection.js';
import { OpenStreams, SSE_HEADERS, messageEvent } from './sse.js';
import { replyEmpty, replyError } from './status.js';

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

/** A legacy request whose MCP-Protocol-Version header names no supported revision: 400 (2025-06-18+ transports §Protocol Version Header). */
function badLegacyVersion(ex: HttpExchange, id: RequestId | null): boolean {
  const problem = legacyVersionHeaderProblem(ex.header('mcp-protocol-version'));
  if (problem === undefined) return false;
  replyError(ex, 400, `Bad Request: ${problem}`, ErrorCode.InvalidRequest, id);
  return true;
}

/** The version header names a (supported) revision whose HTTP transport is Streamable HTTP only. */
function namesStreamableRevision(ex: HttpExchange): boolean {
  const v = ex.header('mcp-protocol-version')?.trim();
  return isLegacyVersion(v) && !revision(v).transport.httpSse;
}

/** What the responder waits for, from the payload's classification (undefined for a batch). */
function expectFor(classified: Classified | undefined): Expect {
  if (classified === undefined) return EXPECT_BATCH;
  if (classified.kind === 'request') return { kind: 'single', id: classified.message.id };
  if (classified.kind === 'invalid') return { kind: 'single', id: classified.id };
  return EXPECT_NONE;
}

/** The id an error answer to the POST carries: its single request's, else null. */
const idOf = (expect: Expect): RequestId | null => (expect.kind === 'single' ? expect.id : null);

export class HttpHandler implements ResponderHost {
  readonly core: ServerCore;
  readonly options: ResolvedOptions;
  readonly streams: OpenStreams;
  readonly sessions: SessionRegistry;
  readonly #legacySse: LegacySseEndpoint | undefined;
  readonly #deadlines: BodyDeadlines;
  /** The OAuth resource server, with the `auth` option. */
  readonly #protection: Protection | undefined;
  /** Cluster: sessions being loaded from the shared store, so two requests for one make one record. */
  readonly #adopting = new Map<string, Promise<StreamableSession | undefined>>();
  readonly #sessionOptions: { readonly idleMs: number; readonly instanceId?: string; readonly sharedStore: boolean };

  constructor(core: ServerCore, options: ResolvedOptions) {
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
    this.sessions = new SessionRegistry(options.sessionIdleMs, options.maxSessions, options.maxSessionsPerClient);
    this.#legacySse = options.legacySse ? new LegacySseEndpoint(core, this.sessions, this.streams) : undefined;
    // A store of this process only (or one of the user's) is not read by the other instances: messages then go to the holder by pub/sub.
    this.#sessionOptions = {
      idleMs: options.sessionIdleMs,
      instanceId: core.instanceId,
      sharedStore: options.eventStore !== undefined && options.eventStore === core.eventStore,
    };
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
      return this.#guarded(ex, admitted);
    }
    return this.#byMethod(ex, untracked);
  }

  /** A step that may reject, made one that does not: a failure is reported and answered 500. */
  #guarded(ex: HttpExchange, work: Promise<void>): Promise<void> {
    return work.catch((e: unknown) => this.#failed(ex, e));
  }

  #byMethod(ex: HttpExchange, untracked: boolean): Promise<void> | undefined {
    switch (ex.method) {
      case 'POST':
        return this.#post(ex, untracked);
      case 'GET':
        return this.#guarded(ex, this.#get(ex));
      case 'DELETE':
        return this.#guarded(ex, this.#delete(ex));
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
    this.sessions.closeAll();
    this.streams.endAll();
    this.#deadlines.close();
  }

  #post(ex: HttpExchange, untracked: boolean): Promise<void> | undefined {
    if (guardContentType(ex)) return undefined;
    const sseSessionId = this.#legacySse === undefined ? null : ex.query('sessionId');
    if (sseSessionId !== null && this.sessions.get(sseSessionId, 'sse') === undefined) {
      replyError(ex, 404, 'Session not found');
      return undefined;
    }
    const accepts = parseAccept(ex.header('accept'));
    if (sseSessionId === null && !accepts.json && !accepts.sse) {
      replyError(ex, 406, 'Not Acceptable: Accept must allow application/json or text/event-stream');
      return undefined;
    }
    const reading = this.#deadlines.start(ex);
    return ex.readBody(this.options.maxBodyBytes).then(
      (body) => {
        try {
          this.#deadlines.done(reading);
          const work = this.#posted(ex, body, accepts, sseSessionId);
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
  #posted(ex: HttpExchange, body: BodyResult, accepts: Accepts, sseSessionId: string | null): Promise<void> | undefined {
    const payload = this.#json(ex, body);
    if (payload === NO_BODY) return undefined;
    if (this.#protection?.refusesScopes(ex, payload)) return undefined;
    if (sseSessionId !== null) {
      this.#legacySse!.post(ex, sseSessionId, payload);
      return undefined;
    }
    switch (classifyPayload(payload, ex.header('mcp-protocol-version'), ex.header('mcp-session-id'))) {
      case 'modern':
        return this.#modern(ex, payload, accepts);
      case 'handshake':
        return this.#guarded(ex, this.#handshake(ex, payload, accepts));
      case 'legacy':
        return this.#legacy(ex, payload, accepts);
    }
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
    return this.#dispatch(ex, new PostResponder(this, ex, 'modern', accepts, expectFor(classified)), payload);
  }

  /** Legacy handshake: a new session, registered only once the handshake succeeded (responder.ts). */
  async #handshake(ex: HttpExchange, payload: unknown, accepts: Accepts): Promise<void> {
    const expect = expectFor(classify(payload));
    const id = idOf(expect);
    const claimed = ex.header('mcp-session-id');
    if (claimed !== undefined && this.sessions.streamable(claimed) !== undefined) {
      replyError(ex, 400, 'Bad Request: a new session cannot be opened with the id of an existing one', ErrorCode.InvalidRequest, id);
      return;
    }
    const client = clientKey(ex.clientAddress);
    const refused = this.sessions.refusal(client);
    if (refused !== undefined) {
      replyError(ex, refused.status, refused.message, ErrorCode.InvalidRequest, id);
      return;
    }
    const record = new StreamableSession(mintSessionId(), client, this.options.eventStore, this.streams, this, this.#sessionOptions);
    record.principal = principalOf(ex.auth);
    record.session = this.core.openSession(record);
    this.sessions.add(record); // counted from now on; found by id once initialize succeeded (responder.ts)
    await this.#dispatch(ex, new PostResponder(this, ex, 'legacy', accepts, expect, record, true), payload);
  }

  /** Legacy session traffic (2025-03-26 … 2025-11-25 transports §Session Management). */
  #legacy(ex: HttpExchange, payload: unknown, accepts: Accepts): Promise<void> | undefined {
    const expect = expectFor(Array.isArray(payload) ? undefined : classify(payload));
    const id = idOf(expect);
    if (badLegacyVersion(ex, id)) return undefined;
    const found = this.#session(ex, id);
    if (found instanceof Promise) {
      const served = found.then((record) => this.#served(ex, payload, accepts, expect, record));
      return this.#guarded(ex, served);
    }
    return this.#served(ex, payload, accepts, expect, found);
  }

  /** A legacy POST on its session; nothing left to do when it has none (#session answered the POST then). */
  #served(
    ex: HttpExchange,
    payload: unknown,
    accepts: Accepts,
    expect: Expect,
    record: StreamableSession | undefined,
  ): Promise<void> | undefined {
    return record === undefined ? undefined : this.#dispatch(ex, new PostResponder(this, ex, 'legacy', accepts, expect, record), payload);
  }

  /** Runs the payload through the core, then lets the responder conclude (202, or the end of its stream). Never rejects. */
  #dispatch(ex: HttpExchange, responder: PostResponder, payload: unknown): Promise<void> | undefined {
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
   * The session named by Mcp-Session-Id: missing → 400, unknown or terminated → 404
   * (2025-11-25 transports §Session Management items 2-3). In a cluster, a session another
   * instance opened is loaded from the shared store, and a known one reloaded: it may have
   * changed, or ended, elsewhere.
   */
  #session(ex: HttpExchange, id: RequestId | null): StreamableSession | undefined | Promise<StreamableSession | undefined> {
    const sid = ex.header('mcp-session-id');
    if (sid === undefined) {
      replyError(ex, 400, 'Bad Request: Mcp-Session-Id header is required', ErrorCode.InvalidRequest, id);
      return undefined;
    }
    const record = this.sessions.streamable(sid);
    // Only a cluster's sessions are looked up in the shared store: the others are known here, or not at all.
    const shared =
      record !== undefined ? record.session.clustered === true : this.core.adoptSession !== undefined && this.core.instanceId !== undefined;
    return shared ? this.#sharedSession(ex, id, sid, record) : this.#admit(ex, id, record);
  }

  /** Cluster: the session reloaded from the shared store (it may have changed, or ended, elsewhere), or adopted from it. */
  async #sharedSession(
    ex: HttpExchange,
    id: RequestId | null,
    sid: string,
    known: StreamableSession | undefined,
  ): Promise<StreamableSession | undefined> {
    let record = known;
    if (record !== undefined) {
      if ((await record.session.refresh!()) === 'gone') record = undefined;
    } else {
      try {
        record = await this.#adopt(sid, clientKey(ex.clientAddress));
      } catch (e) {
        this.core.reportError(e);
        replyError(ex, 503, 'Service Unavailable: the shared session store cannot be reached; retry later', ErrorCode.InternalError, id);
        return undefined;
      }
    }
    return this.#admit(ex, id, record);
  }

  /** The session, unless it is unknown, ended or someone else's (404); the request counts as its activity. */
  #admit(ex: HttpExchange, id: RequestId | null, record: StreamableSession | undefined): StreamableSession | undefined {
    if (!ex.open) return undefined;
    if (record === undefined || record.closed || !this.#sameCaller(record, ex)) {
      replyError(ex, 404, 'Session not found', ErrorCode.InvalidRequest, id);
      return undefined;
    }
    record.lastSeen = Date.now();
    return record;
  }

  /**
   * With the `auth` option a session belongs to whoever opened it: another caller's token gets
   * 404, as if it did not exist (2025-11-25 security best practices §Session Hijacking). In a
   * cluster the owner comes with the session's shared record, so this holds on every instance.
   */
  #sameCaller(record: StreamableSession, ex: HttpExchange): boolean {
    if (this.#protection === undefined) return true;
    const caller = principalOf(ex.auth);
    record.principal ??= caller;
    return record.principal === caller;
  }

  /** Cluster: serves here a session another instance opened; undefined when no instance knows it. */
  #adopt(sid: string, client: string | undefined): Promise<StreamableSession | undefined> {
    let adopting = this.#adopting.get(sid);
    if (adopting === undefined) {
      const record = new StreamableSession(sid, client, this.options.eventStore, this.streams, this, this.#sessionOptions);
      adopting = this.core.adoptSession!(record)
        .then((session) => {
          if (session === undefined) return undefined;
          record.session = session;
          // Its owner, as the instance that opened it recorded them: only they may use it here too.
          record.principal = session.principal;
          record.opening = false;
          this.sessions.add(record);
          return record;
        })
        .finally(() => this.#adopting.delete(sid));
      this.#adopting.set(sid, adopting);
    }
    return adopting;
  }

  /**
   * GET: 405 on the modern wire (2026-07-28 §Backward Compatibility); with a session id the
   * standalone or resumed SSE stream; without one the 2024-11-05 HTTP+SSE stream, if the
   * Accept header asks for an event stream by name (405 with an explanation otherwise).
   */
  async #get(ex: HttpExchange): Promise<void> {
    if (modernHeader(ex)) {
      replyError(ex, 405, 'Method Not Allowed', ErrorCode.InvalidRequest, null, ALLOW_POST);
      return;
    }
    if (badLegacyVersion(ex, null)) return;
    const accepts = parseAccept(ex.header('accept'));
    if (ex.header('mcp-session-id') === undefined) {
      // A browser or a bare curl (Accept: text/html or */*) is a person looking, not an MCP
      // client: every client that opens a stream here names text/event-stream (2024-11-05
      // transports §HTTP with SSE; later ones always send a session id). Answer at once.
      if (!namesEventStream(ex.header('accept'))) {
        replyError(ex, 405, NOT_A_PAGE, ErrorCode.InvalidRequest, null, ALLOW_POST);
        return;
      }
      // A client that names a revision without HTTP+SSE (2025-06-18 on: only they send the
      // header) wants its session's stream, not a 2024-11-05 one: 400 below, as for a POST.
      if (this.#legacySse !== undefined && !namesStreamableRevision(ex)) {
        this.#legacySse.open(ex);
        return;
      }
    }
    const record = await this.#session(ex, null);
    if (record === undefined) return;
    if (!accepts.sse) {
      replyError(ex, 406, 'Not Acceptable: Accept must allow text/event-stream');
      return;
    }
    const lastEventId = ex.header('last-event-id');
    if (lastEventId !== undefined && this.options.eventStore !== undefined) return this.#resume(ex, record, lastEventId);
    this.#standalone(ex, record);
  }

  /** The standalone stream for unsolicited messages; one at a time per session (409 otherwise). */
  #standalone(ex: HttpExchange, record: StreamableSession): void {
    const ch = record.standalone;
    if (ch.connected) {
      replyError(ex, 409, 'Conflict: this session already has an open SSE stream');
      return;
    }
    ex.listener = ch;
    ch.open(ex);
    if (this.options.eventStore !== undefined && primes(record.session)) ch.prime(this.options.retryMs);
    else ch.mark();
  }

  /**
   * GET + Last-Event-ID: replays what came after that event on its stream, then keeps
   * delivering that stream live if it is still in flight (2025-11-25 transports §Resumability
   * and Redelivery). An unknown, expired or foreign cursor opens a fresh standalone stream
   * (replaying is a MAY).
   */
  async #resume(ex: HttpExchange, record: StreamableSession, lastEventId: string): Promise<void> {
    const replayed: Array<[string, string]> = [];
    let streamId: string | undefined;
    try {
      const r = this.options.eventStore!.replayAfter(lastEventId, (id, m) => {
        replayed.push([id, JSON.stringify(m)]);
      });
      streamId = typeof r === 'object' && r !== null ? await r : r;
    } catch {
      // A shared store that cannot be reached (it reports that itself): whether the cursor is known cannot be told.
      replyError(ex, 503, 'Service Unavailable: the stream cannot be resumed now (its event store is unavailable); retry later');
      return;
    }
    if (!ex.open) return;
    if (streamId === undefined || !record.owns(streamId)) return this.#standalone(ex, record);
    const ch = streamId === record.standalone.streamId ? record.standalone : record.live.get(streamId);
    if (ch === record.standalone && ch.connected) {
      replyError(ex, 409, 'Conflict: this session already has an open SSE stream');
      return;
    }
    ex.startStream(200, SSE_HEADERS);
    for (const [id, json] of replayed) ex.write(messageEvent(json, id));
    if (ch === undefined || ch.finished) {
      ex.end(); // the stream completed: its final response was in the replay
      return;
    }
    ex.listener = ch;
    ch.attach(ex, lastEventId, new Set(replayed.map(([id]) => id)));
  }

  /** DELETE ends a legacy session (2025-11-25 transports §Session Management item 5); in a cluster, on every instance. */
  async #delete(ex: HttpExchange): Promise<void> {
    if (modernHeader(ex)) {
      replyError(ex, 405, 'Method Not Allowed', ErrorCode.InvalidRequest, null, ALLOW_POST);
      return;
    }
    if (badLegacyVersion(ex, null)) return;
    const record = await this.#session(ex, null);
    if (record === undefined) return;
    this.sessions.delete(record);
    try {
      await record.close();
    } catch {
      // Ended here, but other instances would still serve it: the client may DELETE again (reported where it failed).
      replyError(ex, 503, 'Service Unavailable: the session ended here but its shared record could not be removed; retry the DELETE');
      return;
    }
    replyEmpty(ex, 200);
  }
}
