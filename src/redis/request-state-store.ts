/**
 * One-time use of MRTR `requestState` across instances (2026-07-28 basic/patterns/mrtr.mdx
 * §Server Requirements): `SET <prefix>mrtr:<id> 1 NX PXAT <expiresAt>` is atomic, so of two
 * instances that get the same retry, one wins. A Redis failure refuses the retry with -32603:
 * accepting it unrecorded would let the state be replayed.
 */
import type { RequestStateStore } from '../server/index.js';
import { ErrorCode, McpError } from '../protocol/index.js';
import type { RedisConnection } from './connect.js';

export interface RedisRequestStateStoreOptions {
  /** Key prefix, one per server deployment (default 'janus:'). */
  prefix?: string;
  /** How long a claim may wait for Redis before the retry is refused (default 2000 ms). */
  commandTimeoutMs?: number;
}

/** A `RequestStateStore` on Redis, shared by every instance that uses the same Redis and prefix. */
export class RedisRequestStateStore implements RequestStateStore {
  readonly #client: RedisConnection;
  readonly #prefix: string;
  readonly #timeoutMs: number;

  constructor(client: RedisConnection, options: RedisRequestStateStoreOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'janus:';
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
  }

  async claim(id: string, expiresAt: number): Promise<boolean> {
    let reply: string | null;
    try {
      reply = await this.#client.withCommandOptions({ timeout: this.#timeoutMs }).set(`${this.#prefix}mrtr:${id}`, '1', {
        condition: 'NX',
        expiration: { type: 'PXAT', value: Math.ceil(expiresAt) },
      });
    } catch {
      // The cause (timeout, connection lost) is infrastructure detail: the client learns only that it may retry.
      throw new McpError(ErrorCode.InternalError, 'Cannot check requestState: its shared store (Redis) is unavailable; retry later');
    }
    return reply === 'OK';
  }
}
