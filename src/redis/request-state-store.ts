/**
 * One-time use of MRTR `requestState` across instances (2026-07-28 basic/patterns/mrtr.mdx
 * §Server Requirements): `SET <prefix>mrtr:<id> 1 NX PXAT <expiresAt>` is atomic, so of two
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
import type { RedisConnection } from './connect.js';
import { runScript } from './script.js';
import { epochKey, RESTORE_RING, ringKey } from './secret-ring.js';

/** How a {@link RedisRequestStateStore} keys and bounds its claims. */
export interface RedisRequestStateStoreOptions {
  /** Key prefix, one per server deployment (default 'janus:'). */
  prefix?: string;
  /** How long a claim may wait for Redis before the retry is refused (default 2000 ms). */
  commandTimeoutMs?: number;
  /**
   * The sealing secrets this instance holds, as `score, secret` pairs (`RedisSecretRing.held`):
   * the absence of their ring (`<prefix>mrtr-secrets`) from Redis tells that Redis lost its
   * data, and they are put back. Without it, no loss is detected.
   */
  held?: () => readonly string[];
}

/**
 * KEYS: the ring of secrets, the epoch, the record. ARGV: now, issuedAt (or ''), expiresAt,
 * then the held `score, secret` pairs. Returns 'ok', 'used' or 'stale'. One script: the check
 * and the claim are one atomic step.
 */
const CLAIM = `${RESTORE_RING}
restore_ring(4)
local epoch = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[2] ~= '' and tonumber(ARGV[2]) < epoch then return 'stale' end
if redis.call('SET', KEYS[3], '1', 'NX', 'PXAT', ARGV[3]) then return 'ok' end
return 'used'
`;

/** A `RequestStateStore` on Redis, shared by every instance that uses the same Redis and prefix. */
export class RedisRequestStateStore implements RequestStateStore {
  readonly #client: RedisConnection;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #held: () => readonly string[];

  constructor(client: RedisConnection, options: RedisRequestStateStoreOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'janus:';
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#held = options.held ?? (() => []);
  }

  async claim(id: string, expiresAt: number, issuedAt?: number): Promise<boolean> {
    let reply: unknown;
    try {
      reply = await runScript(
        this.#client,
        this.#timeoutMs,
        CLAIM,
        [ringKey(this.#prefix), epochKey(this.#prefix), `${this.#prefix}mrtr:${id}`],
        [String(Date.now()), issuedAt === undefined ? '' : String(Math.floor(issuedAt)), String(Math.ceil(expiresAt)), ...this.#held()],
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
