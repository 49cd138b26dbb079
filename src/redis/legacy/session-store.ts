/**
 * Legacy Streamable HTTP sessions on Redis, so that a session created on one instance is
 * served by any other: the `SessionStore` a cluster's instances share.
 *
 * Per session, `<prefix>session:{<id>}` is a hash: `v` the negotiated version, `p` who opened
 * it (when authenticated), `caps` and `info` the client's capabilities and implementation
 * (JSON), `init` once initialized, `log` the level, `holder` the instance holding its GET
 * stream, and per list kind `f:<kind>` (the
 * list's version when the client last fetched it) and `t:<kind>` (its version when a change
 * last reached the client live). `<prefix>session:{<id>}:subs` is the set of subscribed URIs.
 * Both expire after the session's idle time unused; every load renews them. `{<prefix>registry}:lists`
 * counts the changes of each list (the backplane bumps it as it publishes one), so "changed
 * since the client fetched it" needs no walk over sessions: a list is to be announced again
 * when its count passed both `f:` and `t:`. Each operation is one round trip (a Lua script
 * where it reads and writes), and a second, sent with it, where it needs the counters: they live
 * in the deployment's slot and a session in its own, which a Redis Cluster cannot join in one script.
 *
 * Signals are published (sharded on a cluster) on `<prefix>signals:<instance>` (one instance) or
 * `<prefix>signals:all`, heard on the subscribed connection. Publish/subscribe is at most
 * once: a signal lost with a connection is a request that times out, never a wrong answer.
 */
import { LOGGING_LEVELS, classify, type Implementation } from '../../protocol/index.js';
import type { SessionRecord, SessionSignal, SessionStore, SubscribeOutcome } from '../../server/legacy/spi.js';
import { listsKey } from '../keys.js';
import type { RedisLink } from '../link.js';

/** How a `RedisSessionStore` keys and bounds the handshake era's shared session records. */
export interface RedisSessionStoreOptions {
  /** Key and channel prefix, one per server deployment (default 'janus:'). */
  prefix?: string;
  /** How long one command may wait for Redis (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Reports signals that are not ones and handlers that threw (default: console.error). */
  onError?: (error: Error) => void;
}

type ListKind = SessionRecord['unannounced'][number];
const LIST_KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources'];

/**
 * KEYS: the session. ARGV: ttl, version, caps, info (or ''), principal (or ''), then the
 * counters of tools, prompts, resources as read before: every list counts as fetched now.
 */
const CREATE = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'caps', ARGV[3], 'f:tools', ARGV[6], 'f:prompts', ARGV[7], 'f:resources', ARGV[8])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'info', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'p', ARGV[5]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/** KEYS: the session, its subscriptions. ARGV: ttl. */
const LOAD = `
local h = redis.call('HGETALL', KEYS[1])
if #h == 0 then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return {h, redis.call('SMEMBERS', KEYS[2])}
`;

/** KEYS: the session. ARGV: field, value pairs. */
const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`;

/** KEYS: the session, its subscriptions. ARGV: uri, max. Returns { outcome, holder or '' }. */
const SUBSCRIBE = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then return {'gone', ''} end
local holder = redis.call('HGET', KEYS[1], 'holder') or ''
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 0 then
  if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then return {'full', holder} end
  redis.call('SADD', KEYS[2], ARGV[1])
end
redis.call('PEXPIRE', KEYS[2], ttl)
return {'ok', holder}
`;

/** KEYS: the session, its subscriptions. ARGV: uri. Returns the holder or ''. */
const UNSUBSCRIBE = `
redis.call('SREM', KEYS[2], ARGV[1])
return redis.call('HGET', KEYS[1], 'holder') or ''
`;

/** KEYS: the session. ARGV: the field prefix ('f:' or 't:'), the kind, the list's counter as read before. */
const MARK = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1] .. ARGV[2], ARGV[3])
return 1
`;

/** KEYS: the session. ARGV: this instance. Returns the previous holder or ''. */
const HOLD = `
if redis.call('EXISTS', KEYS[1]) == 0 then return '' end
local previous = redis.call('HGET', KEYS[1], 'holder') or ''
redis.call('HSET', KEYS[1], 'holder', ARGV[1])
return previous
`;

/** KEYS: the session. ARGV: this instance. Only the holder lets go of the stream. */
const UNHOLD = `
if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then redis.call('HDEL', KEYS[1], 'holder') end
return 1
`;

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
  readonly #onError: (error: Error) => void;
  readonly #handlers = new Set<(signal: SessionSignal) => void>();

  constructor(link: RedisLink, options: RedisSessionStoreOptions = {}) {
    this.#link = link;
    this.#prefix = options.prefix ?? 'janus:';
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#onError = options.onError ?? ((e) => console.error('[janus-mcp/redis]', e));
  }

  /** Subscribes to this instance's signal channel and to the one for all. */
  async start(): Promise<void> {
    const listener = (message: string) => this.#receive(message);
    await this.#link.subscribe([this.#channel(this.instanceId), this.#channel('all')], listener);
  }

  async create(id: string, record: Parameters<SessionStore['create']>[1], ttlMs: number): Promise<void> {
    const info = record.clientInfo === undefined ? '' : JSON.stringify(record.clientInfo);
    const lists = await this.#lists();
    await this.#run(
      CREATE,
      [this.#key(id)],
      [
        ttl(ttlMs),
        record.protocolVersion,
        JSON.stringify(record.clientCapabilities),
        info,
        record.principal ?? '',
        ...LIST_KINDS.map((kind) => lists[kind] ?? '0'),
      ],
    );
  }

  async load(id: string, ttlMs: number): Promise<SessionRecord | undefined> {
    // The counters live in the deployment's slot, the session in its own: two commands, sent together.
    const [reply, lists] = await Promise.all([this.#run(LOAD, [this.#key(id), this.#subsKey(id)], [ttl(ttlMs)]), this.#lists()]);
    if (!Array.isArray(reply)) return undefined;
    const [fields, subscriptions] = reply as [string[], string[]];
    return toRecord(pairs(fields), subscriptions, lists);
  }

  async update(id: string, fields: Parameters<SessionStore['update']>[1]): Promise<boolean> {
    const args: string[] = [];
    if (fields.initialized) args.push('init', '1');
    if (fields.logLevel !== undefined) args.push('log', fields.logLevel);
    if (args.length === 0) return true;
    return (await this.#run(UPDATE, [this.#key(id)], args)) === 1;
  }

  async subscribe(id: string, uri: string, max: number): Promise<{ outcome: SubscribeOutcome; holder?: string }> {
    const [outcome, holder] = (await this.#run(SUBSCRIBE, [this.#key(id), this.#subsKey(id)], [uri, String(max)])) as [
      SubscribeOutcome,
      string,
    ];
    return holder === '' ? { outcome } : { outcome, holder };
  }

  async unsubscribe(id: string, uri: string): Promise<{ holder?: string }> {
    const holder = (await this.#run(UNSUBSCRIBE, [this.#key(id), this.#subsKey(id)], [uri])) as string;
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
   * once more, never missed (the counters only grow).
   */
  async #mark(id: string, field: 'f:' | 't:', kind: ListKind): Promise<void> {
    const lists = await this.#lists();
    await this.#run(MARK, [this.#key(id)], [field, kind, lists[kind] ?? '0']);
  }

  #lists(): Promise<Record<string, string>> {
    return this.#link.hGetAll(listsKey(this.#prefix), this.#timeoutMs);
  }

  async hold(id: string): Promise<string | undefined> {
    const previous = (await this.#run(HOLD, [this.#key(id)], [this.instanceId])) as string;
    return previous === '' ? undefined : previous;
  }

  async unhold(id: string): Promise<void> {
    await this.#run(UNHOLD, [this.#key(id)], [this.instanceId]);
  }

  async remove(id: string): Promise<void> {
    await this.#link.del([this.#key(id), this.#subsKey(id)], this.#timeoutMs);
  }

  async signal(to: string | undefined, signal: SessionSignal): Promise<void> {
    await this.#link.publish(this.#channel(to ?? 'all'), JSON.stringify(signal), this.#timeoutMs);
  }

  onSignal(handler: (signal: SessionSignal) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  #receive(message: string): void {
    const signal = parseSignal(message);
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

  #run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return this.#link.script(script, keys, args, this.#timeoutMs);
  }

  // One hash tag per session: its two keys share a slot, as a Redis Cluster requires of a script's keys.
  #key(id: string): string {
    return `${this.#prefix}session:{${id}}`;
  }

  #subsKey(id: string): string {
    return `${this.#prefix}session:{${id}}:subs`;
  }

  #channel(to: string): string {
    return `${this.#prefix}signals:${to}`;
  }
}

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

function toRecord(fields: Map<string, string>, subscriptions: string[], lists: Record<string, string>): SessionRecord | undefined {
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

function parseSignal(message: string): SessionSignal | undefined {
  const v = parseJson(message);
  return isSessionSignal(v) ? v : undefined;
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
