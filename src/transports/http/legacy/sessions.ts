/**
 * Legacy HTTP sessions (2025-03-26 … 2025-11-25 transports §Session Management, and the
 * 2024-11-05 HTTP+SSE connections): the id → session map with idle expiry and a size cap.
 * 2026-07-28 traffic never creates one. Runtime-neutral.
 */
import type { JsonRpcMessage } from '../../../protocol/jsonrpc.js';
import { revision } from '../../../protocol/revisions.js';
import type { EventStore, LegacySession, SessionHost } from '../../../server/legacy/index.js';
import { SseChannel, type ErrorReporter } from '../channel.js';
import type { PostSession } from '../responder.js';
import { unrefTimer, type OpenStreams } from '../sse.js';

/** What the registry needs of a session of either legacy HTTP transport. */
export interface SessionEntry {
  readonly id: string;
  readonly kind: 'streamable' | 'sse';
  /** The client address it counts against (`clientKey`), or undefined when not counted. */
  readonly client: string | undefined;
  /** Counted against the limits but not yet found by id: its `initialize` is still running. */
  readonly opening?: boolean;
  lastSeen: number;
  /** An open stream or request keeps a session from idling out. */
  readonly busy: boolean;
  readonly closed: boolean;
  /** Ends the session (DELETE). */
  close(): void;
  /** This instance lets the session go (idle, shutdown); in a cluster another may serve it on. Absent: `close`. */
  release?(): void;
}

/**
 * A session id: 122 random bits from the platform CSPRNG, visible ASCII only (0x21-0x7E,
 * 2025-11-25 transports §Session Management item 1), and free of `.` and `#`, which stream
 * and event ids use as separators.
 */
export function mintSessionId(): string {
  return crypto.randomUUID();
}

/**
 * What a client address counts as for `maxSessionsPerClient`: IPv4 as is (also when mapped
 * into IPv6), IPv6 by its /64 (one host usually holds a whole /64). Undefined is not counted.
 */
export function clientKey(address: string | undefined): string | undefined {
  if (address === undefined || address === '') return undefined;
  const a = address.toLowerCase();
  if (a.startsWith('::ffff:') && a.includes('.')) return a.slice(7);
  if (!a.includes(':')) return a;
  const [head = '', tail = ''] = a.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = a.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const NOTHING: readonly JsonRpcMessage[] = Object.freeze([]);

/** Why a new session was refused: the HTTP status and the message of its JSON-RPC error. */
export interface SessionRefusal {
  readonly status: 429 | 503;
  readonly message: string;
}

/** Priming events only for sessions whose revision has SSE polling (2025-11-25): older clients may choke on empty data. */
export function primes(session: LegacySession | undefined): boolean {
  const v = session?.protocolVersion;
  return v !== undefined && revision(v).transport.ssePolling;
}

/**
 * A Streamable HTTP session: the era's session plus its streams. It is the session's host, and
 * its part in the answer to each of its POSTs (`PostSession`).
 */
export class StreamableSession implements SessionEntry, SessionHost, PostSession {
  readonly kind = 'streamable';
  readonly id: string;
  readonly client: string | undefined;
  lastSeen = Date.now();
  /** True until `initialize` succeeded (responder.ts); the session holds its place in the registry meanwhile. */
  opening = true;
  /** With the `auth` option: who opened the session; nobody else may use it (session hijacking). */
  principal: string | undefined;
  /** Set right after the era opened (or adopted) it for this host. */
  session!: LegacySession;
  /** The standalone GET stream (stream id `<session>.0`): unsolicited messages. */
  readonly standalone: SseChannel;
  /** In-flight POST streams that can be resumed, by stream id. */
  readonly live = new Map<string, SseChannel>();
  /** SessionHost: with a cluster's shared sessions, the record expires after the idle time unused. */
  readonly share: { readonly ttlMs: number };
  /** SessionHost: `send` reaches the GET stream wherever it is held (a cluster's shared event store). */
  readonly keeps: boolean;
  readonly #store: EventStore | undefined;
  readonly #reporter: ErrorReporter;
  readonly #retryMs: number;
  /** What this instance's stream ids start with after the session id: its cluster id, so that instances never name two streams alike. */
  readonly #tag: string;
  #seq = 0;
  #closed = false;

  constructor(
    id: string,
    client: string | undefined,
    store: EventStore | undefined,
    streams: OpenStreams,
    reporter: ErrorReporter,
    /** `sharedStore`: `store` is the cluster's, which every instance reads; `retryMs`: of priming events. */
    cluster: { readonly idleMs: number; readonly retryMs: number; readonly instanceId?: string; readonly sharedStore?: boolean },
  ) {
    this.#retryMs = cluster.retryMs;
    this.id = id;
    this.client = client;
    this.#store = store;
    this.#reporter = reporter;
    this.share = { ttlMs: cluster.idleMs };
    this.#tag = cluster.instanceId === undefined ? '' : `${cluster.instanceId}-`;
    // Cluster: every instance stores the session's unsolicited messages in the shared store; the one holding its GET stream reads them.
    this.keeps = cluster.instanceId !== undefined && store !== undefined && cluster.sharedStore === true;
    this.standalone = new SseChannel(store, `${id}.0`, streams, reporter, {
      onConnection: (connected) => {
        if (connected) this.session?.shared?.streamOpened();
        else this.session?.shared?.streamClosed();
      },
      shared: this.keeps ? { stored: () => this.session?.shared?.appended() } : undefined,
    });
  }

  // PostSession: its part in the answer to each of its POSTs.
  get channel(): LegacySession {
    return this.session;
  }

  announcements(): readonly JsonRpcMessage[] {
    return this.session.pendingAnnouncements?.() ?? NOTHING;
  }

  resumableStream(): { readonly store: EventStore; readonly streamId: string } | undefined {
    return this.#store === undefined ? undefined : { store: this.#store, streamId: this.nextStreamId() };
  }

  streamChanged(streamId: string, channel: SseChannel | undefined): void {
    if (channel !== undefined) this.live.set(streamId, channel);
    else this.live.delete(streamId);
  }

  get primeRetryMs(): number | undefined {
    return this.#store !== undefined && primes(this.session) ? this.#retryMs : undefined;
  }

  /** SessionHost (cluster): another instance stored messages for the GET stream; it reads them if it is open here. */
  pull(): void {
    this.standalone.poke();
  }

  nextStreamId(): string {
    return `${this.id}.${this.#tag}${++this.#seq}`;
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

  /** SessionHost: only an open GET stream delivers now; else list changes are announced again on response streams (responder.ts). */
  get connected(): boolean {
    return this.standalone.connected;
  }

  /** SessionHost: the session ended or was let go of (server shutdown, cluster): end its streams at once. */
  onSessionClosed(): void {
    this.#end(!this.session.released);
  }

  /** SessionHost: another instance took the GET stream (cluster): this one's connection ends, the session goes on. */
  yieldStream(): void {
    this.standalone.detach();
  }

  get busy(): boolean {
    return this.standalone.connected || this.live.size > 0;
  }

  get closed(): boolean {
    return this.#closed || this.session.closed;
  }

  /** Ends the session; in a cluster the promise settles once every instance can tell (see `Session.close`). */
  close(): void | Promise<void> {
    const ending = this.session.close();
    this.#end(true);
    return ending;
  }

  /** Idle here, or the transport shutting down: in a cluster the session lives on elsewhere. */
  release(): void {
    this.session.release?.();
    this.#end(false);
  }

  /** `ended`: nothing can resume the session's streams; else only this instance's own streams go (they are all finished). */
  #end(ended: boolean): void {
    if (this.#closed) return;
    this.#closed = true;
    this.standalone.finish();
    for (const ch of this.live.values()) ch.finish();
    this.live.clear();
    this.#forgetStreams(ended);
  }

  /** Nothing can resume a closed session's streams: the store frees them now, not at its expiry. */
  #forgetStreams(withStandalone: boolean): void {
    const store = this.#store;
    if (store?.deleteStreams === undefined) return;
    const ids = Array.from({ length: this.#seq }, (_, i) => `${this.id}.${this.#tag}${i + 1}`);
    if (withStandalone) ids.push(`${this.id}.0`);
    if (ids.length === 0) return;
    try {
      const r = store.deleteStreams(ids);
      if (r !== undefined) r.catch((e: unknown) => this.#reporter.reportError(e));
    } catch (e) {
      this.#reporter.reportError(e);
    }
  }
}

export class SessionRegistry {
  readonly #map = new Map<string, SessionEntry>();
  /** Sessions per client key. */
  readonly #perClient = new Map<string, number>();
  readonly #idleMs: number;
  readonly #max: number;
  readonly #maxPerClient: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(idleMs: number, max: number, maxPerClient: number) {
    this.#idleMs = idleMs;
    this.#max = max;
    this.#maxPerClient = maxPerClient;
  }

  get size(): number {
    return this.#map.size;
  }

  /** The live session of that kind, or undefined (unknown, other kind, or closed). */
  get(id: string, kind: SessionEntry['kind']): SessionEntry | undefined {
    const e = this.#map.get(id);
    if (e === undefined || e.kind !== kind || e.opening === true) return undefined;
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

  /**
   * Why another session for `client` does not fit, or undefined when it does. A full table is
   * swept for expired sessions first; a client at its own limit waits for the periodic sweep
   * (sweeping the whole table for every refused request would let one client make each of its
   * requests cost a pass over every session).
   */
  refusal(client: string | undefined): SessionRefusal | undefined {
    if (this.#map.size >= this.#max) this.sweep(Date.now());
    if (this.#map.size >= this.#max) {
      return {
        status: 503,
        message: `Service Unavailable: the server holds its maximum of ${this.#max} sessions (maxSessions); try again later`,
      };
    }
    if (client !== undefined && (this.#perClient.get(client) ?? 0) >= this.#maxPerClient) {
      return {
        status: 429,
        message: `Too Many Requests: this client address holds its maximum of ${this.#maxPerClient} sessions (maxSessionsPerClient); end one with DELETE or let idle ones expire`,
      };
    }
    return undefined;
  }

  add(e: SessionEntry): void {
    if (this.#map.get(e.id) === e) return;
    this.#map.set(e.id, e);
    if (e.client !== undefined) this.#perClient.set(e.client, (this.#perClient.get(e.client) ?? 0) + 1);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.sweep(Date.now()), Math.max(1000, Math.min(this.#idleMs, 60_000)));
      unrefTimer(this.#timer);
    }
  }

  delete(e: SessionEntry): void {
    if (this.#map.get(e.id) === e) {
      this.#map.delete(e.id);
      const n = e.client === undefined ? 0 : (this.#perClient.get(e.client) ?? 0);
      if (n > 1) this.#perClient.set(e.client!, n - 1);
      else if (e.client !== undefined) this.#perClient.delete(e.client);
    }
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
        if (e.release) e.release();
        else e.close();
      }
    }
  }

  /** The transport shuts down: its sessions end, or (cluster) are let go of for other instances to serve. */
  closeAll(): void {
    for (const e of [...this.#map.values()]) {
      this.delete(e);
      if (e.release) e.release();
      else e.close();
    }
  }
}
