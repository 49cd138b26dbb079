/**
 * Client-side JSON-RPC bookkeeping over a channel: ids, timeouts that reset on progress,
 * cancellation, progress routing, and answering the server's own requests.
 */
import { ErrorCode, JanusError, McpError } from '../protocol/errors.js';
import {
  errorResponse, resultResponse, type JsonRpcMessage, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import type { ClientChannel, SendOptions } from './channel.js';

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
  onServerRequest(request: JsonRpcRequest, signal: AbortSignal): Promise<Record<string, unknown>>;
  onNotification(notification: JsonRpcNotification): void;
  /** Whether cancellation is told with notifications/cancelled (legacy, modern stdio) or by closing the stream (modern HTTP). */
  cancelsByNotification(): boolean;
}

/** A request's timeout when neither the call nor the connect options give one. */
export const DEFAULT_TIMEOUT_MS = 60_000;

let tokenSeq = 0;

export class ClientPeer {
  private nextId = 1;
  private readonly progress = new Map<string | number, (p: Progress) => void>();
  /** Server requests being answered, so the server can cancel them. */
  private readonly serving = new Map<string | number, AbortController>();

  constructor(readonly channel: ClientChannel, private readonly hooks: PeerHooks, private readonly defaultTimeoutMs: number) {}

  /** Routes a server-initiated message from the channel. */
  receive(message: JsonRpcMessage): void {
    if ('method' in message && 'id' in message) {
      void this.answer(message as JsonRpcRequest);
    } else if ('method' in message) {
      const n = message as JsonRpcNotification;
      if (n.method === 'notifications/cancelled') {
        // cancellation.mdx: the server gave up on its own request; stop the handler, send no response.
        const id = n.params?.requestId as string | number | undefined;
        if (id !== undefined) this.serving.get(id)?.abort(new JanusError('ABORTED', String(n.params?.reason ?? 'cancelled by the server')));
      }
      if (n.method === 'notifications/progress') {
        const token = n.params?.progressToken as string | number | undefined;
        const fn = token === undefined ? undefined : this.progress.get(token);
        if (fn) fn(n.params as unknown as Progress);
      }
      this.hooks.onNotification(n);
    }
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    const controller = new AbortController();
    this.serving.set(request.id, controller);
    let response: JsonRpcResponse;
    try {
      response = resultResponse(request.id, await this.hooks.onServerRequest(request, controller.signal));
    } catch (e) {
      response = errorResponse(request.id, e instanceof McpError ? e.toJSON() : { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : String(e) });
    } finally {
      this.serving.delete(request.id);
    }
    if (!controller.signal.aborted) await this.channel.send(response).catch(() => {});
  }

  newId(): number {
    return this.nextId++;
  }

  /**
   * Sends a request and resolves with its raw response (errors included). Rejects on
   * timeout, cancellation and transport failure.
   */
  async call(method: string, params: Record<string, unknown>, options: CallOptions = {}, send: SendOptions = {}, id = this.newId()): Promise<JsonRpcResponse> {
    let token: string | undefined;
    const controller = new AbortController();
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failure: Error | undefined;
    const stop = (error: Error) => {
      if (controller.signal.aborted) return;
      failure = error;
      controller.abort(error);
      if (this.hooks.cancelsByNotification()) {
        const reason = error instanceof JanusError && error.code === 'TIMEOUT' ? 'timeout' : 'cancelled';
        void this.channel.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }).catch(() => {});
      }
    };
    const arm = () => {
      if (!(timeoutMs > 0) || timeoutMs === Infinity) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => stop(timeoutError(method, timeoutMs)), timeoutMs);
    };
    if (options.onProgress) {
      token = `p${++tokenSeq}`;
      const onProgress = options.onProgress;
      const reset = options.resetTimeoutOnProgress !== false;
      this.progress.set(token, (p) => {
        if (reset) arm();
        onProgress(p);
      });
      params = { ...params, _meta: { ...(params._meta as object | undefined), progressToken: token } };
    }
    // A caller that keeps its own clock (the stdio probe) aborts with a TIMEOUT error: it stays one.
    const onUserAbort = () => {
      const reason: unknown = options.signal?.reason;
      stop(reason instanceof JanusError && reason.code === 'TIMEOUT' ? reason : new JanusError('ABORTED', `${method} cancelled`, { cause: reason }));
    };
    if (options.signal?.aborted) onUserAbort();
    options.signal?.addEventListener('abort', onUserAbort, { once: true });
    arm();
    try {
      const request: JsonRpcRequest = { jsonrpc: '2.0', id, method, params };
      return await this.channel.request(request, { ...send, signal: controller.signal });
    } catch (e) {
      throw failure ?? e;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onUserAbort);
      if (token) this.progress.delete(token);
    }
  }

  notify(method: string, params?: Record<string, unknown>, send?: SendOptions): Promise<void> {
    const n: JsonRpcNotification = params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method };
    return this.channel.send(n, send);
  }
}

/** A request that got no answer in time: names the step and the duration, then what to do. */
export function timeoutError(method: string, ms: number): JanusError {
  return new JanusError('TIMEOUT', `${method} timed out: the server sent no answer within ${ms} ms. If the server is busy or slow, raise timeoutMs (in the connect options, or for this call); otherwise check that it is not stuck.`);
}

/** The result of a response, or its error as an McpError. */
export function unwrap(response: JsonRpcResponse): Record<string, unknown> {
  if ('error' in response) throw McpError.from(response.error);
  return response.result;
}
