/**
 * The lazy answer to one Streamable HTTP POST, handed to the core as its `Inbound`. Nothing is
 * written until the first message: a final response first becomes one `application/json`
 * reply; anything else first (a notification, a legacy server-to-client request) opens an SSE
 * stream that the final response ends (transports §Sending Messages, items 5-6). A client that
 * accepts only JSON gets the final response alone: messages before it are dropped, so legacy
 * server-to-client requests cannot reach it. Runtime-neutral.
 */
import { ErrorCode, type JsonRpcErrorObject } from '../../protocol/errors.js';
import {
  errorResponse,
  isErrorResponse,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import type { AuthInfo } from '../../server/index.js';
import type { Inbound, ServerChannel } from '../../spi/index.js';
import { SseChannel, type EventLog } from './channel.js';
import type { DisconnectListener, HeaderMap, HttpExchange } from './exchange.js';
import type { Accepts } from './guards.js';
import type { ResolvedOptions } from './options.js';
import { principalOf } from './protection.js';
import type { OpenStreams } from './sse.js';
import { JSON_HEADERS, statusForError, type Wire } from './status.js';
import { extend } from '../../protocol/extend.js';

/** Shared state of the handler that responders use. */
export interface ResponderHost {
  readonly options: ResolvedOptions;
  readonly streams: OpenStreams;
  reportError(e: unknown): void;
}

/**
 * A handshake-era session's part in the answer to one of its POSTs (transports/http/legacy):
 * the responder knows no session, only what this says.
 */
export interface PostSession {
  /** The session, as the core's channel (`Inbound.channel`). */
  readonly channel: ServerChannel;
  /** The list changes the client missed, announced again on this POST's stream before its final response. */
  announcements(): readonly JsonRpcMessage[];
  /** Where this POST's SSE events are kept for resumption, under which stream id; undefined: a plain stream. */
  resumableStream(): { readonly store: EventLog; readonly streamId: string } | undefined;
  /** The POST's resumable stream opened (`channel`) or ended (undefined). */
  streamChanged(streamId: string, channel: SseChannel | undefined): void;
  /** The SSE `retry:` of a priming event, when the session's revision has SSE polling; undefined: no priming event. */
  readonly primeRetryMs: number | undefined;
  /** For an `initialize` POST: the headers its answer carries (`Mcp-Session-Id`). Undefined for any other POST. */
  readonly initializeHeaders?: HeaderMap;
  /**
   * For an `initialize` POST, its outcome once its answer is written: `answered` (a result, with
   * the client still there) registers the session if the handshake succeeded, and says so;
   * otherwise the session is dropped.
   */
  initialized?(answered: boolean): boolean;
}

/** single: one request (or an invalid message) awaiting its response; batch: 2025-03-26 array; none: notifications/responses only. */
export type Expect = { readonly kind: 'single'; readonly id: RequestId | null } | { readonly kind: 'batch' } | { readonly kind: 'none' };

const NONE: Expect = { kind: 'none' };
export const EXPECT_NONE = NONE;
export const EXPECT_BATCH: Expect = { kind: 'batch' };

const NO_HEADERS: HeaderMap = Object.freeze({});

export class PostResponder implements Inbound, DisconnectListener {
  readonly transport = 'http';
  /** A handshake-era POST's stream dropping is not cancellation (2025-11-25 transports §Sending Messages); a 2026-07-28 one's is. */
  readonly cancelsOnDrop: boolean;
  readonly #host: ResponderHost;
  readonly #ex: HttpExchange;
  readonly #wire: Wire;
  readonly #accepts: Accepts;
  readonly #expect: Expect;
  /** The handshake-era session's part, absent on the modern wire. */
  readonly #session: PostSession | undefined;
  /** True while this POST is an `initialize` whose session is not registered yet. */
  #initializing: boolean;
  #state: 'pending' | 'sse' | 'done' = 'pending';
  #channel: SseChannel | undefined;
  #ac: AbortController | undefined;
  /** `watch`'s watcher (a listen stream): told when the response stream closes, without an AbortController. */
  #watcher: { abort(): void } | undefined;
  /** The core settled while a watcher held the exchange: `settled()` runs at its `unwatch` (transport-seam.ts). */
  #settleOnUnwatch = false;
  #gone = false;
  #batch: JsonRpcResponse[] | undefined;
  #final: JsonRpcResponse | undefined;

  constructor(host: ResponderHost, ex: HttpExchange, wire: Wire, accepts: Accepts, expect: Expect, session?: PostSession) {
    this.#host = host;
    this.#ex = ex;
    this.#wire = wire;
    this.cancelsOnDrop = wire !== 'legacy';
    this.#accepts = accepts;
    this.#expect = expect;
    this.#session = session;
    this.#initializing = session?.initializeHeaders !== undefined;
    ex.listener = this;
  }

  get channel(): ServerChannel | undefined {
    return this.#session?.channel;
  }

  /** The verified identity of this POST (`ctx.auth`), with the `auth` option. */
  get auth(): AuthInfo | undefined {
    return this.#ex.auth;
  }

  /** Whom MRTR states are bound to: the token's subject. */
  get principal(): string | undefined {
    return principalOf(this.#ex.auth);
  }

  /** The core dispatches by the wire this POST was classified on, not by the body alone. */
  get wire(): Wire {
    return this.#wire;
  }

  /** Whether this responder belongs to that handler (its shutdown ends our listen streams). */
  belongsTo(host: ResponderHost): boolean {
    return this.#host === host;
  }

  /**
   * Modern wire only: closing the response stream IS cancellation (2026-07-28
   * streamable-http.mdx §Cancellation). On legacy sessions a disconnect SHOULD NOT be read as
   * cancellation (2025-11-25 transports §Sending Messages item 6), so there is no signal: the
   * handler runs on and its messages are kept for resumption.
   */
  get signal(): AbortSignal | undefined {
    if (this.#wire === 'legacy') return undefined;
    if (this.#ac === undefined) {
      this.#ac = new AbortController();
      if (this.#gone) this.#ac.abort();
    }
    return this.#ac.signal;
  }

  watch(watcher: { abort(): void }): void {
    // As `signal`: only the modern wire reads a closed stream as cancellation.
    if (this.#wire === 'legacy') return;
    if (this.#gone) watcher.abort();
    else this.#watcher = watcher;
  }

  unwatch(watcher: { abort(): void }): void {
    if (this.#watcher !== watcher) return;
    this.#watcher = undefined;
    if (this.#settleOnUnwatch) {
      this.#settleOnUnwatch = false;
      this.settled();
    }
  }

  /** `sse: 'always'`: open the stream before the core runs. */
  startEarly(): void {
    if (this.#expect.kind !== 'none' && this.#accepts.sse && this.#state === 'pending') this.#startSse();
  }

  send(message: JsonRpcMessage): void {
    if (this.#gone && this.#wire === 'modern') return; // cancelled: MUST NOT send further messages
    if (this.#state === 'done') return;
    const final = this.#isFinal(message);
    if (final) {
      this.#final = message;
      if (this.#session !== undefined) this.#announce(this.#session);
    }
    if (this.#state === 'sse') {
      this.#channel!.send(message);
      if (final) this.#finishStream();
      return;
    }
    // pending
    if (this.#expect.kind === 'none') return; // nothing answers a notification
    if (this.#expect.kind === 'batch' && isResponse(message)) {
      (this.#batch ??= []).push(message);
      return;
    }
    if (final && (this.#accepts.json || !this.#accepts.sse)) {
      this.#replyJson(this.#final!);
      return;
    }
    if (!this.#accepts.sse || this.#gone) return; // JSON-only client: only the final response reaches it
    this.#startSse();
    this.#flushBatch();
    this.#channel!.send(message);
    if (final) this.#finishStream();
  }

  /**
   * Notifications or responses the server could not take in: an error status with a JSON-RPC
   * error without an id, instead of 202 (2025-11-25 transports §Sending Messages item 4);
   * 503 when it failed for want of a shared store, so the client may send it again.
   */
  refuse(error: JsonRpcErrorObject): void {
    if (this.#expect.kind !== 'none' || this.#state !== 'pending') return;
    this.#state = 'done';
    this.#writeJson(error.code === ErrorCode.InternalError ? 503 : 400, errorResponse(null, error), NO_HEADERS);
  }

  /** A batch refused as a whole: its one error object is the answer, not an array (JSON-RPC 2.0 §6). */
  refuseBatch(error: JsonRpcMessage): void {
    if (this.#state === 'pending' && (this.#accepts.json || !this.#accepts.sse || this.#gone)) {
      this.#state = 'done';
      this.#writeJson(200, error, NO_HEADERS);
      return;
    }
    if (this.#state === 'done') return;
    if (this.#state === 'pending') this.#startSse(); // an SSE-only client
    this.#channel!.send(error);
    this.#finishStream();
  }

  /**
   * The "changed since last fetched" marker: list changes this session missed (no GET stream
   * was open) are announced again on its response streams, before the final response, until
   * it fetches the list. A JSON answer
   * becomes a stream for that when the client accepts one.
   */
  #announce(session: PostSession): void {
    const notes = session.announcements();
    if (notes.length === 0 || !this.#accepts.sse || this.#gone) return;
    if (this.#state === 'pending') {
      this.#startSse();
      this.#flushBatch();
    }
    for (const n of notes) this.#channel!.send(n);
  }

  /** Batch responses collected while the answer could still be one JSON array go down the stream. */
  #flushBatch(): void {
    const batch = this.#batch;
    if (batch === undefined) return;
    this.#batch = undefined;
    for (const r of batch) this.#channel!.send(r);
  }

  /**
   * Ends this request's connection early, keeping the stream resumable (2025-11-25 SSE
   * polling). Only where the client can resume: a legacy session with an event store, and a
   * resumption cursor already given or a priming event possible. Otherwise a no-op (on the
   * modern wire closing would mean cancellation).
   */
  closeStream(): void {
    const session = this.#session;
    if (this.#wire !== 'legacy' || session === undefined) return;
    if (this.#state === 'pending') {
      if (!this.#accepts.sse || this.#gone || session.primeRetryMs === undefined || session.resumableStream() === undefined) return;
      this.#startSse();
    }
    // Every event of a resumable stream carries an id, so the client holds a cursor (the
    // detach is queued behind any pending append, the priming event included).
    if (this.#state === 'sse' && this.#channel!.streamId !== undefined) this.#channel!.detach();
  }

  onDisconnect(ex: HttpExchange): void {
    this.#gone = true;
    this.#ac?.abort();
    this.#channel?.onDisconnect(ex);
    // Last, with the stream already let go: the watcher's unwatch may be what ends the exchange.
    this.#watcher?.abort();
  }

  /** The core's `handle` settled: whatever is still open ends now (or, while a watcher holds it, at its `unwatch`). */
  settled(): void {
    if (this.#watcher !== undefined) {
      this.#settleOnUnwatch = true;
      return;
    }
    if (this.#state === 'sse') {
      this.#finishStream();
      return;
    }
    if (this.#state === 'done') return;
    if (this.#batch !== undefined && !this.#accepts.json && this.#accepts.sse && !this.#gone) {
      this.#startSse(); // an SSE-only client gets the batch's responses as events
      this.#flushBatch();
      this.#finishStream();
      return;
    }
    if (this.#expect.kind === 'single' && !this.#gone) {
      this.#unanswered(this.#expect.id);
      return;
    }
    this.#state = 'done';
    if (this.#initializing) this.#completeInit();
    const batch = this.#batch;
    if (batch !== undefined && batch.length > 0) {
      this.#writeJson(200, batch, NO_HEADERS);
      return;
    }
    // Notifications/responses accepted: 202 (transports §Sending Messages item 4).
    if (this.#ex.open) this.#ex.respond(202, {});
  }

  /**
   * A request that ended without a response: a legacy one cancelled by notifications/cancelled
   * (or by its session's end), which gets no response (utilities/cancellation.mdx §Behavior
   * Requirements). Its POST still needs a proper answer: a request is answered with an event
   * stream or JSON, never 202 (2025-11-25 transports §Sending Messages items 4-5). So an event
   * stream that ends without a response; for a client that accepts only JSON, an error the
   * client ignores as the answer to a cancelled request (cancellation.mdx: the sender SHOULD
   * ignore any later response).
   */
  #unanswered(id: RequestId | null): void {
    if (this.#accepts.sse) {
      this.#startSse();
      this.#finishStream();
      return;
    }
    this.#state = 'done';
    if (this.#initializing) this.#completeInit();
    this.#writeJson(
      200,
      errorResponse(id, { code: ErrorCode.InvalidRequest, message: 'Request cancelled: it ended without a result' }),
      NO_HEADERS,
    );
  }

  #isFinal(message: JsonRpcMessage): message is JsonRpcResponse {
    if (this.#expect.kind !== 'single' || !isResponse(message)) return false;
    return this.#expect.id === null || message.id === this.#expect.id;
  }

  #replyJson(message: JsonRpcResponse): void {
    // Serialized before anything changes: if that throws, the core answers -32603 instead.
    const text = JSON.stringify(message);
    this.#state = 'done';
    let headers = NO_HEADERS;
    if (this.#initializing) this.#completeInit((headers = {}));
    const status = isErrorResponse(message) ? statusForError(this.#wire, message.error.code) : 200;
    this.#writeText(status, text, headers);
  }

  #writeJson(status: number, body: unknown, headers: HeaderMap): void {
    this.#writeText(status, JSON.stringify(body), headers);
  }

  #writeText(status: number, text: string, headers: HeaderMap): void {
    if (!this.#ex.open) return;
    // The shared header object is never mutated by the adapters; copy only to add to it.
    const all = headers === NO_HEADERS ? JSON_HEADERS : extend(JSON_HEADERS, headers);
    this.#ex.respond(status, all, text);
  }

  #startSse(): void {
    const session = this.#session;
    const resumable = this.#wire === 'legacy' ? session?.resumableStream() : undefined;
    const ch = new SseChannel(resumable?.store, resumable?.streamId, this.#host.streams, this.#host);
    this.#channel = ch;
    this.#state = 'sse';
    if (resumable !== undefined) session!.streamChanged(resumable.streamId, ch);
    // The session id must be on the response that carries the InitializeResult (§Session Management).
    ch.open(this.#ex, this.#initializing ? session!.initializeHeaders : undefined);
    if (this.#gone) ch.onDisconnect(this.#ex);
    if (resumable !== undefined && session!.primeRetryMs !== undefined) ch.prime(session!.primeRetryMs);
  }

  #finishStream(): void {
    this.#state = 'done';
    const ch = this.#channel!;
    if (this.#initializing) this.#completeInit();
    ch.finish();
    if (ch.streamId !== undefined) this.#session!.streamChanged(ch.streamId, undefined);
  }

  /**
   * An `initialize` POST's outcome, once its answer is written: the session is registered only
   * if it succeeded and someone is still there to learn its id; otherwise it is dropped.
   */
  #completeInit(headers?: Record<string, string>): void {
    this.#initializing = false;
    const final = this.#final;
    const session = this.#session!;
    const registered = session.initialized?.(final !== undefined && !isErrorResponse(final) && !this.#gone) === true;
    if (registered && headers !== undefined) Object.assign(headers, session.initializeHeaders);
  }
}
