/**
 * The seam between the proxy instances of one cluster for 2026-07-28 rounds: the upstream call
 * a round belongs to lives in the instance that started it, and a retry may reach any instance
 * (a load balancer without sticky routing). The instance that gets the retry sends its
 * answers to the owning instance through a `ContinuationRelay`, and gets the outcome back the
 * same way (bridge.ts speaks the messages; a relay only carries them).
 *
 * A relay is kept in the cluster's stores under `CONTINUATION_RELAY` (`redisCluster()` of
 * `janus-mcp/redis` puts one on Redis publish/subscribe). A cluster without one gets the
 * in-process relay below, shared by the proxies created with that same cluster object.
 */
import type { ServerOptions } from '../server/index.js';

type Cluster = NonNullable<ServerOptions['cluster']>;

/**
 * Messages between the proxy instances of one cluster, each addressed to one instance by the
 * id it listens under. The proxy gives its messages as JSON text; a relay carries them as they
 * are, in the order one sender sent them, at least once (the proxy ignores a repeat).
 */
export interface ContinuationRelay {
  /**
   * Delivers every message sent to `instance` to `receive`, until the returned function is
   * called. One listener per instance id.
   */
  listen(instance: string, receive: (message: string) => void): Promise<() => Promise<void>>;
  /**
   * Sends `message` to `instance`. Resolves to whether an instance listening under that id took
   * it (false: none is, it is gone); rejects when the message could not be sent at all.
   */
  send(instance: string, message: string): Promise<boolean>;
}

/**
 * Where a cluster keeps the proxy's {@link ContinuationRelay}: a `StoreKey<ContinuationRelay>`
 * (janus-mcp/spi) for `cluster.stores.set(CONTINUATION_RELAY, relay)`. Stores are found by the
 * key's `id`; janus-mcp/redis registers its relay under the same one.
 */
export const CONTINUATION_RELAY: { readonly id: string; readonly store?: ContinuationRelay } = {
  id: 'janus-mcp/proxy.continuation-relay',
};

/** The relay of the proxies in this process: messages are handed over in memory, a turn of the event loop later. */
export class LocalContinuationRelay implements ContinuationRelay {
  private readonly listeners = new Map<string, (message: string) => void>();

  async listen(instance: string, receive: (message: string) => void): Promise<() => Promise<void>> {
    this.listeners.set(instance, receive);
    return async () => {
      if (this.listeners.get(instance) === receive) this.listeners.delete(instance);
    };
  }

  async send(instance: string, message: string): Promise<boolean> {
    const receive = this.listeners.get(instance);
    if (receive === undefined) return false;
    // Never inside the sender's call: a relay delivers later, wherever the receiver is.
    setImmediate(() => this.listeners.get(instance)?.(message));
    return true;
  }
}

/** The in-process relays of clusters that keep none of their own: one per cluster object. */
const local = new WeakMap<Cluster, LocalContinuationRelay>();

/** The relay the proxies of `cluster` share; none without a cluster (a lone proxy relays nothing). */
export function relayOf(cluster: Cluster | undefined): ContinuationRelay | undefined {
  if (cluster === undefined) return undefined;
  const kept = cluster.stores?.get(CONTINUATION_RELAY);
  if (kept !== undefined) return kept;
  let relay = local.get(cluster);
  if (relay === undefined) local.set(cluster, (relay = new LocalContinuationRelay()));
  return relay;
}
