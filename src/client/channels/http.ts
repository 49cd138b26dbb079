/**
 * Streamable HTTP, client side, with each revision's rules:
 * - 2025-03-26 … 2025-11-25 (docs/2025-11-25/basic/transports.mdx §Streamable HTTP): the
 *   session (`Mcp-Session-Id`, 404 = expired, DELETE, `MCP-Protocol-Version`, the standalone
 *   GET stream) is the handshake era's `HttpSession` (http-session.ts), which the client's
 *   registering file gives each channel; resumability and SSE polling (priming event, `retry`,
 *   GET + `Last-Event-ID`) are the request streams' (http-streams.ts).
 * - 2026-07-28 (basic/transports/streamable-http.mdx): POST only; the client layer supplies
 *   the request-metadata headers; closing a request's stream is its cancellation; streams
 *   are not resumable, so a broken one loses the request.
 * Every POST is its own exchange; responses are matched by id, and anything else that
 * arrives on a stream (notifications, server requests, strays) goes to `onMessage`. A JSON
 * reply and an SSE event are read up to `maxMessageBytes`; redirects are followed within the
 * origin only (redirect.ts).
 */
import { JanusError } from '../../protocol/errors.js';
import {
  isResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../protocol/jsonrpc.js';
import { PendingRequests } from '../../jsonrpc/pending.js';
import type { LegacyVersion } from '../../protocol/versions.js';
import { ChannelError, type ChannelHandlers, type ClientChannel, type SendOptions } from '../channel.js';
import { HANDSHAKE_CLIENT } from '../eras.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../limits.js';
import {
  HttpChannelError,
  abortError,
  describe,
  discard,
  errorBodyFor,
  fetchError,
  httpFailure,
  isModernRequest,
  mediaType,
  mergeHeaders,
  messagesIn,
  notMcpReply,
  parseJson,
  readBounded,
  readPrefix,
  readText,
  recordStatus,
  statusError,
  type FetchLike,
} from './http-common.js';
import type { HttpSession, HttpSessionHost } from './http-session.js';
import { readRequestStream, type Op, type ReconnectOptions, type StreamHost } from './http-streams.js';
import { followRedirects, isRedirect } from './redirect.js';
import type { SseEvent } from './sse-parser.js';

export { HttpChannelError, httpStatusOf } from './http-common.js';
export type { ReconnectOptions } from './http-streams.js';

export interface HttpChannelOptions {
  /** Sent on every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  fetch?: FetchLike;
  reconnect?: ReconnectOptions;
  /** How long `close()` waits for the session DELETE (default 5000 ms). */
  deleteTimeoutMs?: number;
  /** The largest JSON reply body or SSE event taken, in bytes (default 16 MiB): see `ConnectOptions.maxMessageBytes`. */
  maxMessageBytes?: number;
}

export class HttpChannel implements ClientChannel {
  readonly kind = 'http' as const;
  private handlers: ChannelHandlers | undefined;
  /** The handshake era's session on this channel; undefined in a build without that era. */
  private readonly session: HttpSession | undefined;
  private readonly pending = new PendingRequests<JsonRpcResponse>();
  /** Every live fetch or stream we started outside a request (aborted on close). */
  private readonly inflight = new Set<AbortController>();
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly fetchFn: FetchLike;
  private readonly maxBytes: number;
  /** What the GET streams (http-streams.ts) use of this channel. */
  private readonly streams: StreamHost;

  constructor(
    readonly url: URL,
    private readonly options: HttpChannelOptions = {},
  ) {
    this.fetchFn = options.fetch ?? fetch;
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const channel = this;
    this.streams = {
      get session() {
        return channel.session?.id;
      },
      url,
      backoff: {
        initialDelayMs: options.reconnect?.initialDelayMs ?? 1000,
        maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000,
        maxRetries: options.reconnect?.maxRetries ?? 3,
      },
      maxBytes: this.maxBytes,
      get: (session, lastEventId, signal, what, extra) => {
        const headers = this.headers('get', extra);
        this.session?.stamp(headers, session);
        if (lastEventId !== '') headers.set('last-event-id', lastEventId);
        return this.fetch({ method: 'GET', headers, signal }, what);
      },
      expired: (session, res) => this.expired(session, res),
      onEvent: (event, status, op) => this.onEvent(event, status, op),
      warn: (message) => this.handlers?.onWarning?.(message),
    };
    const host: HttpSessionHost = {
      streams: this.streams,
      get closed() {
        return channel.closed;
      },
      maxBytes: this.maxBytes,
      deleteTimeoutMs: options.deleteTimeoutMs ?? 5000,
      track: (c) => this.inflight.add(c),
      untrack: (c) => this.inflight.delete(c),
      headers: (kind) => this.headers(kind, undefined),
      fetch: (init, what) => this.fetch(init, what),
    };
    this.session = HANDSHAKE_CLIENT?.httpSession(host);
  }

  /** The legacy session id the server assigned, if any. */
  get sessionId(): string | undefined {
    return this.session?.id;
  }

  async start(handlers: ChannelHandlers): Promise<void> {
    this.handlers = handlers;
  }

  setLegacyVersion(version: LegacyVersion): void {
    this.session?.setVersion(version);
  }

  request(request: JsonRpcRequest, options: SendOptions = {}): Promise<JsonRpcResponse> {
    if (this.closed) return Promise.reject(new ChannelError('connection closed'));
    if (this.pending.has(request.id)) return Promise.reject(new ChannelError(`request id ${String(request.id)} is already in flight`));
    const op = this.pending.start({ id: request.id, method: request.method, signal: options.signal }, (call) =>
      this.post(request, options, call).catch((e: unknown) => {
        throw e instanceof ChannelError || e instanceof JanusError
          ? e
          : new ChannelError(`${request.method}: ${describe(e)}`, undefined, undefined, { cause: e });
      }),
    );
    return op.promise;
  }

  async send(message: JsonRpcNotification | JsonRpcResponse, options: SendOptions = {}): Promise<void> {
    if (this.closed) throw new ChannelError('connection closed');
    const what = 'method' in message ? message.method : `the response to ${String(message.id)}`;
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) throw abortError(what, options.signal);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    this.inflight.add(controller);
    const sent = this.session?.id;
    try {
      let res: Response;
      try {
        res = await this.fetch(
          {
            method: 'POST',
            headers: this.headers('post', options.headers, true),
            body: JSON.stringify(message),
            signal: controller.signal,
          },
          `POST ${what}`,
        );
      } catch (e) {
        // ChannelError: a redirect not followed; JanusError: the OAuth client's refusal (auth option).
        if (e instanceof ChannelError || e instanceof JanusError) throw e;
        if (this.closed) throw new ChannelError('connection closed', undefined, undefined, { cause: e });
        if (options.signal?.aborted) throw abortError(what, options.signal);
        throw fetchError(`POST ${what}`, this.url, e);
      }
      // 202 Accepted with no body is the rule; anything in a 2xx body is not for us.
      if (res.ok) return discard(res);
      if (res.status === 404 && sent !== undefined) throw await this.expired(sent, res);
      throw await statusError(`POST ${what}`, this.url, res, this.maxBytes);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      this.inflight.delete(controller);
    }
  }

  /** Opens the standalone GET stream of the handshake era's session (once per session; 405 = the server offers none). */
  openEventStream(): void {
    this.session?.openEventStream();
  }

  /** Idempotent: rejects pending requests, aborts every stream, ends the session with DELETE. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    const error = new ChannelError('connection closed');
    this.pending.rejectAll(error);
    for (const c of [...this.inflight]) c.abort(error);
    this.inflight.clear();
    await this.session?.end();
    this.handlers?.onClose();
  }

  /** The channel's headers for a request of `kind`; `session`: also the session's, as it is now. */
  private headers(kind: 'post' | 'get' | 'delete', extra: Record<string, string> | undefined, session = false): Headers {
    const h = mergeHeaders(this.options.headers);
    if (kind === 'post') {
      h.set('content-type', 'application/json');
      h.set('accept', 'application/json, text/event-stream');
    } else if (kind === 'get') {
      h.set('accept', 'text/event-stream');
    }
    if (session) this.session?.stamp(h);
    for (const [k, v] of Object.entries(extra ?? {})) h.set(k, v);
    return h;
  }

  /** One fetch of this channel: redirects are followed only where that is safe (redirect.ts). */
  private async fetch(init: RequestInit, what: string): Promise<Response> {
    init.redirect = 'manual';
    const res = await this.fetchFn(this.url, init);
    return isRedirect(res) ? followRedirects(this.fetchFn, this.url, init, res, what) : res;
  }

  /** A 404 to a request carrying the session id `sent`: the session is gone (the client re-initializes). */
  private expired(sent: string, res: Response): Promise<Error> {
    return this.session?.expired(sent, res) ?? statusError('the request', this.url, res, this.maxBytes);
  }

  private async post(request: JsonRpcRequest, options: SendOptions, op: Op): Promise<void> {
    // A (re-)initialize starts a new session: it carries neither the old id nor its version.
    const initialize = request.method === 'initialize';
    this.session?.admit(request);
    const sent = initialize ? undefined : this.session?.id;
    const headers = this.headers('post', options.headers, !initialize);
    const init: RequestInit = { method: 'POST', headers, body: JSON.stringify(request), signal: op.signal, redirect: 'manual' };
    let res: Response;
    try {
      res = await this.fetchFn(this.url, init);
      if (isRedirect(res)) res = await followRedirects(this.fetchFn, this.url, init, res, `POST ${request.method}`);
    } catch (e) {
      if (e instanceof ChannelError || e instanceof JanusError) throw e;
      throw fetchError(`POST ${request.method}`, this.url, e);
    }
    if (op.settled) return discard(res);
    if (!res.ok) return this.failed(res, request, sent, op);
    this.session?.replied(request, res);
    const type = mediaType(res);
    if (type === 'text/event-stream')
      return readRequestStream(this.streams, res, request.method, !isModernRequest(request), options.headers, op);
    if (type === 'application/json') {
      const text = await readBounded(res, this.maxBytes, `the reply to ${request.method}`);
      const value = parseJson(text);
      if (value === undefined) throw new HttpChannelError(`the reply to ${request.method} is not JSON`, res.status, text, res.headers);
      const messages = messagesIn(value);
      if (!messages.length) throw notMcpReply(`POST ${request.method}`, this.url, res, text);
      for (const m of messages) {
        if (!op.settled && isResponse(m) && (m.id === request.id || m.id === undefined || m.id === null))
          op.resolve(recordStatus(m, res.status));
        else this.route(m, res.status);
      }
      if (!op.settled)
        throw new HttpChannelError(`the reply to ${request.method} carried no response to it`, res.status, text, res.headers);
      return;
    }
    throw notMcpReply(`POST ${request.method}`, this.url, res, await readPrefix(res));
  }

  /**
   * Non-2xx: 401/403 are always errors (auth must see them); a JSON-RPC error body answers
   * the request (modern 400/404 errors); anything else is a ChannelError with the status.
   */
  private async failed(res: Response, request: JsonRpcRequest, sent: string | undefined, op: Op): Promise<void> {
    if (res.status === 404 && sent !== undefined) throw await this.expired(sent, res);
    if (res.status === 401 || res.status === 403) throw await statusError(`POST ${request.method}`, this.url, res, this.maxBytes);
    const body = await readText(res, this.maxBytes);
    const error = errorBodyFor(body, request.id);
    if (error) return op.resolve(recordStatus(error, res.status));
    throw httpFailure(`POST ${request.method}`, this.url, res, body);
  }

  private onEvent(event: SseEvent, status: number, op?: Op): void {
    // Priming events (an id and empty data) only move the cursor; other event types are not MCP's.
    if (event.type !== 'message' || event.data === '') return;
    for (const m of messagesIn(parseJson(event.data))) {
      if (op && !op.settled && isResponse(m) && m.id === op.id) op.resolve(recordStatus(m, status));
      else this.route(m, status);
    }
  }

  /** A response for any pending request resolves it; everything else goes to the client. */
  private route(message: JsonRpcMessage, status: number): void {
    if (isResponse(message) && this.pending.has(message.id)) {
      this.pending.settle(message.id, recordStatus(message, status));
      return;
    }
    this.handlers?.onMessage(message);
  }
}
