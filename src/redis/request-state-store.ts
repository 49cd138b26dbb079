/**
 * One-time use of MRTR `requestState` across instances (2026-07-28 basic/patterns/mrtr.mdx
 * §Server Requirements): `SET {<prefix>mrtr}:used:<id> <token> NX PXAT <expiresAt>` is atomic, so of two
 * instances that get the same retry, one wins. A Redis failure refuses the retry with -32603:
 * accepting it unrecorded would let the state be replayed.
 *
 * A Redis that lost its data (restarted without persistence, flushed) lost the records of the
 * states used before, and the ring of sealing secrets with them. The first claim that finds the
 * ring gone puts back the secrets this instance holds and starts a new epoch (secret-ring.ts
 * does the same on a refresh); states issued before the epoch are refused, since whether they
 * were used can no longer be told.
 */
import type { RequestStateStore } from '../spi/index.js';
import { ErrorCode, McpError } from '../errors/index.js';
import { epochKey, ringKey, usedKey } from './keys.js';
import type { RedisLink } from './link.js';
import { RESTORE_RING, restoreArgs } from './secret-ring.js';

/** How a {@link RedisRequestStateStore} keys and bounds its claims. */
export interface RedisRequestStateStoreOptions {
  /** Key prefix, one per server deployment (default 'janus:'). */
  prefix?: string;
  /** How long a claim may wait for Redis before the retry is refused (default 2000 ms). */
  commandTimeoutMs?: number;
  /**
   * The sealing secrets this instance holds, as `score, secret` pairs (`RedisSecretRing.held`):
   * the absence of their ring (`{<prefix>mrtr}:secrets`) from Redis tells that Redis lost its
   * data, and they are put back. Without it, no loss is detected.
   */
  held?: () => readonly string[];
}

/**
 * KEYS: the ring of secrets, the epoch, the record. ARGV: now, publish command, the ring's
 * channel, issuedAt (or ''), expiresAt, this claim's token, then the held `score, secret`
 * pairs. Returns 'ok', 'used' or 'stale'. One script: the check and the claim are one atomic
 * step. The record holds the claim's token, so the same claim sent again (its first answer lost
 * in a failover) is still 'ok', and only another claim is 'used'.
 */
const CLAIM = `${RESTORE_RING}
restore_ring(7)
local epoch = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[4] ~= '' and tonumber(ARGV[4]) < epoch then return 'stale' end
if redis.call('SET', KEYS[3], ARGV[6], 'NX', 'PXAT', ARGV[5]) then return 'ok' end
if redis.call('GET', KEYS[3]) == ARGV[6] then return 'ok' end
return 'used'
`;

/** A `RequestStateStore` on Redis, shared by every instance that uses the same Redis and prefix. */
export class RedisRequestStateStore implements RequestStateStore {
  readonly #link: RedisLink;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #held: () => readonly string[];

  constructor(link: RedisLink, options: RedisRequestStateStoreOptions = {}) {
    this.#link = link;
    this.#prefix = options.prefix ?? 'janus:';
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#held = options.held ?? (() => []);
  }

  async claim(id: string, expiresAt: number, issuedAt?: number): Promise<boolean> {
    let reply: unknown;
    try {
      const prefix = this.#prefix;
      reply = await this.#link.script(
        CLAIM,
        [ringKey(prefix), epochKey(prefix), usedKey(prefix, id)],
        [
          ...restoreArgs(this.#link, prefix, Date.now()),
          issuedAt === undefined ? '' : String(Math.floor(issuedAt)),
          String(Math.ceil(expiresAt)),
          crypto.randomUUID(),
          ...this.#held(),
        ],
        this.#timeoutMs,
      );
    } catch {
      // The cause (timeout, connection lost) is infrastructure detail: the client learns only that it may retry.
      throw new McpError(ErrorCode.InternalError, 'Cannot check requestState: its shared store (Redis) is unavailable; retry later');
    }
    if (reply === 'stale') {
      throw new McpError(
        ErrorCode.InvalidParams,
        'Invalid requestState: issued before the shared store (Redis) lost its records, so its single use cannot be checked; start the request again',
      );
    }
    return reply === 'ok';
  }
}
