/**
 * The deprecated HTTP+SSE transport of 2024-11-05 (docs/2024-11-05/basic/transports.mdx
 * §HTTP with SSE), client side: GET the SSE endpoint; its first `endpoint` event names the
 * URI to POST every message to; server messages, responses included, arrive as `message`
 * events on the one stream. It is the last step of era fallback (2025-11-25 transports.mdx
 * §Backwards Compatibility), so `start()` fails with the HTTP status when the GET does.
 * The stream is the connection: when it ends, the channel is closed (the endpoint, and
 * the server's state behind it, belong to that one stream).
 */
import {
  isResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../protocol/jsonrpc.js';
import { PendingRequests } from '../../jsonrpc/pending.js';
import { JanusError } from '../../protocol/errors.js';
import { ChannelError, type ChannelHandlers, type ClientChannel, type SendOptions } from '../channel.js';
import { DEFAULT_MAX_MESSAGE_BYTES, tooLarge } from '../limits.js';
import {
  HttpChannelError,
  abortError,
  discard,
  errorBodyFor,
  fetchError,
  httpFailureMessage,
  mediaType,
  mergeHeaders,
  messagesIn,
  notMcpReply,
  parseJson,
  pumpEvents,
  readBounded,
  readPrefix,
  readText,
  recordStatus,
  statusError,
  type FetchLike,
} from '../channels/http-common.js';
import { followRedirects, isRedirect } from '../channels/redirect.js';
import { SseParser, type SseEvent } from '../channels/sse-parser.js';

export interface LegacySseChannelOptions {
  /** Sent on the GET and on every POST (e.g. `Authorization`). */
  headers?: Record<string, string>;
  fetch?: FetchLike;
  /** How long `start()` waits for the `endpoint` event (default 10 000 ms). */
  endpointTimeoutMs?: number;
  /**
   * The largest event or JSON reply body taken, in bytes (default 16 MiB). The one stream
   * carries every answer, so a larger event closes the connection with an error that says so.
   */
  maxMessageBytes?: number;
}

/** A POST to the endpoint refused with a non-2xx status and no JSON-RPC answer. */
function failedPost(what: string, res: PostReply): HttpChannelError {
  return new HttpChannelError(
    httpFailureMessage(`POST ${what}`, res.url, res.status, res.statusText, res.text),
    res.status,
    res.text,
    res.headers,
  );
}

/** What `post` keeps of a reply: enough to answer the request or to say why it failed. */
interface PostReply {
  ok: boolean;
  status: number;
  statusText: string;
  text: string;
  headers: Headers;
  url: URL;
}

export class LegacySseChannel implements ClientChannel {
  readonly kind = 'sse' as const;
  private handlers: ChannelHandlers | undefined;
  private endpointUrl: URL | undefined;
  /** Requests POSTed and not yet answered on the stream, by id. */
  private readonly pending = new PendingRequests<JsonRpcResponse>();
  private readonly inflight = new Set<AbortController>();
  private readonly stream = new AbortController();
  private closed = false;
  private readonly fetchFn: FetchLike;
  private readonly maxBytes: number;

  constructor(
    readonly url: URL,
    private readonly options: LegacySseChannelOptions = {},
  ) {
    this.fetchFn = options.fetch ?? fetch;
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** The POST URI the server named in its `endpoint` event (after `start()`). */
  get endpoint(): URL | undefined {
    return this.endpointUrl;
  }

  async start(handlers: ChannelHandlers): Promise<void> {
    if (this.closed) throw new ChannelError('connection closed');
    this.handlers = handlers;
    const headers = mergeHeaders(this.options.headers);
    headers.set('accept', 'text/event-stream');
    const what = 'GET (the HTTP+SSE event stream)';
    let res: Response;
    try {
      res = await this.fetch(this.url, { method: 'GET', headers, signal: this.stream.signal }, what);
    } catch (e) {
      // ChannelError: a redirect not followed; JanusError: the OAuth client's refusal (auth option).
      if (e instanceof ChannelError || e instanceof JanusError) throw e;
      throw fetchError(what, this.url, e);
    }
    if (!res.ok) throw await statusError(what, this.url, res, this.maxBytes);
    if (mediaType(res) !== 'text/event-stream') throw notMcpReply(what, this.url, res, await readPrefix(res));
    const status = res.status;
    // A same-origin redirect moved the stream: its endpoint is relative to where it is now.
    const base = res.url ? new URL(res.url) : this.url;
    await new Promise<void>((resolve, reject) => {
      let waiting = true;
      const settle = (error?: Error) => {
        if (!waiting) return;
        waiting = false;
        clearTimeout(timer);
        if (!error) return resolve();
        this.closed = true;
        this.stream.abort(error);
        reject(error);
      };
      const timer = setTimeout(
        () => settle(new ChannelError(`no endpoint event from ${this.url.href} within ${this.options.endpointTimeoutMs ?? 10_000} ms`)),
        this.options.endpointTimeoutMs ?? 10_000,
      );
      const onEndpoint = (ev: SseEvent) => {
        if (ev.type !== 'endpoint') return;
        let endpoint: URL;
        try {
          endpoint = new URL(ev.data.trim(), base);
        } catch (e) {
          return settle(
            new ChannelError(`the endpoint event is not a URI: ${JSON.stringify(ev.data)}`, undefined, undefined, { cause: e }),
          );
        }
        // Posting elsewhere would hand our messages (and credentials) to another origin.
        if (endpoint.origin !== this.url.origin) {
          return settle(new ChannelError(`the endpoint ${endpoint.href} is not on the origin of ${this.url.href}; refused`));
        }
        this.endpointUrl = endpoint;
        settle();
      };
      const parser = new SseParser(
        (ev) => (this.endpointUrl ? this.onEvent(ev, status) : onEndpoint(ev)),
        this.maxBytes,
        // The one stream carries every answer: skipping an event could lose any of them.
        (max) => {
          const error = new ChannelError(tooLarge('An event on the HTTP+SSE stream', max));
          if (waiting) settle(error);
          else this.fail(error);
        },
      );
      void pumpEvents(res.body, parser, () => this.stream.signal.aborted).then(({ error }) => {
        const closed = new ChannelError('the event stream closed', undefined, undefined, { cause: error });
        if (waiting)
          settle(
            new ChannelError(`the event stream of ${this.url.href} ended before its endpoint event`, undefined, undefined, {
              cause: error,
            }),
          );
        else if (this.endpointUrl) this.fail(closed);
      });
    });
  }

  request(request: JsonRpcRequest, options: SendOptions = {}): Promise<JsonRpcResponse> {
    if (this.closed) return Promise.reject(new ChannelError('connection closed'));
    if (!this.endpointUrl) return Promise.reject(new ChannelError('not started: no endpoint yet'));
    if (this.pending.has(request.id)) return Promise.reject(new ChannelError(`request id ${String(request.id)} is already in flight`));
    const controller = new AbortController();
    const call = this.pending.start(
      {
        id: request.id,
        method: request.method,
        signal: options.signal,
        // A POST still under way after the answer came on the stream may finish; an aborted or failed one may not.
        onSettled: (error) => {
          if (error) controller.abort();
        },
      },
      (entry) =>
        this.post(request, request.method, options, controller)
          .then((res) => {
            if (!res) return;
            // The answer travels on the SSE stream; a JSON-RPC error body answers it at once.
            const error = res.ok ? undefined : errorBodyFor(res.text, request.id);
            if (error) entry.resolve(recordStatus(error, res.status));
            else if (!res.ok) entry.reject(failedPost(request.method, res));
          })
          .catch((e: unknown) => entry.reject(e instanceof Error ? e : new ChannelError(String(e)))),
    );
    return call.promise;
  }

  async send(message: JsonRpcNotification | JsonRpcResponse, options: SendOptions = {}): Promise<void> {
    if (this.closed) throw new ChannelError('connection closed');
    if (!this.endpointUrl) throw new ChannelError('not started: no endpoint yet');
    const what = 'method' in message ? message.method : `the response to ${String(message.id)}`;
    const res = await this.post(message, what, options, new AbortController());
    if (res && !res.ok) throw failedPost(what, res);
  }

  /**
   * POSTs one message to the endpoint. 2xx (202 as a rule) means accepted; a 2xx JSON body
   * carrying messages is routed as if it came on the stream. Returns undefined when the
   * caller aborted, and the failed reply's status and body otherwise.
   */
  private async post(
    message: JsonRpcRequest | JsonRpcNotification | JsonRpcResponse,
    what: string,
    options: SendOptions,
    controller: AbortController,
  ): Promise<PostReply | undefined> {
    const signal = options.signal;
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) throw abortError(what, signal);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.inflight.add(controller);
    try {
      const headers = mergeHeaders(this.options.headers);
      headers.set('content-type', 'application/json');
      headers.set('accept', 'application/json, text/event-stream');
      for (const [k, v] of Object.entries(options.headers ?? {})) headers.set(k, v);
      let res: Response;
      try {
        res = await this.fetch(
          this.endpointUrl!,
          { method: 'POST', headers, body: JSON.stringify(message), signal: controller.signal },
          `POST ${what}`,
        );
      } catch (e) {
        if (e instanceof ChannelError || e instanceof JanusError) throw e;
        if (this.closed) throw new ChannelError('connection closed', undefined, undefined, { cause: e });
        if (signal?.aborted) throw abortError(what, signal);
        if (controller.signal.aborted) return undefined;
        throw fetchError(`POST ${what}`, this.endpointUrl!, e);
      }
      if (res.status === 401 || res.status === 403) throw await statusError(`POST ${what}`, this.endpointUrl!, res, this.maxBytes);
      if (res.ok && mediaType(res) !== 'application/json') {
        discard(res);
        return { ok: true, status: res.status, statusText: res.statusText, text: '', headers: res.headers, url: this.endpointUrl! };
      }
      const text = res.ok ? await readBounded(res, this.maxBytes, `the reply to ${what}`) : await readText(res, this.maxBytes);
      if (res.ok) for (const m of messagesIn(parseJson(text))) this.route(m, res.status);
      return { ok: res.ok, status: res.status, statusText: res.statusText, text, headers: res.headers, url: this.endpointUrl! };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.inflight.delete(controller);
    }
  }

  /** One fetch of this channel: redirects are followed only where that is safe (redirect.ts). */
  private async fetch(url: URL, init: RequestInit, what: string): Promise<Response> {
    init.redirect = 'manual';
    const res = await this.fetchFn(url, init);
    return isRedirect(res) ? followRedirects(this.fetchFn, url, init, res, what) : res;
  }

  private onEvent(event: SseEvent, status: number): void {
    if (event.type !== 'message' || event.data === '') return;
    for (const m of messagesIn(parseJson(event.data))) this.route(m, status);
  }

  private route(message: JsonRpcMessage, status: number): void {
    if (isResponse(message) && this.pending.has(message.id)) {
      this.pending.settle(message.id, recordStatus(message, status));
      return;
    }
    this.handlers?.onMessage(message);
  }

  /** The stream is gone: so is the connection. */
  private fail(error: Error): void {
    if (this.closed) return;
    this.shut(error);
    this.handlers?.onClose(error);
  }

  private shut(error: Error): void {
    this.closed = true;
    this.pending.rejectAll(error);
    for (const c of [...this.inflight]) c.abort(error);
    this.inflight.clear();
    this.stream.abort(error);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.shut(new ChannelError('connection closed'));
    this.handlers?.onClose();
  }
}
