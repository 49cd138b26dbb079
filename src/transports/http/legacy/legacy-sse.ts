/**
 * The deprecated HTTP+SSE transport of 2024-11-05 (2024-11-05 basic/transports.mdx §HTTP with
 * SSE), served on the MCP endpoint itself: a GET opens the stream, whose first event names the
 * POST URI (`<path>?sessionId=<id>`); every POST there is answered 202 at once and everything
 * the server says goes down the stream. The stream's end is the session's end. Runtime-neutral.
 */
import type { JsonRpcMessage } from '../../../protocol/jsonrpc.js';
import type { AuthInfo } from '../../../server/index.js';
import type { LegacySession, SessionHost, SessionSeam } from '../../../server/legacy/index.js';
import type { Inbound, ServerCore } from '../../../spi/index.js';
import type { DisconnectListener, HttpExchange } from '../exchange.js';
import { principalOf } from '../protection.js';
import { endpointEvent, messageEvent, SSE_HEADERS, type OpenStreams } from '../sse.js';
import { replyError } from '../status.js';
import { clientKey, mintSessionId, type SessionEntry, type SessionRegistry } from './sessions.js';

/** One HTTP+SSE connection: the core's SessionHost and the Inbound of every POST for it. */
export class SseSession implements SessionEntry, SessionHost, Inbound, DisconnectListener {
  readonly kind = 'sse';
  readonly transport = 'sse';
  readonly id: string;
  readonly client: string | undefined;
  lastSeen = Date.now();
  session!: LegacySession;
  /** With the `auth` option: who opened the stream; only their POSTs are taken. */
  principal: string | undefined;
  readonly #ex: HttpExchange;
  readonly #streams: OpenStreams;
  readonly #registry: SessionRegistry;
  readonly #ac = new AbortController();
  #closed = false;

  constructor(id: string, client: string | undefined, ex: HttpExchange, streams: OpenStreams, registry: SessionRegistry) {
    this.id = id;
    this.client = client;
    this.#ex = ex;
    this.#streams = streams;
    this.#registry = registry;
  }

  /** Inbound: the session every POST of the connection belongs to. */
  get channel(): LegacySession {
    return this.session;
  }

  /** Aborts when the stream is gone: nothing about any request can be delivered any more. */
  get signal(): AbortSignal {
    return this.#ac.signal;
  }

  get busy(): boolean {
    return !this.#closed;
  }

  get closed(): boolean {
    return this.#closed || this.session.closed;
  }

  send(message: JsonRpcMessage): void {
    if (!this.#closed) this.#ex.write(messageEvent(JSON.stringify(message)));
  }

  onDisconnect(): void {
    this.close();
  }

  /** SessionHost: the core ended the session (server.close(), a ping unanswered): the stream ends with it. */
  onSessionClosed(): void {
    this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#registry.delete(this);
    this.#streams.remove(this.#ex);
    this.#ac.abort();
    this.session.close();
    this.#ex.end();
  }
}

export class LegacySseEndpoint {
  readonly #core: ServerCore;
  readonly #seam: SessionSeam;
  readonly #sessions: SessionRegistry;
  readonly #streams: OpenStreams;

  constructor(core: ServerCore, seam: SessionSeam, sessions: SessionRegistry, streams: OpenStreams) {
    this.#core = core;
    this.#seam = seam;
    this.#sessions = sessions;
    this.#streams = streams;
  }

  /** GET: opens the stream and announces the POST endpoint. */
  open(ex: HttpExchange): void {
    const client = clientKey(ex.clientAddress);
    const refused = this.#sessions.refusal(client);
    if (refused !== undefined) {
      replyError(ex, refused.status, refused.message);
      return;
    }
    const s = new SseSession(mintSessionId(), client, ex, this.#streams, this.#sessions);
    s.principal = principalOf(ex.auth);
    s.session = this.#seam.openSession(s);
    this.#sessions.add(s);
    ex.listener = s;
    ex.startStream(200, SSE_HEADERS);
    this.#streams.add(ex);
    ex.write(endpointEvent(`${ex.publicPathname}?sessionId=${encodeURIComponent(s.id)}`));
  }

  /** POST for an existing stream: 202 now, the answer goes down the stream. */
  post(ex: HttpExchange, sessionId: string, payload: unknown): void {
    const s = this.#sessions.get(sessionId, 'sse');
    // With the `auth` option, another caller's POST finds no session (session hijacking).
    if (!(s instanceof SseSession) || s.principal !== principalOf(ex.auth)) {
      replyError(ex, 404, 'Session not found');
      return;
    }
    s.lastSeen = Date.now();
    ex.respond(202, {});
    const inbound = ex.auth === undefined ? s : new AuthorizedPost(s, ex.auth);
    this.#core.handle(payload, inbound).catch((e: unknown) => this.#core.reportError(e));
  }
}

/** One POST on an HTTP+SSE session, carrying its own verified identity (`ctx.auth`); the rest is the session's. */
class AuthorizedPost implements Inbound {
  readonly transport = 'sse';
  readonly #s: SseSession;
  readonly auth: AuthInfo;
  constructor(s: SseSession, auth: AuthInfo) {
    this.#s = s;
    this.auth = auth;
  }
  get principal(): string | undefined {
    return principalOf(this.auth);
  }
  get signal(): AbortSignal {
    return this.#s.signal;
  }
  get channel(): LegacySession {
    return this.#s.session;
  }
  send(message: JsonRpcMessage): void {
    this.#s.send(message);
  }
}
