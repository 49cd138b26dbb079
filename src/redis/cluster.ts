/**
 * A `Cluster` on Redis (docs/scale-out.md): a link to one Redis, a Redis Cluster or a
 * Sentinel-managed primary (link.ts), the fan-out channel, the one-time-use records, the ring
 * of `requestState` sealing secrets (secret-ring.ts) and the stores, all under one prefix.
 */
import { ClusterStores, type Cluster } from '../spi/index.js';
import { TASK_STORE } from '../extensions/tasks/index.js';
import { RedisBackplane } from './backplane.js';
import type { LegacyStoreOptions } from './era.js';
import { LEGACY_STORES } from './eras.js';
import type { RedisLink } from './link.js';
import { CONTINUATION_RELAY, RedisContinuationRelay } from './relay.js';
import { RedisRequestStateStore } from './request-state-store.js';
import { RedisSecretRing, secretRingOptions } from './secret-ring.js';
import { RedisTaskStore } from './task-store.js';
import { redisLink, type RedisTopology } from './topology.js';

/**
 * What {@link redisCluster} connects to and how it keys and bounds what it keeps on Redis. Give
 * one of `url`, `cluster` and `sentinel`; with none, the environment decides
 * (`redisTopologyFromEnv`), else one Redis on 127.0.0.1:6379.
 */
export interface RedisClusterOptions extends RedisTopology {
  /** Bounds and expiry of the SSE events kept for resumption (`RedisEventStore`; its prefix and timeouts are the cluster's). */
  events?: LegacyStoreOptions['events'];
  /**
   * Rotate the `requestState` sealing secret automatically this often (ms; off by default, see
   * `rotateSecret()`). One instance rotates per period, whichever gets there first.
   */
  secretRotationMs?: number;
  /**
   * How long a new secret is only accepted before it seals (default 10000 ms): every instance
   * re-reads the secrets at least twice in this time, so all can open what any seals with it.
   */
  secretPropagationMs?: number;
  /**
   * How long a secret still opens states after the next one started sealing (default 11
   * minutes): at least the servers' `requestState.ttlMs` (default 10 minutes), plus clock skew.
   */
  secretRetentionMs?: number;
  /** Key and channel prefix (default 'janus:'): one per server deployment, the same on all its instances. */
  prefix?: string;
  /** How long connecting may take before `redisCluster()` rejects (default 5000 ms). */
  connectTimeoutMs?: number;
  /** How long one try of a command may wait for Redis while running (default 2000 ms). */
  commandTimeoutMs?: number;
  /**
   * How long a command goes on being tried while Redis has no primary for it, a failover under
   * way (default 10000 ms on a cluster or Sentinel; 0 on one Redis, where no replica takes over).
   * A request served meanwhile waits for the new primary; one that waited this long (plus one
   * `commandTimeoutMs`) fails as when Redis is unreachable.
   */
  failoverWaitMs?: number;
  /** Reports a lost connection (once per outage) and a failing subscriber (default: console.error). */
  onError?: (error: Error) => void;
}

/** A `Cluster` whose connections `close()` ends. */
export interface RedisCluster extends Cluster {
  /**
   * The stores on this Redis: task records (`TASK_STORE`), the proxy's continuation relay
   * (`CONTINUATION_RELAY` of janus-mcp/proxy) and, where the build has the handshake era, its
   * sessions and SSE events.
   */
  readonly stores: ClusterStores;
  /** The connection to Redis the stores share, for stores of your own (`new RedisBackplane(cluster.link)`, say). */
  readonly link: RedisLink;
  /** Closes the connections to Redis. */
  close(): Promise<void>;
  /**
   * Adds a new `requestState` sealing secret, from any instance: every instance opens with it
   * at once and seals with it `secretPropagationMs` later; states sealed with the old one open
   * for `secretRetentionMs` more. Rejects when Redis cannot be reached.
   */
  rotateSecret(): Promise<void>;
}

/**
 * Connects to Redis and returns what `createServer({ cluster })` needs so that several
 * instances behind one URL act as one server: a `subscriptions/listen` stream or legacy
 * session on any instance hears a change made on any other; a multi-round `input_required`
 * retry is accepted once on whichever instance gets it; a legacy session is served by any
 * instance, its SSE streams resume on any, and a client's answer to a server-to-client request
 * reaches the handler waiting for it wherever it is POSTed (docs/scale-out.md). The instances
 * need nothing in common but the Redis and the prefix: the sealing secrets are created in
 * Redis by the first to connect.
 *
 * The Redis is one server (`url`), a Redis Cluster (`cluster: { nodes }`) or a Sentinel-managed
 * primary (`sentinel: { sentinels, name }`); with none of them, `REDIS_URL`,
 * `REDIS_CLUSTER_NODES` or `REDIS_SENTINELS` and `REDIS_SENTINEL_NAME` decide
 * (`redisTopologyFromEnv`).
 *
 * Rejects within `connectTimeoutMs` with a `JanusError` (code 'CONNECTION') when Redis cannot
 * be reached, leaving nothing running. Once connected, a lost connection is retried by itself;
 * during a failover, commands wait up to `failoverWaitMs` for the new primary. Past that,
 * changes reach this instance's own streams, `requestState` retries get -32603, and legacy
 * sessions go on with what each instance knows of them (writes get -32603).
 *
 * ```ts
 * import { createServer } from 'janus-mcp/server';
 * import { redisCluster } from 'janus-mcp/redis';
 *
 * const cluster = await redisCluster(); // REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS
 * // or: redisCluster({ cluster: { nodes: ['10.0.0.1:6379', '10.0.0.2:6379'] } })
 * // or: redisCluster({ sentinel: { sentinels: ['10.0.0.5:26379'], name: 'mymaster' } })
 * const server = createServer({ name: 'weather', version: '1.0.0', cluster });
 * // ... serve it; on shutdown:
 * server.close();
 * await cluster.close();
 * ```
 */
export async function redisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const prefix = options.prefix ?? 'janus:';
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const commandTimeoutMs = options.commandTimeoutMs ?? 2000;
  const onError = options.onError ?? ((e: Error) => console.error('[janus-mcp/redis]', e));
  const ringOptions = secretRingOptions(prefix, commandTimeoutMs, options);

  const link = await redisLink({ ...options, connectTimeoutMs, onError });
  let ring: RedisSecretRing | undefined;
  try {
    // The first instance on an empty Redis makes the first secret, and starts the first epoch: no state was issued before it.
    ring = await RedisSecretRing.start(link, ringOptions);
    const secrets = ring;
    const backplane = new RedisBackplane(link, { prefix, commandTimeoutMs, onError, countLists: LEGACY_STORES !== undefined });
    await backplane.start();
    const stores = new ClusterStores();
    await LEGACY_STORES?.add(stores, link, { prefix, commandTimeoutMs, onError, events: options.events });
    const tasks = new RedisTaskStore(link, { prefix, commandTimeoutMs, onError });
    await tasks.start();
    stores.set(TASK_STORE, tasks);
    stores.set(CONTINUATION_RELAY, new RedisContinuationRelay(link, { prefix, commandTimeoutMs }));
    const store = new RedisRequestStateStore(link, { prefix, commandTimeoutMs, held: () => secrets.held() });
    let closing: Promise<void> | undefined;
    return {
      backplane,
      requestState: { secrets, store },
      stores,
      link,
      rotateSecret: () => secrets.rotate(),
      close: () => {
        secrets.close();
        return (closing ??= link.close());
      },
    };
  } catch (error) {
    ring?.close();
    await link.close().catch(() => undefined);
    throw error;
  }
}
