/**
 * One logical SSE stream: a POST response stream or a session's standalone GET stream. It
 * outlives HTTP connections on legacy sessions: with an event store, every event gets an id
 * and is stored, so a client can reconnect with GET + `Last-Event-ID` and the stream goes on
 * on the new connection (2025-11-25 transports §Resumability and Redelivery). Without a
 * stream id (2026-07-28, or no store) it is a plain stream bound to one connection.
 */
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { DisconnectListener, HeaderMap, HttpExchange } from './exchange.js';
import { messageEvent, primingEvent, SSE_HEADERS, type OpenStreams } from './sse.js';
import { extend } from '../../protocol/extend.js';

/** Recent events kept per in-flight stream to bridge an asynchronous store's replay. */
const RECENT_MAX = 256;

/**
 * Where a resumable stream's events are kept, by id (the handshake era's event store is one):
 * what the channel writes to and reads back from. A stream without one is plain.
 */
export interface EventLog {
  append(streamId: string, message: JsonRpcMessage | undefined, json?: string): string | Promise<string>;
  replayAfter(
    lastEventId: string,
    sink: (eventId: string, message: JsonRpcMessage) => void,
  ): string | undefined | Promise<string | undefined>;
}

export interface ErrorReporter {
  reportError(e: unknown): void;
}

export interface ChannelHooks {
  /** Hears when a connection binds (true) or goes (false): a cluster tracks who holds a GET stream. */
  onConnection?(connected: boolean): void;
  /**
   * Cluster: the stream is one all instances write (a legacy session's GET stream, its store
   * shared). What reaches the connection is read back from the store, in the store's order, so
   * that events other instances stored reach it too, once each; `stored` runs after an event
   * was stored while no connection is bound here, so that the instance holding one reads it.
   */
  shared?: { stored(): void };
}

/** Where every channel's queue starts: settled, and never changed by what is chained on it. */
const IDLE: Promise<void> = Promise.resolve();
/** No hooks: what a channel without a store or cluster gets (most, a listen stream among them). */
const NO_HOOKS: ChannelHooks = Object.freeze({});

interface Recent {
  readonly id: string;
  /** The message's JSON text; undefined for a priming event. */
  readonly json: string | undefined;
}

export class SseChannel implements DisconnectListener {
  readonly streamId: string | undefined;
  readonly #store: EventLog | undefined;
  readonly #streams: OpenStreams;
  readonly #reporter: ErrorReporter;
  #conn: HttpExchange | undefined;
  /** Ids of events the attached connection already got through a replay (async stores only). */
  #replayed: ReadonlySet<string> | undefined;
  /** With a store: the last events, for a resumed connection (made with the first). */
  #recent: Recent[] | undefined;
  /** Operations queued behind an asynchronous `append`, to keep events in order. */
  #pending = 0;
  #tail: Promise<void> = IDLE;
  #finished = false;
  readonly #hooks: ChannelHooks;
  /** Shared: the last event the bound connection got (it reads on from there). */
  #cursor: string | undefined;
  #pullQueued = false;
  /** Shared: this instance's own messages stored while bound, not yet written (a read writes them). */
  #unread: Recent[] | undefined;

  constructor(
    store: EventLog | undefined,
    streamId: string | undefined,
    streams: OpenStreams,
    reporter: ErrorReporter,
    hooks: ChannelHooks = NO_HOOKS,
  ) {
    this.#store = streamId === undefined ? undefined : store;
    this.streamId = this.#store === undefined ? undefined : streamId;
    this.#streams = streams;
    this.#reporter = reporter;
    if (this.#store !== undefined) this.#hooks = hooks;
    else this.#hooks = hooks.onConnection === undefined ? NO_HOOKS : { onConnection: hooks.onConnection };
  }

  get connected(): boolean {
    return this.#conn?.open === true;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** Starts the SSE response on `ex` and binds the stream to it. */
  open(ex: HttpExchange, headers?: HeaderMap): void {
    ex.startStream(200, headers === undefined ? SSE_HEADERS : extend(SSE_HEADERS, headers));
    this.#bind(ex);
  }

  /** Binds a resumed connection whose replay (events up to now) was already written. */
  attach(ex: HttpExchange, lastEventId: string, replayed: ReadonlySet<string>): void {
    if (this.#hooks.shared !== undefined) {
      // It reads on from its last replayed event: what was stored since, here or elsewhere, comes next.
      this.#cursor = [...replayed].at(-1) ?? lastEventId;
      this.#bind(ex);
      this.poke();
      return;
    }
    // Events an asynchronous store appended after it answered the replay are in #recent only.
    const recent = this.#recent ?? [];
    const from = recent.findIndex((e) => e.id === lastEventId) + 1;
    for (let i = from; i < recent.length; i++) {
      const e = recent[i]!;
      if (e.json !== undefined && !replayed.has(e.id)) ex.write(messageEvent(e.json, e.id));
    }
    this.#replayed = replayed.size > 0 ? replayed : undefined;
    this.#bind(ex);
  }

  /** Writes the priming event (legacy ≥ 2025-11-25 only; see sse.ts). */
  prime(retryMs: number): void {
    this.#append(undefined, undefined, retryMs);
  }

  /** Shared, on a fresh connection that is not primed: stores a silent mark the connection reads on from. */
  mark(): void {
    if (this.#hooks.shared !== undefined) this.#append(undefined, undefined, -1);
  }

  /** Shared: events were stored elsewhere; the bound connection reads them (one read queued at a time). */
  poke(): void {
    if (this.#hooks.shared === undefined || this.#conn === undefined || this.#pullQueued) return;
    this.#pullQueued = true;
    this.#queue(() => {
      this.#pullQueued = false;
      return this.#pull();
    });
  }

  send(message: JsonRpcMessage): void {
    if (this.#finished) return;
    const json = JSON.stringify(message);
    if (this.#store === undefined) {
      this.#conn?.write(messageEvent(json));
      return;
    }
    this.#append(message, json, 0);
  }

  /** Server-side close of the connection only (SSE polling): the stream itself goes on. */
  detach(): void {
    this.#after(() => this.#unbind(true));
  }

  /** The stream is complete (final response sent, or session closed). */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#after(() => this.#unbind(true));
  }

  /** DisconnectListener: the client closed this connection. */
  onDisconnect(ex: HttpExchange): void {
    if (ex === this.#conn) this.#unbind(false);
    else this.#streams.remove(ex);
  }

  #bind(ex: HttpExchange): void {
    if (this.#conn !== undefined && this.#conn !== ex) this.#unbind(true); // a newer connection wins
    this.#conn = ex;
    this.#streams.add(ex);
    this.#hooks.onConnection?.(true);
    if (this.#finished) this.#after(() => this.#unbind(true));
  }

  #unbind(end: boolean): void {
    const c = this.#conn;
    if (c === undefined) return;
    this.#conn = undefined;
    this.#replayed = undefined;
    this.#cursor = undefined;
    this.#unread = undefined;
    this.#streams.remove(c);
    if (end) c.end();
    this.#hooks.onConnection?.(false);
  }

  #append(message: JsonRpcMessage | undefined, json: string | undefined, retryMs: number): void {
    const store = this.#store!;
    const streamId = this.streamId!;
    if (this.#pending === 0) {
      let r: string | Promise<string>;
      try {
        r = store.append(streamId, message, json);
      } catch (e) {
        this.#reporter.reportError(e);
        return;
      }
      if (typeof r === 'string') {
        this.#emit(r, json, retryMs);
        return;
      }
      this.#queue(() => r.then((id) => this.#emit(id, json, retryMs)));
      return;
    }
    this.#queue(async () => this.#emit(await store.append(streamId, message, json), json, retryMs));
  }

  #emit(id: string, json: string | undefined, retryMs: number): void {
    if (this.#hooks.shared !== undefined) {
      this.#emitShared(id, json, retryMs);
      return;
    }
    const recent = (this.#recent ??= []);
    recent.push({ id, json });
    if (recent.length > RECENT_MAX) recent.shift();
    const c = this.#conn;
    if (c === undefined || this.#replayed?.has(id)) return;
    c.write(json === undefined ? primingEvent(id, retryMs) : messageEvent(json, id));
  }

  /** Shared: a message is read back from the store (with what others stored before it); a priming event or mark is the cursor. */
  #emitShared(id: string, json: string | undefined, retryMs: number): void {
    const c = this.#conn;
    if (json !== undefined) {
      if (c === undefined) this.#hooks.shared!.stored();
      else {
        (this.#unread ??= []).push({ id, json });
        this.poke();
      }
      return;
    }
    if (c === undefined || this.#cursor !== undefined) return;
    this.#cursor = id;
    if (retryMs >= 0) c.write(primingEvent(id, retryMs));
  }

  /** Shared: writes what the store holds after the cursor, in its order. */
  async #pull(): Promise<void> {
    const c = this.#conn;
    const cursor = this.#cursor;
    const own = this.#unread ?? [];
    this.#unread = undefined;
    if (c === undefined) return;
    if (cursor === undefined) {
      for (const e of own) c.write(messageEvent(e.json!, e.id));
      return;
    }
    const events: Array<[string, JsonRpcMessage]> = [];
    let found: string | undefined;
    try {
      found = await this.#store!.replayAfter(cursor, (id, m) => {
        events.push([id, m]);
      });
    } catch (e) {
      // The store cannot be read: this instance's own messages still go out, as they are.
      if (this.#conn === c) for (const e of own) c.write(messageEvent(e.json!, e.id));
      throw e;
    }
    if (this.#conn !== c) return;
    for (const [id, m] of events) c.write(messageEvent(JSON.stringify(m), id));
    // Own messages the store did not return (their append failed, or the stream's bound dropped them) go out as they are.
    const read = new Set(events.map(([id]) => id));
    for (const e of own) if (!read.has(e.id)) c.write(messageEvent(e.json!, e.id));
    if (events.length > 0) this.#cursor = events.at(-1)![0];
    // The cursor expired or went with the store's data: read on from a fresh mark.
    else if (found === undefined) {
      this.#cursor = undefined;
      this.mark();
    }
  }

  #after(fn: () => void): void {
    if (this.#pending === 0) fn();
    else this.#queue(async () => fn());
  }

  #queue(op: () => Promise<void>): void {
    this.#pending++;
    this.#tail = this.#tail
      .then(op)
      .catch((e: unknown) => this.#reporter.reportError(e))
      .finally(() => {
        this.#pending--;
      });
  }
}
