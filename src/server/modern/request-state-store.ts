/**
 * One-time use of MRTR `requestState` (2026-07-28 basic/patterns/mrtr.mdx §Server Requirements:
 * expiry and binding bound the replay window, but "do not by themselves guarantee single-use";
 * that is enforced server-side). Each state carries a random id; the retry that presents it
 * claims the id, and a second presentation finds it taken. The record lives until the state
 * would have expired anyway.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';

/**
 * Where claimed `requestState` ids are kept until they expire. Every instance that verifies
 * states must see the same records: the default is this process's memory; a shared one
 * (Redis: `SET <id> 1 NX PXAT <expiresAt>`) serves several instances.
 */
export interface RequestStateStore {
  /**
   * Records `id` as used until `expiresAt` (ms since the epoch) and returns true, or returns
   * false when it already was. Must be atomic: of two concurrent claims of one id, one wins.
   * `issuedAt` (ms since the epoch) lets a shared store that lost its records refuse the
   * states issued before the loss, whose use it can no longer tell (throw an `McpError`).
   */
  claim(id: string, expiresAt: number, issuedAt?: number): boolean | Promise<boolean>;
}

/** How an {@link InMemoryRequestStateStore} bounds its records. */
export interface InMemoryRequestStateStoreOptions {
  /**
   * Unexpired records kept at most (default 100,000, about 10 MB). When full, a retry is
   * refused with -32603 until records expire: forgetting one early would let its state be
   * replayed.
   */
  maxEntries?: number;
  /** The clock (ms since the epoch); for tests. */
  now?: () => number;
}

/** The default store: this process's memory, pruned of expired records as claims arrive. */
export class InMemoryRequestStateStore implements RequestStateStore {
  /** id → expiry, in claim order: with one ttl, the oldest expire first. */
  readonly #used = new Map<string, number>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: InMemoryRequestStateStoreOptions = {}) {
    this.#max = options.maxEntries ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  /** Unexpired records held. */
  get size(): number {
    return this.#used.size;
  }

  claim(id: string, expiresAt: number): boolean {
    const now = this.#now();
    for (const [key, expiry] of this.#used) {
      if (expiry > now) break;
      this.#used.delete(key);
    }
    if (this.#used.has(id)) return false;
    if (this.#used.size >= this.#max) {
      throw new McpError(
        ErrorCode.InternalError,
        `Too many multi-round requests completed recently (${this.#max} one-time records held); retry later`,
      );
    }
    this.#used.set(id, expiresAt);
    return true;
  }
}
