/**
 * Legacy Streamable HTTP sessions on Redis, so that a session created on one instance is
 * served by any other: the `SessionStore` a cluster's instances share.
 *
 * Per session, `<prefix>session:{<id>}` is a hash: `v` the negotiated version, `p` who opened
 * it (when authenticated), `caps` and `info` the client's capabilities and implementation
 * (JSON), `init` once initialized, `log` the level, `holder` the instance holding its GET
 * stream, and per list kind `f:<kind>` (the list's version when the client last fetched it)
 * and `t:<kind>` (its version when a change last reached the client live). Beside it, with the
 * same hash tag: `:subs` the subscribed URIs, `:knowers` the instances holding a copy, `:info`
 * what the expiry hook needs (session-scripts.ts). `{<prefix>registry}:lists` counts the changes
 * of each list (the backplane bumps it as it publishes one), so "changed since the client
 * fetched it" needs no walk over sessions: a list is to be announced again when its count
 * passed both `f:` and `t:`. `{<prefix>sessions}:expiry` lists the sessions by expiry, for the
 * sweep that runs the hook of those that expire (session-expiry.ts).
 *
 * **Copies.** Reading the record before every request would cost each request a round trip
 * (the session may have changed, or ended, through another instance). Instead each instance
 * keeps a copy of the sessions it serves and answers from it without Redis, under two rules:
 *
 * - A copy has a **lease** (`copyLeaseMs`, at most a quarter of the idle time), counted from
 *   before the load that made it was sent; Redis records the lease's end with the instance in
 *   `:knowers`. A request in the second half of the lease renews it in the background, and
 *   with it the record's expiry; a copy whose lease ended is loaded again before use.
 * - Every write (log level, subscriptions, the "fetched"/"told" markers, the GET stream's
 *   holder, the end of the session) is one script that also answers with the other knowers and
 *   their leases' remaining time. The writer drops its own copy, publishes a drop to each
 *   knower's channel, and resolves only once each has answered that it dropped its copy, or its
 *   lease has ended (as Redis counts it, plus a margin): **once a write resolved, no instance
 *   uses a copy older than it.** A client's next request reaches its next instance after the
 *   write's answer, so that instance holds no older copy and loads the record (read-your-writes
 *   across instances). A load that was under way when a drop arrived does not become a copy.
 *
 * An instance whose subscription is down (`RedisLink.listening` false) cannot hear drops: it
 * drops every copy and loads before each request until it listens again; a drop missed in a
 * reconnection that happened between two checks costs writers a wait of at most one lease. A
 * write whose reply never came (Redis failed midway) may have happened: the writer then
 * publishes a drop to every instance, unanswered. List changes come from the backplane, not
 * from a write here: the counters are read again once its event arrives, so a change reaches
 * the announcements of an instance's responses when its streams hear of it too.
 *
 * Signals are published (sharded on a cluster) on `<prefix>signals:<instance>` (one instance) or
 * `<prefix>signals:all`, heard on the subscribed connection. Publish/subscribe is at most
 * once: a signal lost with a connection is a request that times out, never a wrong answer.
 */
import { LOGGING_LEVELS, classify, type Implementation } from '../../protocol/index.js';
import type { ExpiredSession, SessionRecord, SessionSignal, SessionStore, SubscribeOutcome } from '../../server/legacy/spi.js';
import { eventsChannel, listsKey, sessionExpiryKey } from '../keys.js';
import type { RedisLink } from '../link.js';
import { type Copy, ListCounters, type Lists, SessionCopies } from './session-copies.js';
import { ExpirySweep } from './session-expiry.js';
import { CREATE, ENLIST, FORGET, HOLD, LOAD, MARK, REMOVE, SUBSCRIBE, UNHOLD, UNSUBSCRIBE, UPDATE } from './session-scripts.js';
/** How a `RedisSessionStore` keys and bounds the handshake era's shared session records. */
export interface RedisSessionStoreOptions {
  /** Key and channel prefix, one per server deployment (default 'janus:'). */
  prefix?: string;
  /** How long one command may wait for Redis (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Reports signals that are not ones and handlers that threw (default: console.error). */
  onError?: (error: Error) => void;
  /**
   * How long an instance answers from its copy of a session without asking Redis (default
   * 5000 ms; at most a quarter of the session's idle time). It is also the longest a write
   * waits for an instance that does not confirm it dropped its copy (one that died, or whose
   * subscription is down).
   */
  copyLeaseMs?: number;
  /** Mean time between two sweeps for sessions that expired, per instance (default 1000 ms). */
  expirySweepMs?: number;
}

type ListKind = SessionRecord['unannounced'][number];
const LIST_KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources'];

/** How long a session's hook data outlives its record, for a sweep to find it. */
const INFO_GRACE_MS = 15 * 60_000;
/** How often an instance checks that it still hears drops (its copies go when it does not). */
const DEAFNESS_CHECK_MS = 100;

/** What a store says to another about a copy (not a `SessionSignal`: never passed to the server). */
type CopyMessage =
  | { readonly type: 'drop'; readonly session: string; readonly from?: string; readonly seq?: number }
  | { readonly type: 'dropped'; readonly seq: number; readonly from: string };

/** An instance id: 16 hex digits (no '.', '#' or '-': stream and request ids are built from it). */
function newInstanceId(): string {
  return crypto.randomUUID().replace(/-/g, '').slice(0, 16);
}

/** The `SessionStore` on Redis; `redisCluster()` makes and starts one. */
export class RedisSessionStore implements SessionStore {
  readonly instanceId = newInstanceId();
  readonly #link: RedisLink;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #leaseMs: number;
  readonly #onError: (error: Error) => void;
  readonly #handlers = new Set<(signal: SessionSignal) => void>();
  readonly #copies = new SessionCopies();
  readonly #lists = new ListCounters();
  #listsReading: Promise<Lists> | undefined;
  /** Writes waiting for knowers to confirm their drop, by sequence number. */
  readonly #acks = new Map<number, { readonly pending: Set<string>; readonly done: () => void }>();
  #seq = 0;
  #watch: ReturnType<typeof setInterval> | undefined;
  readonly #expiry: ExpirySweep;

  constructor(link: RedisLink, options: RedisSessionStoreOptions = {}) {
    this.#link = link;
    this.#prefix = options.prefix ?? 'janus:';
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#leaseMs = options.copyLeaseMs ?? 5000;
    this.#onError = options.onError ?? ((e) => console.error('[janus-mcp/redis]', e));
    this.#expiry = new ExpirySweep({
      link,
      indexKey: sessionExpiryKey(this.#prefix),
      keysOf: (id) => ({ record: this.#key(id), knowers: this.#knowersKey(id), info: this.#infoKey(id) }),
      timeoutMs: this.#timeoutMs,
      periodMs: options.expirySweepMs ?? 1000,
      onError: this.#onError,
    });
  }

  /** Subscribes to this instance's signal channel, the one for all, and the backplane's (list changes make the counters stale). */
  async start(): Promise<void> {
    await this.#link.subscribe([this.#channel(this.instanceId), this.#channel('all')], (message) => this.#receive(message));
    await this.#link.subscribe([eventsChannel(this.#prefix)], (message) => this.#registryEvent(message));
  }

  async create(id: string, record: Parameters<SessionStore['create']>[1], ttlMs: number): Promise<void> {
    const info = record.clientInfo === undefined ? '' : JSON.stringify(record.clientInfo);
    const lists = await this.#currentLists();
    const expiresIn = this.#expiresIn(ttlMs);
    await Promise.all([
      this.#run(CREATE, this.#keys(id), [
        ttl(expiresIn),
        record.protocolVersion,
        JSON.stringify(record.clientCapabilities),
        info,
        record.principal ?? '',
        ...LIST_KINDS.map((kind) => lists[kind] ?? '0'),
      ]),
      this.#run(ENLIST, [sessionExpiryKey(this.#prefix)], [id, ttl(expiresIn)]),
    ]);
  }

  async load(id: string, ttlMs: number): Promise<SessionRecord | undefined> {
    const now = performance.now();
    const copy = this.#link.listening ? this.#copies.valid(id, now) : this.#deaf();
    if (copy === undefined) return this.#fetch(id, ttlMs);
    // Renewed in the background from half its lease on: an active session keeps its copy and its record.
    if (now >= copy.renewAt && this.#copies.renewing(id)) {
      this.#fetch(id, ttlMs)
        .catch(() => undefined) // the copy serves until its lease ends; the load after that reports
        .finally(() => this.#copies.renewed(id));
    }
    return recordOf(copy, this.#lists.fresh ?? (await this.#readLists()));
  }

  /** One round trip: the record (renewing its expiry and, when it may be kept, registering this copy) and the counters. */
  async #fetch(id: string, ttlMs: number): Promise<SessionRecord | undefined> {
    const lease = this.#lease(ttlMs);
    // A copy is kept only while drops can be heard, and while a server listens for this store's signals.
    const keep = this.#link.listening && this.#handlers.size > 0;
    const ticket = this.#copies.begin(id);
    const sentAt = performance.now();
    let reply: unknown;
    let lists: Lists;
    try {
      // The counters live in the deployment's slot, the session in its own: two commands, sent together.
      [reply, lists] = await Promise.all([
        this.#run(LOAD, this.#keys(id), [ttl(this.#expiresIn(ttlMs)), keep ? this.instanceId : '', ttl(lease), String(INFO_GRACE_MS)]),
        this.#link.hGetAll(listsKey(this.#prefix), this.#timeoutMs),
      ]);
    } catch (error) {
      this.#copies.failed(id, ticket);
      throw error;
    }
    if (!Array.isArray(reply)) {
      this.#copies.end(id, ticket, undefined);
      return undefined;
    }
    const [flat, subscriptions] = reply as [string[], string[]];
    const fields = pairs(flat);
    const record = toRecord(fields, subscriptions, lists);
    const copy: Copy | undefined =
      keep && record !== undefined && this.#link.listening
        ? { fields, subscriptions, validUntil: sentAt + lease, renewAt: sentAt + lease / 2, made: { lists, record } }
        : undefined;
    this.#copies.end(id, ticket, copy);
    return record;
  }

  async update(id: string, fields: Parameters<SessionStore['update']>[1]): Promise<boolean> {
    const args: string[] = [];
    if (fields.initialized) args.push('init', '1');
    if (fields.logLevel !== undefined) args.push('log', fields.logLevel);
    if (args.length === 0) return true;
    const reply = await this.#write(
      id,
      UPDATE,
      [this.#key(id), this.#knowersKey(id), this.#infoKey(id)],
      [this.instanceId, String(INFO_GRACE_MS), ...args],
    );
    if (!Array.isArray(reply)) return false;
    await this.#dropped(id, reply as string[]);
    return true;
  }

  async subscribe(id: string, uri: string, max: number): Promise<{ outcome: SubscribeOutcome; holder?: string }> {
    const reply = (await this.#write(
      id,
      SUBSCRIBE,
      [this.#key(id), this.#subsKey(id), this.#knowersKey(id)],
      [uri, String(max), this.instanceId],
    )) as string[];
    const [outcome, holder, ...knowers] = reply as [SubscribeOutcome, string, ...string[]];
    await this.#dropped(id, knowers);
    return holder === '' ? { outcome } : { outcome, holder };
  }

  async unsubscribe(id: string, uri: string): Promise<{ holder?: string }> {
    const reply = (await this.#write(
      id,
      UNSUBSCRIBE,
      [this.#key(id), this.#subsKey(id), this.#knowersKey(id)],
      [uri, this.instanceId],
    )) as string[];
    const [holder, ...knowers] = reply as [string, ...string[]];
    await this.#dropped(id, knowers);
    return holder === '' ? {} : { holder };
  }

  async fetched(id: string, kind: ListKind): Promise<void> {
    await this.#mark(id, 'f:', kind);
  }

  async told(id: string, kind: ListKind): Promise<void> {
    await this.#mark(id, 't:', kind);
  }

  /**
   * Records the list's counter as read just before: a change counted in between is announced
   * once more, never missed (the counters only grow). Nothing to write when this instance's
   * copy already holds that counter.
   */
  async #mark(id: string, field: 'f:' | 't:', kind: ListKind): Promise<void> {
    const lists = await this.#currentLists();
    const value = lists[kind] ?? '0';
    const copy = this.#link.listening ? this.#copies.valid(id, performance.now()) : undefined;
    if (copy?.fields.get(`${field}${kind}`) === value) return;
    const reply = await this.#write(id, MARK, [this.#key(id), this.#knowersKey(id)], [`${field}${kind}`, value, this.instanceId]);
    if (Array.isArray(reply)) await this.#dropped(id, reply as string[]);
  }

  async hold(id: string): Promise<string | undefined> {
    const reply = (await this.#write(id, HOLD, [this.#key(id), this.#knowersKey(id)], [this.instanceId])) as string[];
    const [previous, ...knowers] = reply as [string, ...string[]];
    await this.#dropped(id, knowers);
    return previous === '' ? undefined : previous;
  }

  async unhold(id: string): Promise<void> {
    const reply = (await this.#write(id, UNHOLD, [this.#key(id), this.#knowersKey(id)], [this.instanceId])) as string[];
    await this.#dropped(id, reply);
  }

  /**
   * Deletes the record, after its entry in the expiry index (a sweep never claims a session
   * ended this way), and waits until no instance answers from a copy of it.
   */
  async remove(id: string): Promise<void> {
    await this.#expiryIndexDrop(id);
    const reply = (await this.#write(id, REMOVE, this.#keys(id), [this.instanceId])) as string[];
    await this.#dropped(id, reply);
  }

  #expiryIndexDrop(id: string): Promise<unknown> {
    return this.#link.script("return redis.call('ZREM', KEYS[1], ARGV[1])", [sessionExpiryKey(this.#prefix)], [id], this.#timeoutMs);
  }

  async signal(to: string | undefined, signal: SessionSignal): Promise<void> {
    await this.#link.publish(this.#channel(to ?? 'all'), JSON.stringify(signal), this.#timeoutMs);
  }

  onSignal(handler: (signal: SessionSignal) => void): () => void {
    this.#handlers.add(handler);
    this.#watchDeafness();
    return () => {
      this.#handlers.delete(handler);
      if (this.#handlers.size === 0) this.#letGo();
    };
  }

  /** Runs `handler`, on this instance only, for each session that expired unused and that this instance claimed (session-expiry.ts). */
  onExpired(handler: (expired: ExpiredSession) => void): () => void {
    return this.#expiry.on(handler);
  }

  /** Nobody serves sessions here any more: no copy is kept, and Redis stops counting this instance among their knowers. */
  #letGo(): void {
    clearInterval(this.#watch);
    this.#watch = undefined;
    const held = this.#copies.held();
    this.#copies.dropAll();
    for (const id of held) this.#run(FORGET, [this.#knowersKey(id)], [this.instanceId]).catch(() => undefined);
  }

  /**
   * A write: its script, after which this instance's copy goes. When no reply came (Redis
   * failed midway, or the deadline passed), it may still have happened: every instance is told
   * to drop its copy, without waiting for answers.
   */
  async #write(id: string, script: string, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.#run(script, keys, args);
    } catch (error) {
      this.#link
        .publish(this.#channel('all'), JSON.stringify({ type: 'drop', session: id } satisfies CopyMessage), this.#timeoutMs)
        .catch(() => undefined);
      throw error;
    } finally {
      this.#copies.drop(id);
    }
  }

  /**
   * Tells each knower (flat: instance, ms left of its lease) to drop its copy and resolves once
   * each has confirmed, or its lease has ended: from then on no instance answers from a copy
   * older than the write. Rejects when a drop cannot be published.
   */
  async #dropped(id: string, knowers: readonly string[]): Promise<void> {
    if (knowers.length < 2) return;
    const seq = ++this.#seq;
    const pending = new Set<string>();
    let longest = 0;
    for (let i = 0; i + 1 < knowers.length; i += 2) {
      pending.add(knowers[i]!);
      longest = Math.max(longest, Number(knowers[i + 1]) || 0);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const confirmed = new Promise<void>((resolve) => {
      this.#acks.set(seq, { pending, done: resolve });
      // A knower that does not answer (gone, or deaf) stops using its copy when its lease ends.
      timer = setTimeout(resolve, longest + leaseMargin(this.#leaseMs));
    });
    try {
      const drop = JSON.stringify({ type: 'drop', session: id, from: this.instanceId, seq } satisfies CopyMessage);
      await Promise.all([...pending].map((to) => this.#link.publish(this.#channel(to), drop, this.#timeoutMs)));
      await confirmed;
    } finally {
      clearTimeout(timer);
      this.#acks.delete(seq);
    }
  }

  /** The counters as last read, or read now when a list changed since. */
  #currentLists(): Promise<Lists> | Lists {
    return this.#lists.fresh ?? this.#readLists();
  }

  /** One read at a time, shared by the requests that need it. */
  #readLists(): Promise<Lists> {
    if (this.#listsReading !== undefined) return this.#listsReading;
    const mark = this.#lists.mark;
    const reading = this.#link
      .hGetAll(listsKey(this.#prefix), this.#timeoutMs)
      .then((read) => this.#lists.take(read, mark))
      .finally(() => {
        if (this.#listsReading === reading) this.#listsReading = undefined;
      });
    this.#listsReading = reading;
    return reading;
  }

  /** The subscription is down: drops may be missed, so no copy is used (and list changes may have been missed too). */
  #deaf(): undefined {
    this.#copies.dropAll();
    this.#lists.changed();
    return undefined;
  }

  /** A lost subscription drops the copies (and the counters) at once, not only when a request comes. */
  #watchDeafness(): void {
    if (this.#watch !== undefined) return;
    this.#watch = setInterval(() => {
      if (!this.#link.listening) this.#deaf();
    }, DEAFNESS_CHECK_MS);
    this.#watch.unref?.();
  }

  #registryEvent(message: string): void {
    // Only list changes move the counters; a resource update leaves them as they are.
    const envelope = parseJson(message);
    const event = isObject(envelope) ? envelope.e : undefined;
    if (!isObject(event) || event.type === 'list_changed') this.#lists.changed();
  }

  #receive(message: string): void {
    const parsed = parseJson(message);
    if (isObject(parsed) && (parsed.type === 'drop' || parsed.type === 'dropped')) {
      this.#copyMessage(parsed);
      return;
    }
    const signal = isSessionSignal(parsed) ? parsed : undefined;
    if (signal === undefined) {
      this.#onError(new Error(`[janus-mcp/redis] ignored a message on ${this.#prefix}signals that is not a session signal`));
      return;
    }
    for (const handler of this.#handlers) {
      try {
        handler(signal);
      } catch (error) {
        this.#onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  /** A drop (this copy goes, and the writer hears so) or a knower's confirmation of one. */
  #copyMessage(m: Record<string, unknown>): void {
    if (m.type === 'drop') {
      if (typeof m.session !== 'string') return;
      this.#copies.drop(m.session);
      if (typeof m.from === 'string' && typeof m.seq === 'number') {
        const done = JSON.stringify({ type: 'dropped', seq: m.seq, from: this.instanceId } satisfies CopyMessage);
        this.#link.publish(this.#channel(m.from), done, this.#timeoutMs).catch(() => undefined); // the writer waits out the lease instead
      }
      return;
    }
    if (typeof m.seq !== 'number' || typeof m.from !== 'string') return;
    const waiting = this.#acks.get(m.seq);
    if (waiting === undefined) return;
    waiting.pending.delete(m.from);
    if (waiting.pending.size === 0) waiting.done();
  }

  /** A copy's lease: `copyLeaseMs`, at most a quarter of the idle time. */
  #lease(ttlMs: number): number {
    return Math.max(1, Math.min(this.#leaseMs, ttlMs / 4));
  }

  /**
   * How long the record lives unused: the idle time and one lease, since a copy serves requests
   * without renewing it for up to a lease: a session used within its idle time never expires.
   */
  #expiresIn(ttlMs: number): number {
    return ttlMs + this.#lease(ttlMs);
  }

  #run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return this.#link.script(script, keys, args, this.#timeoutMs);
  }

  #keys(id: string): string[] {
    return [this.#key(id), this.#subsKey(id), this.#knowersKey(id), this.#infoKey(id)];
  }

  // One hash tag per session: its keys share a slot, as a Redis Cluster requires of a script's keys.
  #key(id: string): string {
    return `${this.#prefix}session:{${id}}`;
  }

  #subsKey(id: string): string {
    return `${this.#prefix}session:{${id}}:subs`;
  }

  #knowersKey(id: string): string {
    return `${this.#prefix}session:{${id}}:knowers`;
  }

  #infoKey(id: string): string {
    return `${this.#prefix}session:{${id}}:info`;
  }

  #channel(to: string): string {
    return `${this.#prefix}signals:${to}`;
  }
}

/** What a writer adds to the longest lease it waits out: Redis's clock and this one's may not tick alike. */
const leaseMargin = (leaseMs: number): number => 25 + leaseMs / 20;

const ttl = (ms: number): string => String(Math.max(1, Math.ceil(ms)));

function pairs(flat: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) map.set(flat[i]!, flat[i + 1]!);
  return map;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `clientInfo` as the server accepted it at `initialize` (schema `Implementation`: a name and a version at least). */
const isImplementation = (v: unknown): v is Implementation => isObject(v) && typeof v.name === 'string' && typeof v.version === 'string';

/** A copy's record with these counters: the one made last time when they are the same. */
function recordOf(copy: Copy, lists: Lists): SessionRecord | undefined {
  if (copy.made?.lists === lists) return copy.made.record;
  const record = toRecord(copy.fields, copy.subscriptions, lists);
  if (record !== undefined) copy.made = { lists, record };
  return record;
}

function toRecord(fields: ReadonlyMap<string, string>, subscriptions: readonly string[], lists: Lists): SessionRecord | undefined {
  const protocolVersion = fields.get('v');
  const caps = parseJson(fields.get('caps'));
  if (protocolVersion === undefined || !isObject(caps)) return undefined;
  const info = parseJson(fields.get('info'));
  const count = (value: string | undefined) => Number(value ?? '0') || 0;
  const unannounced = LIST_KINDS.filter(
    (kind) => count(lists[kind]) > Math.max(count(fields.get(`f:${kind}`)), count(fields.get(`t:${kind}`))),
  );
  const log = fields.get('log');
  const holder = fields.get('holder');
  const principal = fields.get('p');
  return {
    protocolVersion,
    clientCapabilities: caps,
    ...(isImplementation(info) ? { clientInfo: info } : {}),
    initialized: fields.get('init') === '1',
    ...(log === undefined ? {} : { logLevel: log as NonNullable<SessionRecord['logLevel']> }),
    subscriptions,
    unannounced,
    ...(holder === undefined ? {} : { holder }),
    ...(principal === undefined ? {} : { principal }),
  };
}

const optionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';

/** A signal as `signal()` publishes it: the members of its variant checked one by one. */
function isSessionSignal(v: unknown): v is SessionSignal {
  if (!isObject(v) || typeof v.session !== 'string') return false;
  switch (v.type) {
    case 'deliver':
      return classify(v.message).kind !== 'invalid' && (v.forwarded === undefined || typeof v.forwarded === 'boolean');
    case 'answer':
      return classify(v.message).kind === 'response';
    case 'cancel':
      return (typeof v.requestId === 'string' || typeof v.requestId === 'number') && typeof v.reason === 'string';
    case 'changed':
      return (v.logLevel === undefined || isLoggingLevel(v.logLevel)) && optionalString(v.subscribed) && optionalString(v.unsubscribed);
    case 'appended':
    case 'yield':
    case 'ended':
      return true;
    default:
      return false;
  }
}

const LEVELS: ReadonlySet<unknown> = new Set(LOGGING_LEVELS);

/** One of the syslog levels of `logging/setLevel`. */
const isLoggingLevel = (v: unknown): boolean => LEVELS.has(v);
