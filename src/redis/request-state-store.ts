/**
 * One-time use of MRTR `requestState` across instances (2026-07-28 basic/patterns/mrtr.mdx
 * §Server Requirements): `SET <prefix>mrtr:<id> 1 NX PXAT <expiresAt>` is atomic, so of two
 * instances that get the same retry, one wins. A Redis failure refuses the retry with -32603:
 * accepting it unrecorded would let the state be replayed.
 *
 * A Redis that lost its data (restarted without persistence, flushed) lost the records of the
 * states used before, and the shared sealing secret with them. The first claim that finds the
 * secret gone puts it back (every instance holds it) and starts a new epoch; states issued
 * before the epoch are refused, since whether they were used can no longer be told.
 */
import type { RequestStateStore } from '../server/index.js';
import { ErrorCode, McpError } from '../protocol/index.js';
import type { RedisConnection } from './connect.js';

export interface RedisRequestStateStoreOptions {
  /** Key prefix, one per server deployment (default 'janus:'). */
  prefix?: string;
  /** How long a claim may wait for Redis before the retry is refused (default 2000 ms). */
  commandTimeoutMs?: number;
  /**
   * The shared sealing secret as this instance holds it (`<prefix>mrtr-secret`): its absence
   * from Redis tells that Redis lost its data. Without it, no loss is detected.
   */
  secret?: string;
}

/**
 * KEYS: the secret, the epoch, the record. ARGV: the secret, now, issuedAt (or ''), expiresAt.
 * Returns 'ok', 'used' or 'stale'. One script: the check and the claim are one atomic step.
 */
const CLAIM = `
if ARGV[1] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[2], ARGV[2])
end
local epoch = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[3] ~= '' and tonumber(ARGV[3]) < epoch then return 'stale' end
if redis.call('SET', KEYS[3], '1', 'NX', 'PXAT', ARGV[4]) then return 'ok' end
return 'used'
`;

/** The key of the epoch: when the shared store last started from nothing (ms since the epoch). */
export const epochKey = (prefix: string): string => `${prefix}mrtr-epoch`;
export const secretKey = (prefix: string): string => `${prefix}mrtr-secret`;

/** A `RequestStateStore` on Redis, shared by every instance that uses the same Redis and prefix. */
export class RedisRequestStateStore implements RequestStateStore {
  readonly #client: RedisConnection;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #secret: string;

  constructor(client: RedisConnection, options: RedisRequestStateStoreOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'janus:';
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#secret = options.secret ?? '';
  }

  async claim(id: string, expiresAt: number, issuedAt?: number): Promise<boolean> {
    let reply: unknown;
    try {
      reply = await this.#client.withCommandOptions({ timeout: this.#timeoutMs }).eval(CLAIM, {
        keys: [secretKey(this.#prefix), epochKey(this.#prefix), `${this.#prefix}mrtr:${id}`],
        arguments: [
          this.#secret,
          String(Date.now()),
          issuedAt === undefined ? '' : String(Math.floor(issuedAt)),
          String(Math.ceil(expiresAt)),
        ],
      });
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
