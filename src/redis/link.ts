/**
 * What the stores of janus-mcp/redis need from Redis, whatever its topology: one Redis, a
 * sharded Redis Cluster, or a primary that Sentinel fails over (links/). Each store speaks
 * to a `RedisLink` only, so none of them knows which it has.
 *
 * Two rules hold for every link:
 * - **One slot per script.** A Redis Cluster runs a script only when all its keys hash to one
 *   slot; keys that meet in a script share a hash tag (`{...}`, keys.ts), on every topology,
 *   so a deployment can move from one Redis to a cluster without renaming anything.
 * - **Failover is waited for.** A command that finds no primary (its node down, the cluster
 *   re-electing, a replica not yet promoted) is tried again until `failoverWaitMs` has passed
 *   (failover.ts), then fails as before: the request it serves waits for the new primary
 *   within a known bound instead of failing at the first refusal.
 */

/** A Redis, a Redis Cluster or a Sentinel-managed primary, as the stores use it. */
export interface RedisLink {
  /** Where it connects (the URL, the nodes or the Sentinel set), without passwords: for messages. */
  readonly where: string;
  /** `'PUBLISH'` on one Redis and Sentinel, `'SPUBLISH'` (sharded publish/subscribe) on a cluster: scripts that publish call this. */
  readonly publishCommand: 'PUBLISH' | 'SPUBLISH';
  /**
   * Runs a Lua script: by its SHA-1 once known, else its text (a fresh Redis, or one that
   * restarted, learns it again). All `keys` must share one hash slot.
   */
  script(script: string, keys: string[], args: string[], timeoutMs: number): Promise<unknown>;
  /**
   * Runs a Lua script by its text, every time: the command leaves in the caller's tick, so two
   * such calls reach Redis in the order they were made (a NOSCRIPT fallback could reorder them).
   */
  evalInOrder(script: string, keys: string[], args: string[], timeoutMs: number): Promise<unknown>;
  /** HGETALL. */
  hGetAll(key: string, timeoutMs: number): Promise<Record<string, string>>;
  /** DEL of each key (on a cluster, grouped by slot). */
  del(keys: string[], timeoutMs: number): Promise<void>;
  /** Publishes on `channel` (sharded on a cluster: the channel's slot decides its shard). */
  publish(channel: string, message: string, timeoutMs: number): Promise<void>;
  /** Subscribes `listener` to each channel; subscriptions are made again by themselves after a reconnection or failover. */
  subscribe(channels: readonly string[], listener: (message: string, channel: string) => void): Promise<void>;
  /** Ends what `subscribe` started for this listener on each channel. */
  unsubscribe(channels: readonly string[], listener: (message: string, channel: string) => void): Promise<void>;
  /** Whether messages published now would reach this link's subscriptions (false while they reconnect). */
  readonly listening: boolean;
  /** Closes every connection: waits for pending replies while up, drops them otherwise. */
  close(): Promise<void>;
}
