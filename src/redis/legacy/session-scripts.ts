/**
 * The Lua scripts of `RedisSessionStore` (session-store.ts). Each names only keys of one
 * session (its hash tag `{<id>}`) or only the deployment's expiry index (`{<prefix>sessions}`),
 * never both: a Redis Cluster runs a script only when its keys share one slot.
 *
 * A session's keys: the record (a hash), `:subs` (its subscriptions), `:knowers` (the instances
 * holding a copy of it, each with its lease's end, Redis's clock in ms), `:info` (what the
 * expiry hook needs once the record is gone, written when the session initializes).
 *
 * Every script that changes what a copy holds answers with the other knowers whose lease has
 * not ended, as a flat list `instance, ms left, …` (expired ones are pruned on the way): the
 * writer tells each of them to drop its copy and waits for their answers or their leases
 * (session-store.ts). A script that changed nothing answers with no knowers.
 */

/** Lua: `now()`, Redis's clock in ms. */
const NOW = `
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/** Lua: `now()` and `knowers(key, me)`, the flat list described above. */
const KNOWERS = `${NOW}
local function knowers(key, me)
  local flat = redis.call('HGETALL', key)
  local out = {}
  local at = now()
  for i = 1, #flat, 2 do
    local left = tonumber(flat[i + 1]) - at
    if left <= 0 then redis.call('HDEL', key, flat[i])
    elseif flat[i] ~= me then
      out[#out + 1] = flat[i]
      out[#out + 1] = tostring(left)
    end
  end
  return out
end
`;

/**
 * KEYS: record, subs, knowers, info. ARGV: ttl, version, caps, info (or ''), principal (or ''),
 * then the counters of tools, prompts, resources as read before: every list counts as fetched now.
 */
export const CREATE = `
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'caps', ARGV[3], 'f:tools', ARGV[6], 'f:prompts', ARGV[7], 'f:resources', ARGV[8])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'info', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'p', ARGV[5]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/**
 * KEYS: record, subs, knowers, info. ARGV: ttl, this instance (or '' to take no copy), lease,
 * how long `info` outlives the record. Renews the expiry; registers the copy until its lease ends.
 */
export const LOAD = `${KNOWERS}
local h = redis.call('HGETALL', KEYS[1])
if #h == 0 then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[2], now() + tonumber(ARGV[3]))
  redis.call('PEXPIRE', KEYS[3], ARGV[1])
end
redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[1]) + tonumber(ARGV[4]))
return {h, redis.call('SMEMBERS', KEYS[2])}
`;

/**
 * KEYS: record, knowers, info. ARGV: this instance, how long `info` outlives the record, then
 * field, value pairs. Initialized (`init`), the session's hook data is kept apart in `info`.
 * False when the session does not exist.
 */
export const UPDATE = `${KNOWERS}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local changed = false
for i = 3, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    changed = true
    if ARGV[i] == 'init' then
      local h = redis.call('HMGET', KEYS[1], 'v', 'caps', 'info', 'p')
      local names = {'v', 'caps', 'info', 'p'}
      redis.call('DEL', KEYS[3])
      for j = 1, 4 do
        if h[j] then redis.call('HSET', KEYS[3], names[j], h[j]) end
      end
      redis.call('PEXPIRE', KEYS[3], redis.call('PTTL', KEYS[1]) + tonumber(ARGV[2]))
    end
  end
end
if not changed then return {} end
return knowers(KEYS[2], ARGV[1])
`;

/** KEYS: record, subs, knowers. ARGV: uri, max, this instance. Returns { outcome, holder or '', knowers… }. */
export const SUBSCRIBE = `${KNOWERS}
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then return {'gone', ''} end
local holder = redis.call('HGET', KEYS[1], 'holder') or ''
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return {'ok', holder} end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then return {'full', holder} end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ttl)
local out = {'ok', holder}
for _, v in ipairs(knowers(KEYS[3], ARGV[3])) do out[#out + 1] = v end
return out
`;

/** KEYS: record, subs, knowers. ARGV: uri, this instance. Returns { holder or '', knowers… }. */
export const UNSUBSCRIBE = `${KNOWERS}
local holder = redis.call('HGET', KEYS[1], 'holder') or ''
if redis.call('SREM', KEYS[2], ARGV[1]) == 0 then return {holder} end
local out = {holder}
for _, v in ipairs(knowers(KEYS[3], ARGV[2])) do out[#out + 1] = v end
return out
`;

/** KEYS: record, knowers. ARGV: field, value, this instance. False when the session does not exist. */
export const MARK = `${KNOWERS}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return {} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return knowers(KEYS[2], ARGV[3])
`;

/** KEYS: record, knowers. ARGV: this instance. Returns { previous holder or '', knowers… }. */
export const HOLD = `${KNOWERS}
if redis.call('EXISTS', KEYS[1]) == 0 then return {''} end
local previous = redis.call('HGET', KEYS[1], 'holder') or ''
if previous == ARGV[1] then return {previous} end
redis.call('HSET', KEYS[1], 'holder', ARGV[1])
local out = {previous}
for _, v in ipairs(knowers(KEYS[2], ARGV[1])) do out[#out + 1] = v end
return out
`;

/** KEYS: record, knowers. ARGV: this instance. Only the holder lets go of the stream. */
export const UNHOLD = `${KNOWERS}
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return {} end
redis.call('HDEL', KEYS[1], 'holder')
return knowers(KEYS[2], ARGV[1])
`;

/** KEYS: record, subs, knowers, info. ARGV: this instance. Deletes them all; answers with the knowers. */
export const REMOVE = `${KNOWERS}
local out = knowers(KEYS[3], ARGV[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return out
`;

/** KEYS: knowers. ARGV: this instance. It holds no copy any more. */
export const FORGET = `
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
`;

// The expiry index: `{<prefix>sessions}:expiry`, session ids scored by when their record expires.

/** KEYS: the index. ARGV: id, ms from now (Redis's clock). */
export const ENLIST = `${NOW}
redis.call('ZADD', KEYS[1], now() + tonumber(ARGV[2]), ARGV[1])
return 1
`;

/** KEYS: the index. ARGV: at most how many. The ids whose expiry has passed. */
export const DUE = `${NOW}
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now(), 'LIMIT', 0, tonumber(ARGV[1]))
`;

/** KEYS: the index. ARGV: id, ms from now. Moves an entry whose record lives on (never adds one: a removed session stays out). */
export const RESCORE = `${NOW}
redis.call('ZADD', KEYS[1], 'XX', now() + tonumber(ARGV[2]), ARGV[1])
return 1
`;

/** KEYS: the index. ARGV: id. 1 for the one caller that removed it: the claim on the session's end. */
export const CLAIM = `
return redis.call('ZREM', KEYS[1], ARGV[1])
`;

/** KEYS: record. Its time to live in ms (-2: gone). */
export const TTL = `
return redis.call('PTTL', KEYS[1])
`;

/** KEYS: info, knowers. The hook's data of an expired session (empty if it never initialized), deleted. */
export const TAKE_INFO = `
local h = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
return h
`;
