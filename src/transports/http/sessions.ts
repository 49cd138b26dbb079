/**
 * Legacy HTTP sessions (2025-03-26 … 2025-11-25 transports §Session Management, and the
 * 2024-11-05 HTTP+SSE connections): the id → session map with idle expiry and a size cap.
 * 2026-07-28 traffic never creates one. Runtime-neutral.
 */
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { LegacySession, SessionHost } from '../../server/index.js';
import { SseChannel, type ErrorReporter } from './channel.js';
import type { EventStore } from './event-store.js';
import { unrefTimer, type OpenStreams } from './sse.js';

/** What the registry needs of a session of either legacy HTTP transport. */
export interface SessionEntry {
  readonly id: string;
  readonly kind: 'streamable' | 'sse';
  lastSeen: number;
  /** An open stream or request keeps a session from idling out. */
  readonly busy: boolean;
  readonly closed: boolean;
  close(): void;
}

/**
 * A session id: 122 random bits from the platform CSPRNG, visible ASCII only (0x21-0x7E,
 * 2025-11-25 transports §Session Management item 1), and free of `.` and `#`, which stream
 * and event ids use as separators.
 */
export function mintSessionId(): string {
  return crypto.randomUUID();
}

/** A Streamable HTTP session: the core's session plus its streams. It is the core's SessionHost. */
export class StreamableSession implements SessionEntry, SessionHost {
  readonly kind = 'streamable';
  readonly id: string;
  lastSeen = Date.now();
  /** Set right after `core.openSession(this)`. */
  session!: LegacySession;
  /** The standalone GET stream (stream id `<session>.0`): unsolicited messages. */
  readonly standalone: SseChannel;
  /** In-flight POST streams that can be resumed, by stream id. */
  readonly live = new Map<string, SseChannel>();
  #seq = 0;
  #closed = false;

  constructor(id: string, store: EventStore | undefined, streams: OpenStreams, reporter: ErrorReporter) {
    this.id = id;
    this.standalone = new SseChannel(store, `${id}.0`, streams, reporter);
  }

  nextStreamId(): string {
    return `${this.id}.${++this.#seq}`;
  }

  /** Whether a stream id belongs to this session (resumption must not cross sessions). */
  owns(streamId: string): boolean {
    return streamId.startsWith(`${this.id}.`);
  }

  /**
   * SessionHost: unsolicited messages go to the standalone GET stream; with none open they
   * are stored for a `Last-Event-ID` resumption of it when a store is configured, else dropped.
   */
  send(message: JsonRpcMessage): void {
    this.standalone.send(message);
  }

  /** SessionHost: the core closed the session (server shutdown): end its streams at once. */
  onSessionClosed(): void {
    this.close();
  }

  get busy(): boolean {
    return this.standalone.connected || this.live.size > 0;
  }

  get closed(): boolean {
    return this.#closed || this.session.closed;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.session.close();
    this.standalone.finish();
    for (const ch of this.live.values()) ch.finish();
    this.live.clear();
  }
}

export class SessionRegistry {
  readonly #map = new Map<string, SessionEntry>();
  readonly #idleMs: number;
  readonly #max: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(idleMs: number, max: number) {
    this.#idleMs = idleMs;
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  /** The live session of that kind, or undefined (unknown, other kind, or closed). */
  get(id: string, kind: SessionEntry['kind']): SessionEntry | undefined {
    const e = this.#map.get(id);
    if (e === undefined || e.kind !== kind) return undefined;
    if (e.closed) {
      this.delete(e);
      return undefined;
    }
    return e;
  }

  streamable(id: string): StreamableSession | undefined {
    const entry = this.get(id, 'streamable');
    return entry instanceof StreamableSession ? entry : undefined;
  }

  /** Whether another session fits (expired ones are swept first). */
  hasRoom(): boolean {
    if (this.#map.size < this.#max) return true;
    this.sweep(Date.now());
    return this.#map.size < this.#max;
  }

  add(e: SessionEntry): void {
    this.#map.set(e.id, e);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.sweep(Date.now()), Math.max(1000, Math.min(this.#idleMs, 60_000)));
      unrefTimer(this.#timer);
    }
  }

  delete(e: SessionEntry): void {
    if (this.#map.get(e.id) === e) this.#map.delete(e.id);
    if (this.#map.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Closes sessions that are closed already or idle past `sessionIdleMs`. */
  sweep(now: number): void {
    for (const e of [...this.#map.values()]) {
      if (e.closed || (!e.busy && now - e.lastSeen > this.#idleMs)) {
        this.delete(e);
        e.close();
      }
    }
  }

  closeAll(): void {
    for (const e of [...this.#map.values()]) {
      this.delete(e);
      e.close();
    }
  }
}
