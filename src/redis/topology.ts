/**
 * Which Redis a deployment runs on, from options or from the environment, and the link that
 * connects to it: one Redis by URL, a Redis Cluster by some of its nodes, or a primary that
 * Sentinel watches, by the sentinels and the primary's name.
 */
import { JanusError } from '../errors/index.js';
import type { RedisLink } from './link.js';
import { ClusterLink } from './links/cluster.js';
import { SentinelLink } from './links/sentinel.js';
import { SingleLink } from './links/single.js';

/** A Redis Cluster: some of its nodes (any one reachable is enough to discover the rest). */
export interface RedisClusterNodes {
  /** `host:port` or `redis://[user:password@]host:port` of one node or more. */
  nodes: readonly string[];
  /** Credentials of the nodes (or give them in the node URLs). */
  username?: string;
  password?: string;
}

/** A primary and its replicas, failed over by Redis Sentinel. */
export interface RedisSentinelSet {
  /** `host:port` of one sentinel or more (any one reachable is enough). */
  sentinels: readonly string[];
  /** The name the sentinels monitor the primary by (`sentinel monitor <name> …`). */
  name: string;
  /** Credentials of the Redis nodes. */
  username?: string;
  password?: string;
  /** Credentials of the sentinels, when they require their own. */
  sentinelUsername?: string;
  sentinelPassword?: string;
}

/** Where the deployment's Redis is: exactly one of the three. */
export interface RedisTopology {
  /** One Redis (or Valkey): `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. */
  url?: string;
  /** A sharded Redis Cluster (Redis 7 or later, or Valkey: publish/subscribe is sharded). */
  cluster?: RedisClusterNodes;
  /** A Sentinel-managed primary. */
  sentinel?: RedisSentinelSet;
}

/**
 * The topology the environment names: `REDIS_CLUSTER_NODES=host:port,host:port,…` (a cluster),
 * `REDIS_SENTINELS=host:port,…` with `REDIS_SENTINEL_NAME=<primary name>` (Sentinel), or
 * `REDIS_URL=redis://host:port` (one Redis); `REDIS_USERNAME` and `REDIS_PASSWORD` give the
 * nodes' credentials to the first two. Undefined when none is set. Throws, naming the variables,
 * when they contradict each other or one is missing.
 *
 * ```ts
 * const cluster = await redisCluster({ ...redisTopologyFromEnv(), prefix: 'weather:' });
 * ```
 */
export function redisTopologyFromEnv(env: Record<string, string | undefined> = process.env): RedisTopology | undefined {
  const list = (value: string | undefined) =>
    (value ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  const nodes = list(env.REDIS_CLUSTER_NODES);
  const sentinels = list(env.REDIS_SENTINELS);
  const url = env.REDIS_URL?.trim() || undefined;
  const set = [nodes.length > 0 && 'REDIS_CLUSTER_NODES', sentinels.length > 0 && 'REDIS_SENTINELS', url && 'REDIS_URL'].filter(
    (name): name is string => typeof name === 'string',
  );
  if (set.length > 1) {
    throw new JanusError('REGISTRATION', `Redis: ${set.join(' and ')} are both set; set one (a cluster, a Sentinel set or one Redis)`);
  }
  const credentials = {
    ...(env.REDIS_USERNAME ? { username: env.REDIS_USERNAME } : {}),
    ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
  };
  if (nodes.length > 0) return { cluster: { nodes, ...credentials } };
  if (sentinels.length > 0) {
    const name = env.REDIS_SENTINEL_NAME?.trim();
    if (!name) {
      throw new JanusError(
        'REGISTRATION',
        'Redis: REDIS_SENTINELS is set but REDIS_SENTINEL_NAME is not: set it to the name the sentinels monitor the primary by',
      );
    }
    return { sentinel: { sentinels, name, ...credentials } };
  }
  return url === undefined ? undefined : { url };
}

/** How long a command waits out a failover by default, where there are replicas to fail over to. */
export const DEFAULT_FAILOVER_WAIT_MS = 10_000;

export interface LinkOptions {
  connectTimeoutMs: number;
  /** Undefined: {@link DEFAULT_FAILOVER_WAIT_MS} on a cluster or Sentinel, 0 on one Redis (nothing would take over). */
  failoverWaitMs?: number;
  onError: (error: Error) => void;
}

/** Connects to the topology given (one Redis on 127.0.0.1:6379 when none is). */
export async function connectLink(topology: RedisTopology, options: LinkOptions): Promise<RedisLink> {
  const given = [topology.url !== undefined && 'url', topology.cluster && 'cluster', topology.sentinel && 'sentinel'].filter(Boolean);
  if (given.length > 1) {
    throw new JanusError('REGISTRATION', `redisCluster(): give one of url, cluster and sentinel, not ${given.join(' and ')}`);
  }
  const { connectTimeoutMs, onError } = options;
  const replicated = options.failoverWaitMs ?? DEFAULT_FAILOVER_WAIT_MS;
  if (topology.cluster) {
    const { nodes, username, password } = topology.cluster;
    if (nodes.length === 0)
      throw new JanusError('REGISTRATION', 'redisCluster(): cluster.nodes is empty: name at least one node (host:port)');
    return ClusterLink.connect({
      nodes: nodes.map(nodeUrl),
      ...(username === undefined ? {} : { username }),
      ...(password === undefined ? {} : { password }),
      connectTimeoutMs,
      failoverWaitMs: replicated,
      onError,
    });
  }
  if (topology.sentinel) {
    const { sentinels, ...rest } = topology.sentinel;
    if (sentinels.length === 0) {
      throw new JanusError('REGISTRATION', 'redisCluster(): sentinel.sentinels is empty: name at least one sentinel (host:port)');
    }
    return SentinelLink.connect({ ...rest, sentinels: sentinels.map(hostPort), connectTimeoutMs, failoverWaitMs: replicated, onError });
  }
  return SingleLink.connect({
    url: topology.url ?? 'redis://127.0.0.1:6379',
    connectTimeoutMs,
    failoverWaitMs: options.failoverWaitMs ?? 0,
    onError,
  });
}

/** A node as a URL: `host:port` becomes `redis://host:port`. */
function nodeUrl(node: string): string {
  return /^rediss?:\/\//.test(node) ? node : `redis://${node}`;
}

function hostPort(address: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(address.trim());
  if (!m) throw new JanusError('REGISTRATION', `redisCluster(): sentinel ${JSON.stringify(address)} is not host:port`);
  return { host: m[1]!, port: Number(m[2]) };
}

/** What {@link redisLink} connects to and how. */
export interface RedisLinkOptions extends RedisTopology {
  /** How long connecting may take before it rejects (default 5000 ms). */
  connectTimeoutMs?: number;
  /** How long a command waits out a failover (default 10000 ms on a cluster or Sentinel, 0 on one Redis). */
  failoverWaitMs?: number;
  /** Reports a lost connection, once per outage (default: console.error). */
  onError?: (error: Error) => void;
}

/**
 * A connection to Redis as the stores of `janus-mcp/redis` use it, for using one of them on its
 * own (`new RedisEventStore(await redisLink({ url }))`); `redisCluster()` makes its own. With no
 * `url`, `cluster` or `sentinel`, the environment decides, as for `redisCluster()`. Rejects
 * within `connectTimeoutMs` with a `JanusError` (code 'CONNECTION') naming what it could not reach.
 */
export function redisLink(options: RedisLinkOptions = {}): Promise<RedisLink> {
  const given = options.url !== undefined || options.cluster !== undefined || options.sentinel !== undefined;
  return connectLink(given ? options : (redisTopologyFromEnv() ?? {}), {
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    onError: options.onError ?? ((e: Error) => console.error('[janus-mcp/redis]', e)),
    ...(options.failoverWaitMs === undefined ? {} : { failoverWaitMs: options.failoverWaitMs }),
  });
}
