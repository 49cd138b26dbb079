/**
 * A `Cluster` on Redis (DESIGN.md §Scale-out): two connections (commands, and the subscribed
 * one the backplane needs), the fan-out channel, the one-time-use records and the
 * `requestState` sealing secret, all under one prefix.
 */
import type { Cluster } from '../server/index.js';
import { RedisBackplane } from './backplane.js';
import { closeRedis, connectRedis, type RedisConnection } from './connect.js';
import { epochKey, RedisRequestStateStore, secretKey } from './request-state-store.js';

export interface RedisClusterOptions {
  /** The Redis server (default `process.env.REDIS_URL`, else 'redis://127.0.0.1:6379'). */
  url?: string;
  /** Key and channel prefix (default 'janus:'): one per server deployment, the same on all its instances. */
  prefix?: string;
  /** How long connecting may take before `redisCluster()` rejects (default 5000 ms). */
  connectTimeoutMs?: number;
  /** How long one command may wait for Redis while running (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Reports a lost connection (once per outage) and a failing subscriber (default: console.error). */
  onError?: (error: Error) => void;
}

/** A `Cluster` whose connections `close()` ends. */
export interface RedisCluster extends Cluster {
  /** Quits both Redis connections. */
  close(): Promise<void>;
}

/** 32 random bytes, base64url: what the first instance to connect leaves for all the others. */
function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/**
 * Connects to Redis and returns what `createServer({ cluster })` needs so that several
 * instances behind one URL act as one server: a `subscriptions/listen` stream or legacy
 * session on any instance hears a change made on any other, and a multi-round
 * `input_required` retry is accepted once on whichever instance gets it. The instances need
 * nothing in common but the Redis URL and the prefix: the sealing secret is created in Redis
 * by the first to connect.
 *
 * Rejects within `connectTimeoutMs` with a `JanusError` (code 'CONNECTION') when Redis cannot
 * be reached, leaving nothing running. Once connected, a lost connection is retried by itself;
 * meanwhile changes reach this instance's own streams and `requestState` retries get -32603.
 *
 * ```ts
 * import { createServer } from 'janus-mcp/server';
 * import { redisCluster } from 'janus-mcp/redis';
 *
 * const cluster = await redisCluster({ url: process.env.REDIS_URL });
 * const server = createServer({ name: 'weather', version: '1.0.0', cluster });
 * // ... serve it; on shutdown:
 * server.close();
 * await cluster.close();
 * ```
 */
export async function redisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = options.prefix ?? 'janus:';
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const commandTimeoutMs = options.commandTimeoutMs ?? 2000;
  const onError = options.onError ?? ((e: Error) => console.error('[janus-mcp/redis]', e));

  const publisher = await connectRedis({ url, connectTimeoutMs, role: 'command', onError });
  let subscriber: RedisConnection | undefined;
  try {
    subscriber = await connectRedis({ url, connectTimeoutMs, role: 'subscriber', onError });
    const key = secretKey(prefix);
    // The first instance on an empty Redis makes the secret, and starts the first epoch: no state was issued before it.
    if ((await publisher.set(key, randomSecret(), { condition: 'NX' })) === 'OK') await publisher.set(epochKey(prefix), String(Date.now()));
    const secret = await publisher.get(key);
    if (!secret) throw new Error(`${key} is empty in Redis`);
    const backplane = new RedisBackplane(publisher, subscriber, { channel: `${prefix}events`, commandTimeoutMs, onError });
    await backplane.start();
    const store = new RedisRequestStateStore(publisher, { prefix, commandTimeoutMs, secret });
    const connections = [publisher, subscriber];
    let closing: Promise<void> | undefined;
    return {
      backplane,
      requestState: { secrets: [secret], store },
      close: () => (closing ??= Promise.all(connections.map(closeRedis)).then(() => undefined)),
    };
  } catch (error) {
    await Promise.all([publisher, subscriber].map((c) => (c ? closeRedis(c).catch(() => c.destroy()) : undefined)));
    throw error;
  }
}
