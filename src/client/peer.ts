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
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import { cancelledNotification, notificationMessage, progressOf, requestMessage, withProgressToken } from '../jsonrpc/envelope.js';
import { PendingRequests } from '../jsonrpc/pending.js';
import type { ClientChannel, SendOptions } from './channel.js';

export { unwrap } from '../jsonrpc/envelope.js';

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  /** Default: the client's `timeoutMs`; 0 or Infinity for none. */
  timeoutMs?: number;
  /** Restart the timeout whenever progress arrives (default true). */
  resetTimeoutOnProgress?: boolean;
  onProgress?: (p: Progress) => void;
  signal?: AbortSignal;
}

export interface PeerHooks {
  /** Answers a server request; what it resolves with is the response's result. */
  onServerRequest(request: JsonRpcRequest, signal: AbortSignal): Promise<object>;
  onNotification(notification: JsonRpcNotification): void;
  /** Whether cancellation is told with notifications/cancelled (legacy, modern stdio) or by closing the stream (modern HTTP). */
  cancelsByNotification(): boolean;
}

/** A request's timeout when neither the call nor the connect options give one. */
export const DEFAULT_TIMEOUT_MS = 60_000;

let tokenSeq = 0;

export class ClientPeer {
  private readonly calls = new PendingRequests<JsonRpcResponse>(1);
  /** Server requests being answered, so the server can cancel them. */
  private readonly serving = new Map<string | number, AbortController>();

  constructor(
    readonly channel: ClientChannel,
    private readonly hooks: PeerHooks,
    private readonly defaultTimeoutMs: number,
  ) {}

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

  private async answer(request: JsonRpcRequest): Promise<void> {
    const controller = new AbortController();
    this.serving.set(request.id, controller);
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
    const progressToken = options.onProgress ? `p${++tokenSeq}` : undefined;
    const request = requestMessage(id, method, progressToken === undefined ? params : withProgressToken(params, progressToken));
    // Stops the channel waiting for the response; on modern HTTP that closes the request's stream, the cancellation there.
    const channelCall = new AbortController();
    return this.calls.start(
      {
        id,
        method,
        timeoutMs: options.timeoutMs ?? this.defaultTimeoutMs,
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
          if (this.hooks.cancelsByNotification()) {
            const reason = error instanceof JanusError && error.code === 'TIMEOUT' ? 'timeout' : 'cancelled';
            void this.channel.send(cancelledNotification(id, reason)).catch(() => {});
          }
        },
      },
      (call) => this.channel.request(request, { ...send, signal: channelCall.signal }).then((response) => call.resolve(response)),
    ).promise;
  }

  notify(method: string, params?: Record<string, unknown>, send?: SendOptions): Promise<void> {
    return this.channel.send(notificationMessage(method, params), send);
  }
}

/** A request that got no answer in time: names the step and the duration, then what to do. */
export function timeoutError(method: string, ms: number): JanusError {
  return new JanusError(
    'TIMEOUT',
    `${method} timed out: the server sent no answer within ${ms} ms. If the server is busy or slow, raise timeoutMs (in the connect options, or for this call); otherwise check that it is not stuck.`,
  );
}
