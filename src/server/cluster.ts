/**
 * What the instances of one server share when several serve one endpoint (docs/scale-out.md):
 * `createServer({ cluster })`. `janus-mcp/redis` makes one on Redis; without one,
 * everything stays in this process. Besides what the core shares (registry changes, the MRTR
 * `requestState` secrets and single-use records), a cluster keeps stores for the parts that
 * plug in (the handshake era's sessions and events, an extension's records), each under its
 * own key: the core names none of them.
 */
import type { Backplane } from './backplane.js';
import type { RequestStateStore } from './modern/request-state-store.js';
import type { Secret, SecretRing } from './modern/secret-ring.js';

/** The name of a store a cluster may keep, and (for the compiler) the store's type. */
export class StoreKey<T> {
  /** Never set: ties the key to the type of its store. */
  declare readonly store?: T;
  /** @param id The store's name, unique in a cluster (an extension's identifier, say). */
  constructor(readonly id: string) {}
}

/** Stores by key, each typed by its key. */
export class ClusterStores {
  private readonly stores = new Map<string, unknown>();

  /** Puts the store for `key`, replacing any; returns this, to chain. */
  set<T>(key: StoreKey<T>, store: T): this {
    this.stores.set(key.id, store);
    return this;
  }

  /** The store put under `key`, or undefined. */
  get<T>(key: StoreKey<T>): T | undefined {
    // Only `set` puts a store here, under a key of its type.
    return this.stores.get(key.id) as T | undefined;
  }
}

/**
 * What several instances of one server behind one URL share (`createServer({ cluster })`): the
 * backplane, the `requestState` secrets and records, and the stores of what plugs in.
 * `redisCluster()` of `janus-mcp/redis` makes one.
 */
export interface Cluster {
  /** Registry changes and resource updates, delivered to every instance's sessions and listen streams. */
  readonly backplane: Backplane;
  /**
   * MRTR `requestState` across instances: the sealing secrets (a fixed list, the first seals and
   * all open, or a `SecretRing` that changes while running) and the one-time-use records.
   */
  readonly requestState: {
    readonly secrets: readonly Secret[] | SecretRing;
    readonly store: RequestStateStore;
  };
  /**
   * The stores of the parts that plug in, by key: the handshake era's shared sessions and SSE
   * events (`SESSION_STORE`, `EVENT_STORE`), the tasks extension's records (`TASK_STORE` of
   * `janus-mcp/tasks`), your own extension's.
   */
  readonly stores?: ClusterStores;
}
