/**
 * Streamable HTTP, client side, with each revision's rules:
 * - 2025-03-26 … 2025-11-25 (docs/2025-11-25/basic/transports.mdx §Streamable HTTP):
 *   `Mcp-Session-Id` from the InitializeResult reply, 404 = session expired, DELETE to end
 *   it; `MCP-Protocol-Version` from 2025-06-18 on; the standalone GET stream (405 = none);
 *   resumability and SSE polling (priming event, `retry`, GET + `Last-Event-ID`).
 * - 2026-07-28 (basic/transports/streamable-http.mdx): POST only; the client layer supplies
 *   the request-metadata headers; closing a request's stream is its cancellation; streams
 *   are not resumable, so a broken one loses the request.
 * Every POST is its own exchange; responses are matched by id, and anything else that
 * arrives on a stream (notifications, server requests, strays) goes to `onMessage`.
 */
import { META } from '../../protocol/meta.js';
import {
  isResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../protocol/jsonrpc.js';
import { PendingRequests, type PendingCall } from '../../jsonrpc/pending.js';
import { revision } from '../../protocol/revisions.js';
import type { Meta } from '../../protocol/types.js';
import { isModernVersion, type LegacyVersion } from '../../protocol/versions.js';
import { ChannelError, type ChannelHandlers, type ClientChannel, type SendOptions } from '../channel.js';
import {
  HttpChannelError,
  abortError,
  describe,
  discard,
  errorBodyFor,
  fetchError,
  mediaType,
  mergeHeaders,
  messagesIn,
  notMcpReply,
  parseJson,
  pumpEvents,
  readPrefix,
  readText,
  recordStatus,
  sleep,
  statusError,
  type FetchLike,
} from './http-common.js';
import { SseParser, type SseEvent } from './sse-parser.js';

export { HttpChannelError, httpStatusOf } from './http-common.js';

export interface ReconnectOptions {
  /** Delay before a reconnect when the server sent no `retry` (default 1000 ms). */
  initialDelayMs?: number;
  /** Cap of the exponential backoff between failed reconnects (default 30 000 ms). */
  maxDelayMs?: number;
  /** Reconnects in a row that deliver nothing before giving up (default 3). */
  maxRetries?: number;
}

export interface HttpChannelOptions {
  /** Sent on every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  fetch?: FetchLike;
  reconnect?: ReconnectOptions;
  /** How long `close()` waits for the session DELETE (default 5000 ms). */
  deleteTimeoutMs?: number;
}

/**
 * One POSTed request. Its `signal` aborts once it settles: whatever is still open for it (a
 * stream after its response, a resume timer) goes then; on the modern wire this is also how
 * cancellation is said.
 */
type Op = PendingCall<JsonRpcResponse>;

/** A stateless-era request (its version is in `_meta`): its stream is never resumed (2026-07-28 streamable-http.mdx §Receiving Messages). */
function isModernRequest(request: JsonRpcRequest): boolean {
  const params: { _meta?: Meta } | undefined = request.params;
  return isModernVersion(params?._meta?.[META.protocolVersion]);
}

export class HttpChannel implements ClientChannel {
  readonly kind = 'http' as const;
  private handlers: ChannelHandlers | undefined;
  private session: string | undefined;
  private legacyVersion: LegacyVersion | undefined;
  private readonly pending = new PendingRequests<JsonRpcResponse>();
  /** Every live fetch or stream we started outside a request (aborted on close). */
  private readonly inflight = new Set<AbortController>();
  private standalone: AbortController | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly fetchFn: FetchLike;
  private readonly backoff: Required<ReconnectOptions>;

  constructor(
    readonly url: URL,
    private readonly options: HttpChannelOptions = {},
  ) {
    this.fetchFn = options.fetch ?? fetch;
    this.backoff = {
      initialDelayMs: options.reconnect?.initialDelayMs ?? 1000,
      maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000,
      maxRetries: options.reconnect?.maxRetries ?? 3,
    };
  }

  /** The legacy session id the server assigned, if any. */
  get sessionId(): string | undefined {
    return this.session;
  }

  async start(handlers: ChannelHandlers): Promise<void> {
    this.handlers = handlers;
  }

  setLegacyVersion(version: LegacyVersion): void {
    this.legacyVersion = version;
  }

  request(request: JsonRpcRequest, options: SendOptions = {}): Promise<JsonRpcResponse> {
    if (this.closed) return Promise.reject(new ChannelError('connection closed'));
    if (this.pending.has(request.id)) return Promise.reject(new ChannelError(`request id ${String(request.id)} is already in flight`));
    const op = this.pending.start({ id: request.id, method: request.method, signal: options.signal }, (call) =>
      this.post(request, options, call).catch((e: unknown) => {
        throw e instanceof ChannelError ? e : new ChannelError(`${request.method}: ${describe(e)}`, undefined, undefined, { cause: e });
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
    const sent = this.session;
    try {
      let res: Response;
      try {
        res = await this.fetchFn(this.url, {
          method: 'POST',
          headers: this.headers('post', options.headers, true),
          body: JSON.stringify(message),
          signal: controller.signal,
        });
      } catch (e) {
        if (this.closed) throw new ChannelError('connection closed', undefined, undefined, { cause: e });
        if (options.signal?.aborted) throw abortError(what, options.signal);
        throw fetchError(`POST ${what}`, this.url, e);
      }
      // 202 Accepted with no body is the rule; anything in a 2xx body is not for us.
      if (res.ok) return discard(res);
      if (res.status === 404 && sent !== undefined) throw await this.expired(sent, res);
      throw await statusError(`POST ${what}`, res);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      this.inflight.delete(controller);
    }
  }

  /** Opens the standalone GET stream of the handshake era (once; 405 = the server offers none). */
  openEventStream(): void {
    if (this.closed || this.standalone) return;
    const controller = new AbortController();
    this.standalone = controller;
    this.inflight.add(controller);
    void this.listen(controller)
      .catch(() => {})
      .finally(() => {
        this.inflight.delete(controller);
        if (this.standalone === controller) this.standalone = undefined;
      });
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
    this.standalone = undefined;
    const session = this.session;
    this.session = undefined;
    if (session !== undefined) await this.terminate(session);
    this.handlers?.onClose();
  }

  /** 2025-11-25 transports.mdx §Session Management 5: DELETE ends the session; 405 or a failure is fine. */
  private async terminate(session: string): Promise<void> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.deleteTimeoutMs ?? 5000);
    try {
      const headers = this.headers('delete', undefined, false);
      headers.set('mcp-session-id', session);
      this.versionHeader(headers);
      discard(await this.fetchFn(this.url, { method: 'DELETE', headers, signal: controller.signal }));
    } catch {
      // The server may be gone already; nothing more to end.
    } finally {
      clearTimeout(timer);
    }
  }

  private headers(kind: 'post' | 'get' | 'delete', extra: Record<string, string> | undefined, session: boolean): Headers {
    const h = mergeHeaders(this.options.headers);
    if (kind === 'post') {
      h.set('content-type', 'application/json');
      h.set('accept', 'application/json, text/event-stream');
    } else if (kind === 'get') {
      h.set('accept', 'text/event-stream');
    }
    if (session) {
      if (this.session !== undefined) h.set('mcp-session-id', this.session);
      this.versionHeader(h);
    }
    for (const [k, v] of Object.entries(extra ?? {})) h.set(k, v);
    return h;
  }

  /** `MCP-Protocol-Version` exists from 2025-06-18 on (2025-06-18 changelog); 2025-03-26 had none. */
  private versionHeader(h: Headers): void {
    if (this.legacyVersion !== undefined && revision(this.legacyVersion).transport.versionHeader)
      h.set('mcp-protocol-version', this.legacyVersion);
  }

  /** A 404 to a request carrying the session id: the session is gone (the client re-initializes). */
  private async expired(sent: string, res: Response): Promise<HttpChannelError> {
    if (this.session === sent) this.session = undefined;
    const body = await readText(res);
    return new HttpChannelError('the session expired (HTTP 404): initialize again', 404, body, res.headers);
  }

  private async post(request: JsonRpcRequest, options: SendOptions, op: Op): Promise<void> {
    // A (re-)initialize starts a new session: it carries neither the old id nor its version.
    const initialize = request.method === 'initialize';
    const sent = initialize ? undefined : this.session;
    const headers = this.headers('post', options.headers, !initialize);
    let res: Response;
    try {
      res = await this.fetchFn(this.url, { method: 'POST', headers, body: JSON.stringify(request), signal: op.signal });
    } catch (e) {
      throw fetchError(`POST ${request.method}`, this.url, e);
    }
    if (op.settled) return discard(res);
    if (!res.ok) return this.failed(res, request, sent, op);
    const session = res.headers.get('mcp-session-id');
    if (session && (initialize || this.session === undefined)) this.session = session;
    const type = mediaType(res);
    if (type === 'text/event-stream') return this.readStream(res, request, options, op);
    if (type === 'application/json') {
      const text = await res.text();
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
    if (res.status === 401 || res.status === 403) throw await statusError(`POST ${request.method}`, res);
    const body = await readText(res);
    const error = errorBodyFor(body, request.id);
    if (error) return op.resolve(recordStatus(error, res.status));
    throw new HttpChannelError(`POST ${request.method} failed with HTTP ${res.status}`, res.status, body, res.headers);
  }

  /**
   * Reads a request's SSE stream until its response. If the stream ends first and the last
   * event had an id, resumes with GET + Last-Event-ID after the server's `retry` (2025-11-25
   * transports.mdx §Sending Messages 6, §Resumability and Redelivery), as often as the
   * server polls, giving up after `maxRetries` reconnects in a row that deliver nothing.
   */
  private async readStream(first: Response, request: JsonRpcRequest, options: SendOptions, op: Op): Promise<void> {
    const status = first.status;
    const parser = new SseParser((ev) => this.onEvent(ev, status, op));
    const resumable = !isModernRequest(request);
    let res = first;
    let failures = 0;
    for (;;) {
      const before = parser.dispatched;
      const { error } = await pumpEvents(res.body, parser, () => op.settled);
      if (op.settled) return;
      if (!resumable || parser.lastEventId === '') {
        throw new ChannelError(`the event stream of ${request.method} ended before its response`, undefined, undefined, { cause: error });
      }
      if (parser.dispatched > before) failures = 0;
      let last: unknown = error;
      for (;;) {
        if (failures > this.backoff.maxRetries) {
          throw new ChannelError(`could not resume the event stream of ${request.method} (${failures} attempts)`, undefined, undefined, {
            cause: last,
          });
        }
        await sleep(this.delay(parser.retry, failures), op.signal);
        failures++;
        const headers = this.headers('get', options.headers, true);
        headers.set('last-event-id', parser.lastEventId);
        const sent = this.session;
        let r: Response;
        try {
          r = await this.fetchFn(this.url, { method: 'GET', headers, signal: op.signal });
        } catch (e) {
          if (op.settled) return;
          last = e;
          continue;
        }
        if (op.settled) return discard(r);
        if (r.ok && mediaType(r) === 'text/event-stream') {
          res = r;
          parser.reset();
          break;
        }
        if (r.status === 404 && sent !== undefined) throw await this.expired(sent, r);
        if (r.status >= 500 || r.status === 429) {
          last = await statusError(`resuming ${request.method}`, r);
          continue;
        }
        // 405 (no GET here), another 4xx, or a reply that is not a stream: nothing to resume.
        throw await statusError(`resuming the event stream of ${request.method}`, r);
      }
    }
  }

  /** The delay before reconnect number `failures + 1`: the server's `retry` first, then exponential backoff. */
  private delay(retry: number | undefined, failures: number): number {
    const base = retry ?? this.backoff.initialDelayMs;
    if (failures === 0) return base;
    return Math.max(base, Math.min(this.backoff.maxDelayMs, base * 2 ** failures));
  }

  private async listen(controller: AbortController): Promise<void> {
    const parser = new SseParser((ev) => this.onEvent(ev, 200));
    let failures = 0;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        if (failures > this.backoff.maxRetries) return;
        await sleep(this.delay(parser.retry, failures), controller.signal);
      }
      const headers = this.headers('get', undefined, true);
      if (parser.lastEventId !== '') headers.set('last-event-id', parser.lastEventId);
      let res: Response;
      try {
        res = await this.fetchFn(this.url, { method: 'GET', headers, signal: controller.signal });
      } catch {
        if (controller.signal.aborted) return;
        failures++;
        continue;
      }
      if (!res.ok || mediaType(res) !== 'text/event-stream') {
        discard(res);
        // 405: the server offers no standalone stream. Other 4xx (e.g. 404, the session is
        // gone: the next POST says so): nothing to retry. 5xx: try again.
        if (res.status >= 500) {
          failures++;
          continue;
        }
        return;
      }
      parser.reset();
      const before = parser.dispatched;
      await pumpEvents(res.body, parser, () => controller.signal.aborted);
      if (controller.signal.aborted) return;
      failures = parser.dispatched > before ? 0 : failures + 1;
    }
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
