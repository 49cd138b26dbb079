/**
 * SSE event storage for resumption of legacy Streamable HTTP streams (2025-03-26 …
 * 2025-11-25 transports §Resumability and Redelivery). 2026-07-28 streams are never
 * resumable, so only legacy sessions use it. Runtime-neutral.
 */
import type { JsonRpcMessage } from '../../../protocol/jsonrpc.js';
import type { EventStore } from '../../../server/legacy/index.js';
import { unrefTimer } from '../sse.js';

/** The store's contract lives with the server seam (a cluster shares one): see there. */
export type { EventStore };

/** How an {@link InMemoryEventStore} bounds the SSE events it keeps for resumption. */
export interface InMemoryEventStoreOptions {
  /** Events kept per stream (oldest dropped first). Default 1000. */
  maxEventsPerStream?: number;
  /**
   * Bytes of event JSON kept per stream (oldest events dropped first; an event larger than this
   * is sent but not kept). Default 4 MiB.
   */
  maxBytesPerStream?: number;
  /** Bytes of event JSON kept over all streams (least recently touched streams dropped first). Default 64 MiB. */
  maxBytes?: number;
  /** A stream untouched this long is forgotten, by a timer that does not keep the process alive. Default 5 minutes. */
  ttlMs?: number;
  /** Streams kept at most (least recently touched dropped first). Default 10 000. */
  maxStreams?: number;
}

interface StoredEvent {
  readonly seq: number;
  /** The message as JSON text (its length is what the byte limits count); undefined for a priming event. */
  readonly json: string | undefined;
}

interface StoredStream {
  seq: number;
  touched: number;
  bytes: number;
  readonly events: StoredEvent[];
}

/**
 * The default store: bounded per stream (events and bytes) and in total (streams and bytes),
 * expiring by time on an unref'd timer, freed per session on `deleteStreams`. Event ids are
 * `<streamId>#<seq>`.
 */
export class InMemoryEventStore implements EventStore {
  readonly #streams = new Map<string, StoredStream>();
  readonly #maxEvents: number;
  readonly #maxStreamBytes: number;
  readonly #maxBytes: number;
  readonly #ttlMs: number;
  readonly #maxStreams: number;
  #bytes = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.#maxEvents = options.maxEventsPerStream ?? 1000;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#maxStreamBytes = Math.min(options.maxBytesPerStream ?? 4 * 1024 * 1024, this.#maxBytes);
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#maxStreams = options.maxStreams ?? 10_000;
  }

  append(streamId: string, message: JsonRpcMessage | undefined, json?: string): string {
    const now = Date.now();
    let s = this.#streams.get(streamId);
    if (s === undefined) {
      s = { seq: 0, touched: now, bytes: 0, events: [] };
      this.#startTimer();
    } else {
      this.#streams.delete(streamId); // re-insert: Map order is least recently touched first
    }
    this.#streams.set(streamId, s);
    s.touched = now;
    s.seq += 1;
    const text = message === undefined ? undefined : (json ?? JSON.stringify(message));
    const size = text === undefined ? 0 : text.length;
    s.events.push({ seq: s.seq, json: text });
    s.bytes += size;
    this.#bytes += size;
    while (s.events.length > this.#maxEvents || s.bytes > this.#maxStreamBytes) this.#dropOldest(s);
    this.#expire(now, s);
    return `${streamId}#${s.seq}`;
  }

  replayAfter(lastEventId: string, sink: (eventId: string, message: JsonRpcMessage) => void): string | undefined {
    this.#expire(Date.now(), undefined);
    const hash = lastEventId.lastIndexOf('#');
    if (hash < 0) return undefined;
    const streamId = lastEventId.slice(0, hash);
    const seqText = lastEventId.slice(hash + 1);
    if (!/^\d{1,15}$/.test(seqText)) return undefined;
    const after = Number(seqText);
    const s = this.#streams.get(streamId);
    if (s === undefined || after > s.seq) return undefined;
    for (const e of s.events) {
      if (e.seq > after && e.json !== undefined) sink(`${streamId}#${e.seq}`, JSON.parse(e.json) as JsonRpcMessage);
    }
    return streamId;
  }

  deleteStreams(streamIds: readonly string[]): void {
    for (const id of streamIds) {
      const s = this.#streams.get(id);
      if (s !== undefined) this.#remove(id, s);
    }
  }

  /** Number of streams held (for tests and diagnostics). */
  get size(): number {
    return this.#streams.size;
  }

  /** Bytes of event JSON held (for tests and diagnostics). */
  get bytes(): number {
    return this.#bytes;
  }

  #dropOldest(s: StoredStream): void {
    const e = s.events.shift();
    if (e?.json === undefined) return;
    s.bytes -= e.json.length;
    this.#bytes -= e.json.length;
  }

  #remove(id: string, s: StoredStream): void {
    this.#streams.delete(id);
    this.#bytes -= s.bytes;
    if (this.#streams.size === 0) this.#stopTimer();
  }

  /** Drops expired streams, then the least recently touched while over a limit (never `keep`, the one being written). */
  #expire(now: number, keep: StoredStream | undefined): void {
    for (const [id, s] of this.#streams) {
      const over = this.#streams.size > this.#maxStreams || this.#bytes > this.#maxBytes;
      if (!over && now - s.touched <= this.#ttlMs) break;
      if (s !== keep) this.#remove(id, s);
    }
  }

  /** Expiry does not wait for the next append: a quiet server frees its memory too. */
  #startTimer(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#expire(Date.now(), undefined), Math.max(100, Math.min(this.#ttlMs, 60_000)));
    unrefTimer(this.#timer);
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
