/**
 * `janus-mcp/redis`: several instances of one server behind one URL, sharing what must be
 * shared on Redis, a Redis Cluster or a Sentinel-managed primary (docs/scale-out.md): registry changes and resource updates reach every
 * instance's legacy sessions and `subscriptions/listen` streams; MRTR `requestState` is
 * sealed with shared secrets (rotated without a restart) and accepted once across all of them;
 * legacy (2025 Streamable HTTP) sessions, their SSE streams and their server-to-client
 * requests are served by any instance; a task (tasks extension) is read, updated and
 * cancelled through any instance.
 *
 * ```ts
 * import { createServer } from 'janus-mcp/server';
 * import { redisCluster } from 'janus-mcp/redis';
 *
 * const cluster = await redisCluster({ url: 'redis://127.0.0.1:6379' });
 * const server = createServer({ name: 'weather', version: '1.0.0', cluster });
 * ```
 *
 * Needs `redis` (node-redis, an optional peer dependency); nothing else in janus-mcp imports
 * this entry or `redis`, so programs that do not use it load neither.
 *
 * @module janus-mcp/redis
 */
export { redisCluster } from './cluster.js';
export type { RedisClusterOptions, RedisCluster } from './cluster.js';
export { redisLink, redisTopologyFromEnv } from './topology.js';
export type { RedisTopology, RedisClusterNodes, RedisSentinelSet, RedisLinkOptions } from './topology.js';
export type { RedisLink } from './link.js';
export { RedisBackplane } from './backplane.js';
export type { RedisBackplaneOptions } from './backplane.js';
export { RedisRequestStateStore } from './request-state-store.js';
export type { RedisRequestStateStoreOptions } from './request-state-store.js';
export { RedisSecretRing } from './secret-ring.js';
export type { RedisSecretRingOptions } from './secret-ring.js';
export { RedisEventStore, RedisSessionStore } from './eras.js';
export type { RedisEventStoreOptions, RedisSessionStoreOptions } from './eras.js';
export { RedisTaskStore } from './task-store.js';
export type { RedisTaskStoreOptions } from './task-store.js';
