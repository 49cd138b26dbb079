/**
 * Task records on Redis (tasks extension, both designs; docs/scale-out.md §Tasks): a task
 * created on one instance is read, updated and cancelled through any other, while its handler
 * runs on the instance holding its lease (the one that created it, or the one that took it
 * over when that one died).
 *
 * `{<prefix>tasks}:task:<id>` is a hash: one field per record property (JSON for `result` and
 * `error`), one `in:<key>` per outstanding input request (its JSON), and `seq` and `createdMs`
 * for the store. Scripts never parse JSON (Lua's cjson would turn `[]` into `{}` and round
 * numbers), so what the client sent comes back byte for byte. The key expires at createdAt +
 * ttlMs (PEXPIREAT; none for null), which only a change of `ttlMs` moves. Per owner,
 * `{<prefix>tasks}:task-list:<owner>` orders the ids by creation (`{<prefix>tasks}:task-seq`, one
 * counter for all instances) and `{<prefix>tasks}:task-expiry:<owner>` scores them by expiry, so expired ids are
 * dropped by range and both sets expire with their longest-lived task.
 *
 * `{<prefix>tasks}:task-leases` scores the ids of the tasks being run by when their runner's
 * lease runs out (`leaseUntil`, Redis's clock): `keepLeases` renews an instance's own and takes
 * over the ones past due in one script, so one instance alone takes over a given task, and a
 * sweep that finds none costs one range query.
 *
 * `lastUpdatedAt` is the Redis server's TIME, formatted in the script: every instance writes
 * with one clock, so a task's updates keep their order whatever the instances' skew; Redis
 * also judges the expiry. `createdAt` is the caller's.
 *
 * Every write is one Lua script (atomic across instances, one round trip); the scripts build
 * the per-owner keys from the key prefix, so every key of the store carries one hash tag
 * (`{<prefix>tasks}`): on a Redis Cluster the task records live on one shard. Signals are
 * published on `<prefix>tasks:<instance>` (sharded on a cluster), at most once, like the session
 * store's.
 */
import { JanusError } from '../errors/index.js';
import type { InputRequest } from '../protocol/index.js';
import type { TaskChange, TaskRecord, TaskSignal, TaskStore } from '../extensions/tasks/index.js';
import type { RedisLink } from './link.js';

/** How a {@link RedisTaskStore} keys and bounds its task records. */
export interface RedisTaskStoreOptions {
  /** Key and channel prefix, one per server deployment, the same on all its instances (default 'janus:'). */
  prefix?: string;
  /** How long one command may wait for Redis before the call rejects (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Reports messages on the signal channel that are not signals, and handlers that threw (default: console.error). */
  onError?: (error: Error) => void;
}

/** Helpers every script starts with. */
const LIB = `
-- store.ts TERMINAL.
local TERMINAL = { completed = true, failed = true, cancelled = true }

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Epoch ms as Date.prototype.toISOString writes it (days to civil date: Hinnant's algorithm).
local function iso(ms)
  local days = math.floor(ms / 86400000)
  local rest = ms - days * 86400000
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400 + (m <= 2 and 1 or 0)
  return string.format('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', y, m, d,
    math.floor(rest / 3600000), math.floor(rest / 60000) % 60, math.floor(rest / 1000) % 60, rest % 1000)
end

local function owner_keys(prefix, owner)
  return prefix .. 'task-list:' .. owner, prefix .. 'task-expiry:' .. owner
end

-- Drops (up to 100) expired ids from an owner's sets; both sets then expire with their
-- longest-lived task, so an owner's sets never outlive its tasks.
local function tidy(list, expiry, now)
  local gone = redis.call('ZRANGEBYSCORE', expiry, '-inf', string.format('(%d', now), 'LIMIT', 0, 100)
  if #gone > 0 then
    redis.call('ZREM', expiry, unpack(gone))
    redis.call('ZREM', list, unpack(gone))
  end
  local last = redis.call('ZRANGE', expiry, -1, -1, 'WITHSCORES')
  if #last == 0 then return end
  if last[2] == 'inf' then
    redis.call('PERSIST', list)
    redis.call('PERSIST', expiry)
  else
    redis.call('PEXPIREAT', list, last[2])
    redis.call('PEXPIREAT', expiry, last[2])
  end
end

local function input_fields(key)
  local out = {}
  for _, f in ipairs(redis.call('HKEYS', key)) do
    if string.sub(f, 1, 3) == 'in:' then out[#out + 1] = f end
  end
  return out
end
`;

/**
 * KEYS: the task, the sequence, the leases. ARGV: prefix, id, owner, expiresAt ms ('' for
 * never), lease ms ('' for none: counted from Redis's clock), then field/value pairs.
 */
const CREATE = `${LIB}
local now = now_ms()
local list, expiry = owner_keys(ARGV[1], ARGV[3])
local seq = redis.call('INCR', KEYS[2])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'seq', seq, unpack(ARGV, 6))
if ARGV[5] == '' then
  redis.call('ZREM', KEYS[3], ARGV[2])
else
  local lease = now + tonumber(ARGV[5])
  redis.call('HSET', KEYS[1], 'leaseUntil', lease)
  redis.call('ZADD', KEYS[3], lease, ARGV[2])
end
redis.call('ZADD', list, seq, ARGV[2])
redis.call('ZADD', expiry, ARGV[4] == '' and '+inf' or ARGV[4], ARGV[2])
tidy(list, expiry, now)
-- Last: an expiry already past deletes the key at once.
if ARGV[4] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[4]) end
return seq
`;

/**
 * KEYS: the task. ARGV: prefix, the new ttlMs ('' unchanged, 'null', or ms), then field/value
 * pairs. Returns the record after, or nil when unknown or terminal.
 */
const UPDATE = `${LIB}
local status = redis.call('HGET', KEYS[1], 'status')
if not status or TERMINAL[status] then return false end
local now = now_ms()
if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end
-- A terminal task asks for nothing more, and nobody holds it.
if TERMINAL[redis.call('HGET', KEYS[1], 'status')] then
  local inputs = input_fields(KEYS[1])
  if #inputs > 0 then redis.call('HDEL', KEYS[1], unpack(inputs)) end
  redis.call('HDEL', KEYS[1], 'leaseUntil')
  redis.call('ZREM', ARGV[1] .. 'task-leases', redis.call('HGET', KEYS[1], 'taskId'))
end
redis.call('HSET', KEYS[1], 'lastUpdatedAt', iso(now))
local at = nil
if ARGV[2] ~= '' then
  local f = redis.call('HMGET', KEYS[1], 'owner', 'createdMs', 'taskId')
  local list, expiry = owner_keys(ARGV[1], f[1])
  if ARGV[2] == 'null' then
    redis.call('PERSIST', KEYS[1])
    redis.call('ZADD', expiry, 'XX', '+inf', f[3])
  else
    at = string.format('%d', tonumber(f[2]) + tonumber(ARGV[2]))
    redis.call('ZADD', expiry, 'XX', at, f[3])
  end
  tidy(list, expiry, now)
end
local record = redis.call('HGETALL', KEYS[1])
if at then redis.call('PEXPIREAT', KEYS[1], at) end
return record
`;

/**
 * KEYS: the leases. ARGV: prefix, runner, lease ms, limit, then the ids the runner holds.
 * Renews the runner's leases on those it still holds, then takes over up to `limit` tasks
 * whose lease ran out. Returns { ids lost, records taken over }.
 */
const KEEP_LEASES = `${LIB}
local now = now_ms()
local lease = now + tonumber(ARGV[3])
local lost = {}
local renewed = {}
for i = 5, #ARGV do
  local key = ARGV[1] .. 'task:' .. ARGV[i]
  local f = redis.call('HMGET', key, 'status', 'runner')
  if f[1] and not TERMINAL[f[1]] and f[2] == ARGV[2] then
    redis.call('HSET', key, 'leaseUntil', lease)
    redis.call('ZADD', KEYS[1], lease, ARGV[i])
  else
    lost[#lost + 1] = ARGV[i]
  end
end
local claimed = {}
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', string.format('(%d', now), 'LIMIT', 0, tonumber(ARGV[4]))
for _, id in ipairs(due) do
  local key = ARGV[1] .. 'task:' .. id
  local status = redis.call('HGET', key, 'status')
  if not status or TERMINAL[status] then
    -- Expired (its key is gone) or ended without the update that drops it.
    redis.call('ZREM', KEYS[1], id)
  else
    local inputs = input_fields(key)
    if #inputs > 0 then redis.call('HDEL', key, unpack(inputs)) end
    redis.call('HSET', key, 'runner', ARGV[2], 'leaseUntil', lease, 'status', 'working', 'lastUpdatedAt', iso(now))
    -- A record without runs was run once.
    redis.call('HSET', key, 'runs', (tonumber(redis.call('HGET', key, 'runs')) or 1) + 1)
    redis.call('ZADD', KEYS[1], lease, id)
    claimed[#claimed + 1] = redis.call('HGETALL', key)
  end
end
return { lost, claimed }
`;

/** KEYS: the task. ARGV: 'in:' .. key, the request's JSON. Returns the record after, or nil. */
const ADD_INPUT = `${LIB}
local status = redis.call('HGET', KEYS[1], 'status')
if not status or TERMINAL[status] then return false end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], 'status', 'input_required', 'lastUpdatedAt', iso(now_ms()))
return redis.call('HGETALL', KEYS[1])
`;

/** KEYS: the task. ARGV: the keys answered. Returns { keys taken, the record after }, or nil. */
const ANSWER = `${LIB}
local status = redis.call('HGET', KEYS[1], 'status')
if not status or TERMINAL[status] then return false end
local taken = {}
for i = 1, #ARGV do
  if redis.call('HDEL', KEYS[1], 'in:' .. ARGV[i]) == 1 then taken[#taken + 1] = ARGV[i] end
end
if #taken > 0 then
  if status == 'input_required' and #input_fields(KEYS[1]) == 0 then redis.call('HSET', KEYS[1], 'status', 'working') end
  redis.call('HSET', KEYS[1], 'lastUpdatedAt', iso(now_ms()))
end
return { taken, redis.call('HGETALL', KEYS[1]) }
`;

/**
 * KEYS: the owner's list and expiry sets. ARGV: prefix, the cursor's seq ('' from the start),
 * limit, owner. Returns { records, the seq of the last one when more follow, else '' }.
 */
const LIST = `${LIB}
tidy(KEYS[1], KEYS[2], now_ms())
local limit = tonumber(ARGV[3])
local min = ARGV[2] == '' and '-inf' or '(' .. ARGV[2]
local out, last, more = {}, '', false
while not more do
  local batch = redis.call('ZRANGEBYSCORE', KEYS[1], min, '+inf', 'WITHSCORES', 'LIMIT', 0, limit + 1 - #out)
  if #batch == 0 then break end
  for i = 1, #batch, 2 do
    min = '(' .. batch[i + 1]
    local key = ARGV[1] .. 'task:' .. batch[i]
    -- Gone, or the id was created again for another owner.
    if redis.call('HGET', key, 'owner') ~= ARGV[4] then
      redis.call('ZREM', KEYS[1], batch[i])
      redis.call('ZREM', KEYS[2], batch[i])
    elseif #out == limit then
      more = true
      break
    else
      out[#out + 1] = redis.call('HGETALL', key)
      last = batch[i + 1]
    end
  end
end
return { out, more and last or '' }
`;

/** An instance id: 16 hex digits. */
const newInstanceId = (): string => crypto.randomUUID().replace(/-/g, '').slice(0, 16);

/** The `TaskStore` on Redis; `redisCluster()` makes and starts one (`cluster.tasks`). */
export class RedisTaskStore implements TaskStore {
  readonly instanceId = newInstanceId();
  readonly #link: RedisLink;
  readonly #prefix: string;
  /** What every key of the store starts with: one hash tag, since a script reads a task with its owner's lists. */
  readonly #keys: string;
  readonly #timeoutMs: number;
  readonly #onError: (error: Error) => void;
  readonly #handlers = new Set<(signal: TaskSignal) => void>();
  readonly #listener = (message: string) => this.#receive(message);

  constructor(link: RedisLink, options: RedisTaskStoreOptions = {}) {
    this.#link = link;
    this.#prefix = options.prefix ?? 'janus:';
    this.#keys = `{${this.#prefix}tasks}:`;
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#onError = options.onError ?? ((e) => console.error('[janus-mcp/redis]', e));
  }

  /** Subscribes to this instance's signal channel. */
  async start(): Promise<void> {
    await this.#link.subscribe([this.#channel(this.instanceId)], this.#listener);
  }

  async create(record: TaskRecord): Promise<void> {
    const createdMs = Date.parse(record.createdAt);
    if (Number.isNaN(createdMs)) throw new TypeError(`task ${record.taskId}: createdAt ${JSON.stringify(record.createdAt)} is not a time`);
    const expiresAt = record.ttlMs === null ? '' : String(Math.ceil(createdMs + record.ttlMs));
    // The lease counts from Redis's clock, as its renewals do: the instances' clocks may differ.
    const leaseMs = record.leaseUntil === undefined ? '' : String(Math.max(0, Math.ceil(record.leaseUntil - Date.now())));
    const fields = [
      ...['taskId', record.taskId, 'status', record.status, 'createdAt', record.createdAt, 'createdMs', String(createdMs)],
      ...['lastUpdatedAt', record.lastUpdatedAt, 'ttlMs', String(record.ttlMs), 'owner', record.owner],
      ...['design', record.design, 'method', record.method, 'runner', record.runner],
      ...optionalFields(record),
    ];
    if (record.runs !== undefined) fields.push('runs', String(record.runs));
    if (record.tool !== undefined) fields.push('tool', record.tool);
    if (record.rerun !== undefined) fields.push('rerun', JSON.stringify(record.rerun));
    for (const [key, request] of Object.entries(record.inputRequests ?? {})) fields.push(`in:${key}`, JSON.stringify(request));
    // The script's reply is Redis acknowledging the write: from then on every instance reads it.
    await this.#run(
      'create',
      CREATE,
      [this.#key(record.taskId), `${this.#keys}task-seq`, this.#leases],
      [this.#keys, record.taskId, record.owner, expiresAt, leaseMs, ...fields],
    );
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const flat = await unavailable('get', this.#link.hGetAll(this.#key(taskId), this.#timeoutMs));
    return Object.keys(flat).length === 0 ? undefined : toRecord(taskId, Object.entries(flat).flat());
  }

  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const ttl = change.ttlMs === undefined ? '' : String(change.ttlMs === null ? null : Math.ceil(change.ttlMs));
    const fields = optionalFields(change);
    if (change.status !== undefined) fields.push('status', change.status);
    if (change.ttlMs !== undefined) fields.push('ttlMs', String(change.ttlMs));
    const reply = await this.#run('update', UPDATE, [this.#key(taskId)], [this.#keys, ttl, ...fields]);
    return Array.isArray(reply) ? toRecord(taskId, reply as string[]) : undefined;
  }

  async addInput(taskId: string, key: string, request: InputRequest): Promise<TaskRecord | undefined> {
    const reply = await this.#run('addInput', ADD_INPUT, [this.#key(taskId)], [`in:${key}`, JSON.stringify(request)]);
    return Array.isArray(reply) ? toRecord(taskId, reply as string[]) : undefined;
  }

  async answer(
    taskId: string,
    responses: Record<string, unknown>,
  ): Promise<{ taken: Record<string, unknown>; record: TaskRecord } | undefined> {
    // Only the keys go to Redis: the responses themselves are the running handler's business.
    const reply = await this.#run('answer', ANSWER, [this.#key(taskId)], Object.keys(responses));
    if (!Array.isArray(reply)) return undefined;
    const [keys, flat] = reply as [string[], string[]];
    const taken = Object.fromEntries(keys.map((k) => [k, responses[k]]));
    return { taken, record: toRecord(taskId, flat) };
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<{ records: TaskRecord[]; nextCursor?: string }> {
    // A cursor this store did not issue starts nowhere (as InMemoryTaskStore: no records).
    if (cursor !== undefined && !/^\d{1,15}$/.test(cursor)) return { records: [] };
    // A page of none would never advance.
    const size = Number.isFinite(limit) && limit >= 1 ? Math.floor(limit) : 1;
    const keys = [`${this.#keys}task-list:${owner}`, `${this.#keys}task-expiry:${owner}`];
    const reply = await this.#run('list', LIST, keys, [this.#keys, cursor ?? '', String(size), owner]);
    const [flats, last] = reply as [string[][], string];
    const records = flats.map((flat) => toRecord('(listed)', flat));
    return last === '' ? { records } : { records, nextCursor: last };
  }

  async keepLeases(
    runner: string,
    holding: readonly string[],
    leaseMs: number,
    limit: number,
  ): Promise<{ lost: string[]; claimed: TaskRecord[] }> {
    const args = [this.#keys, runner, String(Math.max(1, Math.ceil(leaseMs))), String(Math.max(0, Math.floor(limit))), ...holding];
    const [lost, flats] = (await this.#run('keepLeases', KEEP_LEASES, [this.#leases], args)) as [string[], string[][]];
    return { lost, claimed: flats.map((flat) => toRecord('(taken over)', flat)) };
  }

  async signal(runner: string, signal: TaskSignal): Promise<void> {
    // This instance's own tasks need no round trip (nor a reachable Redis).
    if (runner === this.instanceId) return this.#deliver(signal);
    await unavailable('signal', this.#link.publish(this.#channel(runner), JSON.stringify(signal), this.#timeoutMs));
  }

  onSignal(handler: (signal: TaskSignal) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /** Stops hearing signals; the connections are the cluster's to close. */
  close(): void {
    this.#handlers.clear();
    try {
      this.#link.unsubscribe([this.#channel(this.instanceId)], this.#listener).catch(() => undefined);
    } catch {
      // Already closed: nothing is heard any more.
    }
  }

  #receive(message: string): void {
    const signal = parseSignal(message);
    if (signal === undefined) {
      this.#onError(new Error(`[janus-mcp/redis] ignored a message on ${this.#channel(this.instanceId)} that is not a task signal`));
      return;
    }
    this.#deliver(signal);
  }

  #deliver(signal: TaskSignal): void {
    for (const handler of this.#handlers) {
      try {
        handler(signal);
      } catch (error) {
        this.#onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  #run(what: string, script: string, keys: string[], args: string[]): Promise<unknown> {
    return unavailable(what, this.#link.script(script, keys, args, this.#timeoutMs));
  }

  /** The sorted set of leased task ids, scored by when their lease runs out. */
  get #leases(): string {
    return `${this.#keys}task-leases`;
  }

  #key(taskId: string): string {
    return `${this.#keys}task:${taskId}`;
  }

  #channel(instance: string): string {
    return `${this.#prefix}tasks:${instance}`;
  }
}

/** A Redis failure as the caller sees it: which call, and why, never a hang (deadline.ts). */
async function unavailable<T>(what: string, reply: Promise<T>): Promise<T> {
  try {
    return await reply;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new JanusError('CONNECTION', `Task store ${what} failed: Redis is unavailable (${why})`, { cause: error });
  }
}

/** The hash fields of a change's (or a new record's) optional properties: all but status and ttlMs. */
function optionalFields(change: TaskChange): string[] {
  const fields: string[] = [];
  if (change.statusMessage !== undefined) fields.push('statusMessage', change.statusMessage);
  if (change.pollIntervalMs !== undefined) fields.push('pollIntervalMs', String(change.pollIntervalMs));
  if (change.result !== undefined) fields.push('result', JSON.stringify(change.result));
  if (change.error !== undefined) fields.push('error', JSON.stringify(change.error));
  return fields;
}

const REQUIRED = ['taskId', 'status', 'createdAt', 'lastUpdatedAt', 'ttlMs', 'owner', 'design', 'method', 'runner'] as const;

/** A record from its hash (flat field/value pairs); throws on a hash this store did not write. */
function toRecord(taskId: string, flat: readonly string[]): TaskRecord {
  const f = new Map<string, string>();
  const inputs: Array<[string, InputRequest]> = [];
  try {
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const [name, value] = [flat[i]!, flat[i + 1]!];
      if (name.startsWith('in:')) inputs.push([name.slice(3), JSON.parse(value) as InputRequest]);
      else f.set(name, value);
    }
    for (const name of REQUIRED) if (!f.has(name)) throw new Error(`no ${name}`);
    const get = (name: string) => f.get(name)!;
    const optional = (name: string, parse: (v: string) => unknown) => (f.has(name) ? { [name]: parse(get(name)) } : {});
    return {
      taskId: get('taskId'),
      status: get('status') as TaskRecord['status'],
      ...optional('statusMessage', String),
      createdAt: get('createdAt'),
      lastUpdatedAt: get('lastUpdatedAt'),
      ttlMs: get('ttlMs') === 'null' ? null : Number(get('ttlMs')),
      ...optional('pollIntervalMs', Number),
      owner: get('owner'),
      design: get('design') as TaskRecord['design'],
      method: get('method'),
      runner: get('runner'),
      ...optional('leaseUntil', Number),
      ...optional('runs', Number),
      ...optional('tool', String),
      ...optional('rerun', JSON.parse),
      ...(inputs.length > 0 ? { inputRequests: Object.fromEntries(inputs) } : {}),
      ...optional('result', JSON.parse),
      ...optional('error', JSON.parse),
    };
  } catch (error) {
    throw new JanusError('PROTOCOL', `Task store: the record of task ${taskId} in Redis is not one this store wrote`, { cause: error });
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseSignal(message: string): TaskSignal | undefined {
  let v: unknown;
  try {
    v = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!isObject(v) || typeof v.taskId !== 'string') return undefined;
  if (v.type === 'cancel') return { type: 'cancel', taskId: v.taskId };
  if (v.type === 'input' && isObject(v.responses)) return { type: 'input', taskId: v.taskId, responses: v.responses };
  return undefined;
}
