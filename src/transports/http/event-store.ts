/**
 * SSE event storage for resumption of legacy Streamable HTTP streams (2025-03-26 …
 * 2025-11-25 transports §Resumability and Redelivery). 2026-07-28 streams are never
 * resumable, so only legacy sessions use it. Runtime-neutral.
 */
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';

export interface EventStore {
  /**
   * Stores one event of a stream and returns its id, which must be unique across all streams
   * and identify its stream. `message` is undefined for a priming event (2025-11-25): it only
   * reserves a resumption cursor and is never replayed.
   */
  append(streamId: string, message: JsonRpcMessage | undefined): string | Promise<string>;
  /**
   * Calls `sink` in order for every stored message of the stream `lastEventId` belongs to that
   * came after it, and returns that stream's id; undefined when the id is unknown or expired.
   */
  replayAfter(
    lastEventId: string,
    sink: (eventId: string, message: JsonRpcMessage) => void,
  ): string | undefined | Promise<string | undefined>;
}

export interface InMemoryEventStoreOptions {
  /** Events kept per stream (oldest dropped first). Default 1000. */
  maxEventsPerStream?: number;
  /** A stream untouched this long is forgotten. Default 5 minutes. */
  ttlMs?: number;
  /** Streams kept at most (least recently touched dropped first). Default 10 000. */
  maxStreams?: number;
}

interface StoredStream {
  seq: number;
  touched: number;
  readonly events: Array<{ seq: number; message: JsonRpcMessage | undefined }>;
}

/**
 * The default store: bounded per stream, expiring by time, no timers (expiry happens on
 * access). Event ids are `<streamId>#<seq>`.
 */
export class InMemoryEventStore implements EventStore {
  readonly #streams = new Map<string, StoredStream>();
  readonly #maxEvents: number;
  readonly #ttlMs: number;
  readonly #maxStreams: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.#maxEvents = options.maxEventsPerStream ?? 1000;
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#maxStreams = options.maxStreams ?? 10_000;
  }

  append(streamId: string, message: JsonRpcMessage | undefined): string {
    const now = Date.now();
    let s = this.#streams.get(streamId);
    if (s === undefined) {
      s = { seq: 0, touched: now, events: [] };
    } else {
      this.#streams.delete(streamId); // re-insert: Map order is least recently touched first
    }
    this.#streams.set(streamId, s);
    s.touched = now;
    s.seq += 1;
    s.events.push({ seq: s.seq, message });
    if (s.events.length > this.#maxEvents) s.events.shift();
    this.#expire(now);
    return `${streamId}#${s.seq}`;
  }

  replayAfter(lastEventId: string, sink: (eventId: string, message: JsonRpcMessage) => void): string | undefined {
    this.#expire(Date.now());
    const hash = lastEventId.lastIndexOf('#');
    if (hash < 0) return undefined;
    const streamId = lastEventId.slice(0, hash);
    const seqText = lastEventId.slice(hash + 1);
    if (!/^\d{1,15}$/.test(seqText)) return undefined;
    const after = Number(seqText);
    const s = this.#streams.get(streamId);
    if (s === undefined || after > s.seq) return undefined;
    for (const e of s.events) {
      if (e.seq > after && e.message !== undefined) sink(`${streamId}#${e.seq}`, e.message);
    }
    return streamId;
  }

  /** Number of streams held (for tests and diagnostics). */
  get size(): number {
    return this.#streams.size;
  }

  #expire(now: number): void {
    for (const [id, s] of this.#streams) {
      if (this.#streams.size <= this.#maxStreams && now - s.touched <= this.#ttlMs) break;
      this.#streams.delete(id);
    }
  }
}
