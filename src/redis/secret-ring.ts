/**
 * The `requestState` sealing secrets of all instances, in Redis, rotated without a restart
 * (docs/scale-out.md §The sealing secrets). The ring is a sorted set, `{<prefix>mrtr}:secrets`:
 * each secret scored with the time it starts sealing (`activeAt`, ms since the epoch). Every
 * instance keeps a copy in memory, refreshed on a notice on `{<prefix>mrtr}:rotated` and on a
 * timer, and:
 *
 * - opens with every secret it keeps, including one whose `activeAt` is still to come;
 * - seals with the newest secret whose `activeAt` has passed (the oldest kept, if none has);
 * - drops a secret `retentionMs` after the next one started sealing: by then every state it
 *   sealed has expired, if `retentionMs` is at least the servers' `requestState.ttlMs`.
 *
 * A rotation adds a secret whose `activeAt` is `propagationMs` from now: every instance learns
 * it (notice, or the timer, which runs at least twice per `propagationMs`) before any seals
 * with it, so a state sealed with it opens everywhere. Clocks need only agree within the
 * margin that leaves. Automatic rotation is a conditional rotation in one script: it adds a
 * secret only when the newest is a full period old, so one instance wins each period.
 *
 * Redis that lost its data lost the ring: the first script to find it missing (a claim, a
 * refresh, a rotation) puts back the secrets the instance holds and starts a new epoch
 * (request-state-store.ts), so older states still open but cannot be replayed.
 */
import { JanusError } from '../errors/index.js';
import type { SecretRing } from '../spi/index.js';
import { epochKey, ringKey, rotatedChannel } from './keys.js';
import type { RedisLink } from './link.js';

/**
 * Lua, for scripts whose KEYS[1] is the ring and KEYS[2] the epoch, and whose ARGV are now,
 * the publish command and the ring's channel: when the ring is missing, puts back the `score,
 * secret` pairs from ARGV[first] on, starts a new epoch and announces the ring (the other
 * instances add back what they hold, so all converge on one ring at once, not at their next
 * refresh). Returns whether it did.
 */
export const RESTORE_RING = `
local function restore_ring(first)
  if redis.call('EXISTS', KEYS[1]) == 1 or #ARGV <= first then return false end
  redis.call('ZADD', KEYS[1], unpack(ARGV, first))
  redis.call('SET', KEYS[2], ARGV[1])
  redis.call(ARGV[2], ARGV[3], 'restored')
  return true
end
`;

/** The first ARGV of every script that may restore the ring: now, the publish command, the ring's channel. */
export function restoreArgs(link: RedisLink, prefix: string, now: number): string[] {
  return [String(now), link.publishCommand, rotatedChannel(prefix)];
}

/**
 * KEYS: ring, epoch. ARGV: now, publish command, channel, mode, then `score, secret` pairs.
 * 'init' creates the ring from the pair given when there is none (a new deployment, or Redis
 * lost it); 'merge' also adds back any held secret the ring lacks, and announces that it did
 * (the instance that restored the ring learns them at once). Returns the ring, WITHSCORES.
 */
const SYNC = `${RESTORE_RING}
if not restore_ring(5) and ARGV[4] == 'merge' and #ARGV > 5 then
  if redis.call('ZADD', KEYS[1], 'NX', unpack(ARGV, 5)) > 0 then redis.call(ARGV[2], ARGV[3], 'merged') end
end
return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
`;

/**
 * KEYS: ring, epoch. ARGV: now, publish command, channel, new secret, its activeAt,
 * retentionMs, dueBefore ('' for always), then the held `score, secret` pairs. Adds the secret
 * unless dueBefore is given and the newest secret's activeAt is after it; drops secrets whose
 * successor has sealed for longer than retentionMs; announces the change. Returns the ring,
 * WITHSCORES.
 */
const ROTATE = `${RESTORE_RING}
restore_ring(8)
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if ARGV[7] == '' or newest[2] == nil or tonumber(newest[2]) <= tonumber(ARGV[7]) then
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[4])
  local ring = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
  for i = 1, #ring - 2, 2 do
    if tonumber(ring[i + 3]) + tonumber(ARGV[6]) <= tonumber(ARGV[1]) then redis.call('ZREM', KEYS[1], ring[i]) end
  end
  redis.call(ARGV[2], ARGV[3], 'rotated')
end
return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
`;

/** How a {@link RedisSecretRing} keys its secrets and rotates them. */
export interface RedisSecretRingOptions {
  /** Key prefix, one per server deployment. */
  prefix: string;
  /** How long one command may wait for Redis. */
  commandTimeoutMs: number;
  /** How long a new secret is only opened before it seals. */
  propagationMs: number;
  /** How long a secret is kept after the next one started sealing. */
  retentionMs: number;
  /** Rotate automatically when the newest secret is this old (off when undefined). */
  rotationMs?: number;
}

/** The rotation settings of `redisCluster()`, as given. */
export interface SecretRotationSettings {
  secretRotationMs?: number;
  secretPropagationMs?: number;
  secretRetentionMs?: number;
}

/** Default `secretPropagationMs`: instances refresh at least twice in it. */
export const DEFAULT_PROPAGATION_MS = 10_000;
/** Default `secretRetentionMs`: the default `requestState.ttlMs` (10 min) and a minute for clocks and stragglers. */
export const DEFAULT_RETENTION_MS = 11 * 60_000;

/** The ring's options from `redisCluster()`'s: defaults applied, nonsense refused at start. */
export function secretRingOptions(prefix: string, commandTimeoutMs: number, settings: SecretRotationSettings): RedisSecretRingOptions {
  const { secretRotationMs: rotationMs } = settings;
  const propagationMs = settings.secretPropagationMs ?? DEFAULT_PROPAGATION_MS;
  const retentionMs = settings.secretRetentionMs ?? DEFAULT_RETENTION_MS;
  const positive = (name: string, ms: number | undefined) => {
    if (ms !== undefined && !(Number.isFinite(ms) && ms > 0))
      throw new JanusError('REGISTRATION', `redisCluster(): ${name} must be a positive number of ms`);
  };
  positive('secretRotationMs', rotationMs);
  positive('secretPropagationMs', propagationMs);
  positive('secretRetentionMs', retentionMs);
  if (rotationMs !== undefined && rotationMs <= propagationMs) {
    throw new JanusError(
      'REGISTRATION',
      'redisCluster(): secretRotationMs must be longer than secretPropagationMs, or every secret would be replaced before it seals',
    );
  }
  return { prefix, commandTimeoutMs, propagationMs, retentionMs, ...(rotationMs === undefined ? {} : { rotationMs }) };
}

interface Entry {
  readonly secret: string;
  readonly activeAt: number;
}

/** 32 random bytes, base64url. */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The ring of one instance: a `SecretRing` that follows `{<prefix>mrtr}:secrets`. */
export class RedisSecretRing implements SecretRing {
  readonly #link: RedisLink;
  readonly #options: RedisSecretRingOptions;
  readonly #timer: ReturnType<typeof setInterval>;
  /** As Redis last gave them, oldest `activeAt` first. */
  #entries: readonly Entry[] = [];
  #kept: readonly Entry[] = [];
  #opening: readonly string[] = [];
  #sealing = '';
  /** When the view changes by itself (a secret starts sealing or is dropped): recomputed then. */
  #until = 0;
  #ticking = false;
  #closed = false;

  readonly #listener = () => void this.refresh().catch(() => undefined);

  private constructor(link: RedisLink, options: RedisSecretRingOptions) {
    this.#link = link;
    this.#options = options;
    this.#timer = setInterval(() => void this.#tick(), Math.max(1, Math.floor(options.propagationMs / 2)));
    this.#timer.unref();
  }

  /** Reads the ring (creating it, and the first epoch, on an empty Redis) and follows its changes. */
  static async start(link: RedisLink, options: RedisSecretRingOptions): Promise<RedisSecretRing> {
    const ring = new RedisSecretRing(link, options);
    try {
      // Subscribed first: a ring that another instance restores meanwhile is heard of.
      await link.subscribe([rotatedChannel(options.prefix)], ring.#listener);
      // A ring made here becomes the sealing one only after every instance had time to learn it
      // (an instance that outlived a data loss keeps sealing with its own until then); until
      // then this instance seals with it as its only secret, and announces it.
      const now = Date.now();
      ring.#apply(await ring.#eval(SYNC, ['init', String(now + options.propagationMs), randomSecret()]));
    } catch (error) {
      ring.close();
      throw error;
    }
    return ring;
  }

  sealing(): string {
    if (Date.now() >= this.#until) this.#recompute();
    return this.#sealing;
  }

  opening(): readonly string[] {
    if (Date.now() >= this.#until) this.#recompute();
    return this.#opening;
  }

  /** The secrets this instance keeps, as `score, secret` script arguments: what it puts back when Redis lost them. */
  held(): string[] {
    if (Date.now() >= this.#until) this.#recompute();
    return this.#kept.flatMap((e) => [String(e.activeAt), e.secret]);
  }

  /** Reads the ring again, adding back what this instance keeps and Redis lacks. */
  async refresh(): Promise<void> {
    this.#apply(await this.#eval(SYNC, ['merge', ...this.held()]));
  }

  /**
   * Adds a new secret that every instance opens with at once and seals with `propagationMs`
   * from now. With `dueBefore`, only if the newest secret's `activeAt` is not after it.
   */
  async rotate(dueBefore?: number): Promise<void> {
    const now = Date.now();
    const { propagationMs, retentionMs } = this.#options;
    const args = [randomSecret(), String(now + propagationMs), String(retentionMs), dueBefore === undefined ? '' : String(dueBefore)];
    this.#apply(await this.#eval(ROTATE, [...args, ...this.held()], now));
  }

  /** Stops the timer and the notices (the link is the cluster's to close). */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#link.unsubscribe([rotatedChannel(this.#options.prefix)], this.#listener).catch(() => undefined);
  }

  async #tick(): Promise<void> {
    if (this.#ticking || this.#closed) return;
    this.#ticking = true;
    try {
      const { rotationMs, propagationMs } = this.#options;
      // Due when a secret made now would start sealing a full period after the newest did.
      const dueBefore = rotationMs === undefined ? undefined : Date.now() + propagationMs - rotationMs;
      const newest = this.#entries.at(-1);
      if (dueBefore !== undefined && (newest === undefined || newest.activeAt <= dueBefore)) await this.rotate(dueBefore);
      else await this.refresh();
    } catch {
      // Redis is away: connect.ts reports that once per outage; this instance keeps its secrets meanwhile.
    } finally {
      this.#ticking = false;
    }
  }

  #eval(script: string, args: string[], now = Date.now()): Promise<unknown> {
    const { prefix, commandTimeoutMs } = this.#options;
    return this.#link.script(
      script,
      [ringKey(prefix), epochKey(prefix)],
      [...restoreArgs(this.#link, prefix, now), ...args],
      commandTimeoutMs,
    );
  }

  /** Takes the ring as a script returned it (flat `secret, score` pairs); an empty one changes nothing. */
  #apply(reply: unknown): void {
    if (!Array.isArray(reply)) return;
    const entries: Entry[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) {
      const secret = reply[i];
      const activeAt = Number(reply[i + 1]);
      if (typeof secret === 'string' && secret !== '' && Number.isFinite(activeAt)) entries.push({ secret, activeAt });
    }
    if (entries.length === 0) return;
    this.#entries = entries;
    this.#recompute();
  }

  #recompute(): void {
    const now = Date.now();
    const entries = this.#entries;
    const { retentionMs } = this.#options;
    let until = Number.POSITIVE_INFINITY;
    const kept = entries.filter((entry, i) => {
      const next = entries[i + 1];
      if (entry.activeAt > now) until = Math.min(until, entry.activeAt);
      if (next === undefined) return true;
      const dropAt = next.activeAt + retentionMs;
      if (dropAt > now) until = Math.min(until, dropAt);
      return dropAt > now;
    });
    this.#kept = kept;
    this.#sealing = (kept.findLast((e) => e.activeAt <= now) ?? kept[0]!).secret;
    const opening = kept.map((e) => e.secret).reverse();
    // The same array while nothing changed: the codec derives keys again only for a new one.
    if (opening.length !== this.#opening.length || opening.some((s, i) => s !== this.#opening[i])) this.#opening = Object.freeze(opening);
    this.#until = until;
  }
}
