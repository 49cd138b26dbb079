/**
 * The handshake era's half of the MCP endpoint (2024-11-05 … 2025-11-25 transports): the
 * `initialize` POST that opens a Streamable HTTP session, the POSTs of a session
 * (`Mcp-Session-Id`), its GET stream (standalone or resumed with `Last-Event-ID`), DELETE, and
 * the deprecated HTTP+SSE transport of 2024-11-05 on the same path. In a cluster a session
 * another instance opened is loaded from the shared store. The endpoint (handler.ts) hands it
 * every exchange that is not on the stateless wire. Runtime-neutral.
 */
import { legacyVersionHeaderProblem } from '../../../protocol/era-claim.js';
import { ErrorCode } from '../../../protocol/errors.js';
import type { RequestId } from '../../../protocol/jsonrpc.js';
import { revision } from '../../../protocol/revisions.js';
import { isLegacyVersion } from '../../../protocol/versions.js';
import { sessionSeamOf, type EventStore, type LegacySession, type SessionSeam } from '../../../server/legacy/index.js';
import type { HttpExchange } from '../exchange.js';
import { namesEventStream, parseAccept, type Accepts } from '../guards.js';
import { principalOf } from '../protection.js';
import type { EndpointHost, LegacyHalf } from '../era.js';
import { PostResponder, type Expect, type PostSession } from '../responder.js';
import { SSE_HEADERS, messageEvent } from '../sse.js';
import { replyEmpty, replyError } from '../status.js';
import { LegacySseEndpoint } from './legacy-sse.js';
import { resolveLegacyOptions, type LegacyHttpOptions, type ResolvedLegacyOptions } from './options.js';
import { clientKey, mintSessionId, primes, SessionRegistry, StreamableSession } from './sessions.js';

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

/** The id an error answer to the POST carries: its single request's, else null. */
const idOf = (expect: Expect): RequestId | null => (expect.kind === 'single' ? expect.id : null);

/** An `initialize` POST's part: its session's, plus the header that names it and the handshake's outcome. */
class InitializingPost implements PostSession {
  readonly initializeHeaders: Record<string, string>;
  constructor(
    private readonly record: StreamableSession,
    private readonly sessions: SessionRegistry,
  ) {
    this.initializeHeaders = { 'mcp-session-id': record.id };
  }
  get channel(): LegacySession {
    return this.record.session;
  }
  announcements() {
    return this.record.announcements();
  }
  resumableStream() {
    return this.record.resumableStream();
  }
  streamChanged(...args: Parameters<StreamableSession['streamChanged']>): void {
    this.record.streamChanged(...args);
  }
  get primeRetryMs(): number | undefined {
    return this.record.primeRetryMs;
  }
  /** Registered only once `initialize` succeeded (the era set its version) and the client is still there to learn the id. */
  initialized(answered: boolean): boolean {
    const record = this.record;
    const ok = answered && record.session.protocolVersion !== undefined && !record.session.closed;
    if (ok) {
      record.opening = false;
      return true;
    }
    this.sessions.delete(record);
    void record.close();
    return false;
  }
}

export class LegacyEndpoint implements LegacyHalf {
  readonly #host: EndpointHost;
  readonly #seam: SessionSeam;
  readonly #options: ResolvedLegacyOptions;
  readonly sessions: SessionRegistry;
  readonly #legacySse: LegacySseEndpoint | undefined;
  /** Cluster: sessions being loaded from the shared store, so two requests for one make one record. */
  readonly #adopting = new Map<string, Promise<StreamableSession | undefined>>();
  readonly #sessionOptions: {
    readonly idleMs: number;
    readonly retryMs: number;
    readonly instanceId?: string;
    readonly sharedStore: boolean;
  };

  constructor(host: EndpointHost, seam: SessionSeam, options: LegacyHttpOptions) {
    this.#host = host;
    this.#seam = seam;
    const resolved = (this.#options = resolveLegacyOptions(options, seam));
    this.sessions = new SessionRegistry(resolved.sessionIdleMs, resolved.maxSessions, resolved.maxSessionsPerClient);
    this.#legacySse = resolved.legacySse ? new LegacySseEndpoint(host.core, seam, this.sessions, host.streams) : undefined;
    // A store of this process only (or one of the user's) is not read by the other instances: messages then go to the holder by pub/sub.
    this.#sessionOptions = {
      idleMs: resolved.sessionIdleMs,
      retryMs: resolved.retryMs,
      instanceId: seam.instanceId,
      sharedStore: resolved.eventStore !== undefined && resolved.eventStore === seam.eventStore,
    };
  }

  get eventStore(): EventStore | undefined {
    return this.#options.eventStore;
  }

  /** A POST to the 2024-11-05 endpoint (`?sessionId=`), when it is served; false when it is not one. */
  postSse(ex: HttpExchange, payload: unknown): boolean {
    const sseSessionId = this.#legacySse === undefined ? null : ex.query('sessionId');
    if (sseSessionId === null) return false;
    this.#legacySse!.post(ex, sseSessionId, payload);
    return true;
  }

  /** A POST for the 2024-11-05 endpoint with an unknown session: 404 before its body is read. */
  unknownSseSession(ex: HttpExchange): boolean {
    const sseSessionId = this.#legacySse === undefined ? null : ex.query('sessionId');
    if (sseSessionId === null || this.sessions.get(sseSessionId, 'sse') !== undefined) return false;
    replyError(ex, 404, 'Session not found');
    return true;
  }

  /** Whether the POST goes to the 2024-11-05 endpoint (its Accept header is not checked: everything goes down its stream). */
  isSsePost(ex: HttpExchange): boolean {
    return this.#legacySse !== undefined && ex.query('sessionId') !== null;
  }

  /** Legacy handshake: a new session, registered only once the handshake succeeded (responder.ts). */
  async handshake(ex: HttpExchange, payload: unknown, accepts: Accepts, expect: Expect): Promise<void> {
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
    const record = new StreamableSession(
      mintSessionId(),
      client,
      this.#options.eventStore,
      this.#host.streams,
      this.#host,
      this.#sessionOptions,
    );
    record.principal = principalOf(ex.auth);
    record.session = this.#seam.openSession(record);
    this.sessions.add(record); // counted from now on; found by id once initialize succeeded (InitializingPost)
    await this.#host.dispatch(
      ex,
      new PostResponder(this.#host, ex, 'legacy', accepts, expect, new InitializingPost(record, this.sessions)),
      payload,
    );
  }

  /** Session traffic (2025-03-26 … 2025-11-25 transports §Session Management). */
  post(ex: HttpExchange, payload: unknown, accepts: Accepts, expect: Expect): Promise<void> | undefined {
    const id = idOf(expect);
    if (badLegacyVersion(ex, id)) return undefined;
    const found = this.#session(ex, id);
    if (found instanceof Promise) {
      const served = found.then((record) => this.#served(ex, payload, accepts, expect, record));
      return this.#host.guarded(ex, served);
    }
    return this.#served(ex, payload, accepts, expect, found);
  }

  /** A session POST on its session; nothing left to do when it has none (#session answered the POST then). */
  #served(
    ex: HttpExchange,
    payload: unknown,
    accepts: Accepts,
    expect: Expect,
    record: StreamableSession | undefined,
  ): Promise<void> | undefined {
    return record === undefined
      ? undefined
      : this.#host.dispatch(ex, new PostResponder(this.#host, ex, 'legacy', accepts, expect, record), payload);
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
      record !== undefined
        ? record.session.shared !== undefined
        : this.#seam.adoptSession !== undefined && this.#seam.instanceId !== undefined;
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
      if ((await record.session.shared?.refresh()) === 'gone') record = undefined;
    } else {
      try {
        record = await this.#adopt(sid, clientKey(ex.clientAddress));
      } catch (e) {
        this.#host.reportError(e);
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
    if (!this.#host.authenticates) return true;
    const caller = principalOf(ex.auth);
    record.principal ??= caller;
    return record.principal === caller;
  }

  /** Cluster: serves here a session another instance opened; undefined when no instance knows it. */
  #adopt(sid: string, client: string | undefined): Promise<StreamableSession | undefined> {
    let adopting = this.#adopting.get(sid);
    if (adopting === undefined) {
      const record = new StreamableSession(sid, client, this.#options.eventStore, this.#host.streams, this.#host, this.#sessionOptions);
      adopting = this.#seam.adoptSession!(record)
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
   * GET on the handshake-era wire: with a session id the standalone or resumed SSE stream;
   * without one the 2024-11-05 HTTP+SSE stream, if the Accept header asks for an event stream by
   * name (405 with an explanation otherwise).
   */
  async get(ex: HttpExchange, notAPage: () => void): Promise<void> {
    if (badLegacyVersion(ex, null)) return;
    const accepts = parseAccept(ex.header('accept'));
    if (ex.header('mcp-session-id') === undefined) {
      // A browser or a bare curl (Accept: text/html or */*) is a person looking, not an MCP
      // client: every client that opens a stream here names text/event-stream (2024-11-05
      // transports §HTTP with SSE; later ones always send a session id). Answer at once.
      if (!namesEventStream(ex.header('accept'))) {
        notAPage();
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
    if (lastEventId !== undefined && this.#options.eventStore !== undefined) return this.#resume(ex, record, lastEventId);
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
    if (this.#options.eventStore !== undefined && primes(record.session)) ch.prime(this.#options.retryMs);
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
      const r = this.#options.eventStore!.replayAfter(lastEventId, (id, m) => {
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
  async delete(ex: HttpExchange): Promise<void> {
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

  /** Ends every session (in a cluster, lets them go for other instances to serve). */
  close(): void {
    this.sessions.closeAll();
  }
}

/** The handshake era's half of an endpoint, where the server serves that era; undefined where it does not. */
export function legacyEndpoint(host: EndpointHost, options: LegacyHttpOptions): LegacyHalf | undefined {
  const seam = sessionSeamOf(host.core);
  return seam === undefined ? undefined : new LegacyEndpoint(host, seam, options);
}
