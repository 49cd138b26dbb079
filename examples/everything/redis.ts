/** The everything server's shared state on Redis (`REDIS_URL`), for main.ts and the workers example. */
import type { RedisCluster } from '../../src/redis/index.js';

/**
 * A cluster on the Redis at `url`; one that cannot be reached ends the process with code 1 and
 * the reason on stderr (no stack). `janus-mcp/redis` is loaded only here, so a program that
 * never calls this loads no Redis code.
 */
export async function clusterOnRedis(url: string): Promise<RedisCluster> {
  const { redisCluster } = await import('../../src/redis/index.js');
  try {
    return await redisCluster({ url });
  } catch (e) {
    console.error(`janus-everything: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
