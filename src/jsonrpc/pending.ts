/**
 * Outbound requests waiting for their responses: the one bookkeeping behind the server's
 * legacy server-to-client requests, the client's calls and every client channel's
 * correlation of responses (JSON-RPC 2.0 §5: a response carries its request's id).
 *
 * It owns ids, the pending map, timeouts that progress may restart (basic/lifecycle.mdx
 * §Timeouts), AbortSignal support and failing everything when the connection goes. What a
 * caller says on the wire when it gives up is its own `onCancel`: `notifications/cancelled`
 * (basic/utilities/cancellation.mdx), or closing the request's stream (2026-07-28
 * Streamable HTTP, where that is the cancellation).
 */
import { JanusError } from '../protocol/errors.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import type { ProgressParams, ProgressToken } from './envelope.js';

export interface OutboundRequest {
  readonly id: RequestId;
  /** Names the request in errors. */
  readonly method: string;
  /** No response within this many ms fails the call with `timeoutError`; 0, Infinity or absent: no timeout. */
  readonly timeoutMs?: number;
  readonly timeoutError?: (method: string, ms: number) => Error;
  /** Aborting fails the call with `abortError` (before the send, nothing is sent). */
  readonly signal?: AbortSignal;
  readonly abortError?: (method: string, reason: unknown) => Error;
  /** `notifications/progress` naming this token reaches `onProgress` (see `PendingRequests.progress`). */
  readonly progressToken?: ProgressToken;
  readonly onProgress?: (params: ProgressParams) => void;
  /** Progress restarts the timeout (lifecycle.mdx §Timeouts: MAY); default true. */
  readonly resetTimeoutOnProgress?: boolean;
  /** The call was sent and then given up (abort or timeout): tell the peer the way the wire in use does. */
  readonly onCancel?: (error: Error) => void;
  /** Runs once when the call settles, however; `error` is what it failed with. */
  readonly onSettled?: (error: Error | undefined) => void;
}

/** Sends a registered call; a throw or a rejection fails it with that error. */
export type Send<T> = (call: PendingCall<T>) => undefined | Promise<unknown>;

function defaultTimeoutError(method: string, ms: number): Error {
  return new JanusError('TIMEOUT', `${method} timed out after ${ms} ms`);
}

function defaultAbortError(method: string, reason: unknown): Error {
  return new JanusError('ABORTED', `${method} aborted`, { cause: reason });
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/** One outbound request: settled once, by its response, a failure, an abort, a timeout or the connection closing. */
export class PendingCall<T> {
  readonly promise: Promise<T>;
  private fulfil!: (value: T) => void;
  private fail!: (error: Error) => void;
  private done = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private controller: AbortController | undefined;
  private readonly onAbort = () => this.cancel((this.request.abortError ?? defaultAbortError)(this.method, this.request.signal?.reason));

  constructor(
    private readonly owner: PendingRequests<T>,
    readonly request: OutboundRequest,
  ) {
    this.promise = new Promise<T>((resolve, reject) => {
      this.fulfil = resolve;
      this.fail = reject;
    });
  }

  get id(): RequestId {
    return this.request.id;
  }

  get method(): string {
    return this.request.method;
  }

  get settled(): boolean {
    return this.done;
  }

  /** Aborts once the call has settled: whatever the send still holds open (a stream, a retry timer) can go. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.done) this.controller.abort();
    return this.controller.signal;
  }

  resolve(value: T): void {
    if (this.finish(undefined)) this.fulfil(value);
  }

  /** Fails the call with no word to the peer (the send failed, the channel gave up, the connection is gone). */
  reject(error: Error): void {
    if (this.finish(error)) this.fail(error);
  }

  /**
   * Gives the call up (abort, timeout) and tells the peer through `onCancel`. Only a sent call
   * gets here: one aborted before its send is rejected by `PendingRequests.start` instead.
   */
  cancel(error: Error): void {
    if (!this.finish(error)) return;
    this.fail(error);
    this.request.onCancel?.(error);
  }

  /** (Re)starts the timeout clock. */
  restartTimeout(): void {
    const ms = this.request.timeoutMs;
    if (this.done || ms === undefined || !(ms > 0) || ms === Infinity) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.cancel((this.request.timeoutError ?? defaultTimeoutError)(this.method, ms)), ms);
  }

  /** Called once by `PendingRequests.start`: listens for the abort, arms the timeout, sends. */
  begin(send: Send<T>): void {
    this.request.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.restartTimeout();
    try {
      const sending = send(this);
      if (sending instanceof Promise) sending.then(undefined, (e: unknown) => this.reject(asError(e)));
    } catch (e) {
      this.reject(asError(e));
    }
  }

  private finish(error: Error | undefined): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.request.signal?.removeEventListener('abort', this.onAbort);
    this.owner.forget(this);
    this.controller?.abort(error);
    this.request.onSettled?.(error);
    return true;
  }
}

/** The calls one side has sent and not yet seen answered, by id (and by progress token). */
export class PendingRequests<T> {
  private readonly calls = new Map<RequestId, PendingCall<T>>();
  private readonly byToken = new Map<ProgressToken, PendingCall<T>>();
  private next: number;

  /** `firstId`: where this side's ids start (they only need to be unique among its requests). */
  constructor(firstId = 1) {
    this.next = firstId;
  }

  /** A fresh id, never used before by this side. */
  nextId(): number {
    return this.next++;
  }

  get size(): number {
    return this.calls.size;
  }

  has(id: RequestId | null | undefined): boolean {
    return id !== undefined && id !== null && this.calls.has(id);
  }

  /** The methods of the calls still waiting (say what was lost when the connection goes). */
  methods(): string[] {
    return [...this.calls.values()].map((call) => call.method);
  }

  /**
   * Registers a call and sends it with `send`. When `signal` has already aborted the call
   * fails at once and nothing is sent, not even a cancellation: there is nothing to cancel.
   */
  start(request: OutboundRequest, send: Send<T>): PendingCall<T> {
    const call = new PendingCall(this, request);
    if (request.signal?.aborted) {
      call.reject((request.abortError ?? defaultAbortError)(request.method, request.signal.reason));
      return call;
    }
    this.calls.set(request.id, call);
    if (request.progressToken !== undefined) this.byToken.set(request.progressToken, call);
    call.begin(send);
    return call;
  }

  /**
   * Hands `value` (the response) to the call waiting for `id`. False when none is: an
   * unknown id, or a late answer to a call that timed out or was aborted, which is dropped.
   */
  settle(id: RequestId | null | undefined, value: T): boolean {
    const call = id === undefined || id === null ? undefined : this.calls.get(id);
    if (!call) return false;
    call.resolve(value);
    return true;
  }

  /** Routes `notifications/progress` to the call that asked for it; false when none did. */
  progress(params: ProgressParams): boolean {
    const call = this.byToken.get(params.progressToken);
    if (!call) return false;
    if (call.request.resetTimeoutOnProgress !== false) call.restartTimeout();
    call.request.onProgress?.(params);
    return true;
  }

  /** The connection is gone: every waiting call fails with `error` (no cancellation is sent). */
  rejectAll(error: Error): void {
    for (const call of [...this.calls.values()]) call.reject(error);
  }

  /** Called by a call as it settles: it leaves the maps (unless its id was reused meanwhile). */
  forget(call: PendingCall<T>): void {
    if (this.calls.get(call.id) === call) this.calls.delete(call.id);
    const token = call.request.progressToken;
    if (token !== undefined && this.byToken.get(token) === call) this.byToken.delete(token);
  }
}
