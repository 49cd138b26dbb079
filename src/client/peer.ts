/**
 * The client's side of the JSON-RPC peer over a channel: its calls (ids, timeouts that
 * progress restarts, aborts: the shared bookkeeping of jsonrpc/pending.ts), how it cancels
 * on this wire, and answering the server's own requests.
 */
import { ErrorCode, JanusError, McpError } from '../protocol/errors.js';
import {
  errorResponse,
  isRequestId,
  resultResponse,
  type RequestId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import { cancelledNotification, notificationMessage, progressOf, requestMessage, withProgressToken } from '../jsonrpc/envelope.js';
import { PendingRequests } from '../jsonrpc/pending.js';
import type { ClientChannel, SendOptions } from './channel.js';
import { DEFAULT_MAX_SERVER_REQUESTS, DEFAULT_MAX_TOTAL_TIMEOUT_MS } from './limits.js';

export { unwrap } from '../jsonrpc/envelope.js';

/** A progress notification's values, as `onProgress` gets them. */
export interface Progress {
  /** How far along: increases with each notification. */
  progress: number;
  /** The value `progress` reaches when done, if known. */
  total?: number;
  /** What is happening now, for display. */
  message?: string;
}

/** How one request is sent: its timeouts, progress and cancellation. */
export interface CallOptions {
  /** Default: the client's `timeoutMs`; 0 or Infinity for none. */
  timeoutMs?: number;
  /** Restart the timeout whenever progress arrives (default true). */
  resetTimeoutOnProgress?: boolean;
  /** The longest the call may wait however often progress restarts `timeoutMs`. Default: the client's `maxTotalTimeoutMs` (one hour); 0 or Infinity for none. */
  maxTotalTimeoutMs?: number;
  /**
   * Called for each progress notification the server sends for this request (a progress token is
   * sent with it).
   */
  onProgress?: (p: Progress) => void;
  /** Cancels the request: the server is told, and the call rejects. */
  signal?: AbortSignal;
}

export interface PeerHooks {
  /** Answers a server request; what it resolves with is the response's result. */
  onServerRequest(request: JsonRpcRequest, signal: AbortSignal): Promise<object>;
  onNotification(notification: JsonRpcNotification): void;
  /** Whether cancellation is told with notifications/cancelled (legacy, modern stdio) or by closing the stream (modern HTTP). */
  cancelsByNotification(): boolean;
  /** Things worth a log line that no caller hears of (server requests dropped in a flood). */
  onWarning(message: string): void;
}

/** The peer's bounds (ConnectOptions of the same names). */
export interface PeerSettings {
  readonly timeoutMs?: number;
  readonly maxTotalTimeoutMs?: number;
  readonly maxServerRequests?: number;
}

/** Refusals that may wait to be sent, per request served at once. */
const REFUSALS_WAITING = 64;

/** A request's timeout when neither the call nor the connect options give one. */
export const DEFAULT_TIMEOUT_MS = 60_000;

let tokenSeq = 0;

export class ClientPeer {
  private readonly calls = new PendingRequests<JsonRpcResponse>(1);
  /** Server requests being answered, so the server can cancel them. */
  private readonly serving = new Map<string | number, AbortController>();
  /** Server requests in service: from arrival until their response is sent. */
  private inService = 0;
  /** Refusals (the busy error) waiting to be sent, and how many are being sent. */
  private readonly refusals: Array<{ id: RequestId; method: string }> = [];
  private refusing = 0;
  /** Server requests dropped unanswered since the refusals last caught up. */
  private dropped = 0;
  private readonly maxServerRequests: number;

  constructor(
    readonly channel: ClientChannel,
    private readonly hooks: PeerHooks,
    private readonly settings: PeerSettings = {},
  ) {
    this.maxServerRequests = settings.maxServerRequests ?? DEFAULT_MAX_SERVER_REQUESTS;
  }

  /** Routes a server-initiated message from the channel. */
  receive(message: JsonRpcMessage): void {
    if (!('method' in message)) return; // a response: the channel settles it
    if ('id' in message) {
      void this.answer(message);
      return;
    }
    if (message.method === 'notifications/cancelled') {
      // cancellation.mdx: the server gave up on its own request; stop the handler, send no response.
      const id = message.params?.requestId;
      if (isRequestId(id))
        this.serving.get(id)?.abort(new JanusError('ABORTED', String(message.params?.reason ?? 'cancelled by the server')));
    }
    const progress = progressOf(message);
    if (progress) this.calls.progress(progress);
    this.hooks.onNotification(message);
  }

  /**
   * Answers a server request, at most `maxServerRequests` at once (handler and response
   * send; on HTTP each response is a POST). One more is refused with an error and reaches no
   * handler (JSON-RPC 2.0 §5: every request is answered; client/sampling.mdx and
   * client/elicitation.mdx §Security Considerations: clients SHOULD rate-limit). Refusals go
   * out as many at a time; when `REFUSALS_WAITING` times as many wait, a request is dropped
   * unanswered (answering would again be work without bound) and reported.
   */
  private async answer(request: JsonRpcRequest): Promise<void> {
    if (this.inService >= this.maxServerRequests) return this.refuse(request);
    this.inService++;
    const controller = new AbortController();
    this.serving.set(request.id, controller);
    try {
      let response: JsonRpcResponse;
      try {
        // A shallow copy: the handler's object, as JSON.stringify would see it (own enumerable members).
        response = resultResponse(request.id, { ...(await this.hooks.onServerRequest(request, controller.signal)) });
      } catch (e) {
        response = errorResponse(
          request.id,
          e instanceof McpError ? e.toJSON() : { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : String(e) },
        );
      } finally {
        this.serving.delete(request.id);
      }
      if (!controller.signal.aborted) await this.channel.send(response).catch(() => {});
    } finally {
      this.inService--;
    }
  }

  private refuse(request: JsonRpcRequest): void {
    const max = this.maxServerRequests;
    if (this.refusals.length >= REFUSALS_WAITING * max) {
      if (this.dropped++ === 0) {
        this.hooks.onWarning(
          `the server sends requests faster than this client can refuse them (it serves ${max} at once: maxServerRequests): ${request.method.slice(0, 100)} and any more until it slows down get no answer`,
        );
      }
      return;
    }
    this.refusals.push({ id: request.id, method: request.method.slice(0, 100) });
    this.sendRefusals();
  }

  private sendRefusals(): void {
    const max = this.maxServerRequests;
    while (this.refusing < max && this.refusals.length > 0) {
      const { id, method } = this.refusals.shift()!;
      const busy = `the client is already answering ${max} requests from this server (its maxServerRequests); ${method} refused, try again later`;
      this.refusing++;
      void this.channel
        .send(errorResponse(id, { code: ErrorCode.InternalError, message: busy }))
        .catch(() => {})
        .finally(() => {
          this.refusing--;
          if (this.refusals.length === 0) this.dropped = 0;
          this.sendRefusals();
        });
    }
  }

  newId(): number {
    return this.calls.nextId();
  }

  /**
   * Sends a request and resolves with its raw response (errors included). Rejects on
   * timeout, cancellation and transport failure.
   */
  call(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions = {},
    send: SendOptions = {},
    id = this.newId(),
  ): Promise<JsonRpcResponse> {
    // A task-augmented call names its own token: progress goes on after the request (tasks/tool-calls.ts).
    const own = (options as { progressToken?: string }).progressToken;
    const progressToken = options.onProgress ? (own ?? `p${++tokenSeq}`) : undefined;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const request = requestMessage(id, method, progressToken === undefined ? params : withProgressToken(params, progressToken));
    // Stops the channel waiting for the response; on modern HTTP that closes the request's stream, the cancellation there.
    const channelCall = new AbortController();
    const pending = this.calls.start(
      {
        id,
        method,
        timeoutMs,
        timeoutError,
        signal: options.signal,
        // A caller that keeps its own clock (the stdio probe) aborts with a TIMEOUT error: it stays one.
        abortError: (m, reason) =>
          reason instanceof JanusError && reason.code === 'TIMEOUT'
            ? reason
            : new JanusError('ABORTED', `${m} cancelled`, { cause: reason }),
        progressToken,
        onProgress: options.onProgress,
        resetTimeoutOnProgress: options.resetTimeoutOnProgress,
        onCancel: (error) => {
          channelCall.abort(error);
          // cancellation.mdx: "The initialize request MUST NOT be cancelled by clients".
          if (method !== 'initialize' && this.hooks.cancelsByNotification()) {
            const reason = error instanceof JanusError && error.code === 'TIMEOUT' ? 'timeout' : 'cancelled';
            void this.channel.send(cancelledNotification(id, reason)).catch(() => {});
          }
        },
      },
      (call) => this.channel.request(request, { ...send, signal: channelCall.signal }).then((response) => call.resolve(response)),
    );
    // lifecycle.mdx §Timeouts: progress may restart the clock, but a maximum timeout holds regardless.
    if (progressToken !== undefined && options.resetTimeoutOnProgress !== false && timeoutMs > 0 && timeoutMs !== Infinity) {
      const total = options.maxTotalTimeoutMs ?? this.settings.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS;
      if (total > 0 && total !== Infinity) {
        const timer = setTimeout(() => pending.cancel(totalTimeoutError(method, total)), total);
        pending.promise.then(
          () => clearTimeout(timer),
          () => clearTimeout(timer),
        );
      }
    }
    return pending.promise;
  }

  notify(method: string, params?: Record<string, unknown>, send?: SendOptions): Promise<void> {
    return this.channel.send(notificationMessage(method, params), send);
  }
}

/** A request that progress kept alive past `maxTotalTimeoutMs`. */
function totalTimeoutError(method: string, ms: number): JanusError {
  return new JanusError(
    'TIMEOUT',
    `${method} timed out: the server kept reporting progress but sent no answer within ${ms} ms in all. If it really takes that long, raise maxTotalTimeoutMs (in the connect options, or for this call).`,
  );
}

/** A request that got no answer in time: names the step and the duration, then what to do. */
export function timeoutError(method: string, ms: number): JanusError {
  return new JanusError(
    'TIMEOUT',
    `${method} timed out: the server sent no answer within ${ms} ms. If the server is busy or slow, raise timeoutMs (in the connect options, or for this call); otherwise check that it is not stuck.`,
  );
}
