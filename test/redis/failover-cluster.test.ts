/**
 * A Redis Cluster's primary killed under load (failover-scenario.ts): the shard holding the
 * deployment's shared keys (the sealing secrets, the one-time-use records, the list counters and
 * the events channel) loses its primary to SIGKILL and the cluster promotes its replica by itself.
 */
import { test } from 'node:test';
import { failoverUnderLoad } from './failover-scenario.js';
import { startCluster, uniquePrefix } from './support.js';

test('Redis Cluster: the primary of the shared keys killed under load; requests wait for its replica, nothing fails or doubles', async (t) => {
  const redis = await startCluster();
  try {
    await failoverUnderLoad(
      t,
      {
        ...redis,
        killPrimaryOf: (key) => redis.cluster.killPrimary({ key }),
        async prefixOnOneShard() {
          // The secrets and the events channel on one shard: killing it tests both at once.
          for (;;) {
            const prefix = uniquePrefix();
            const [secrets, events] = await Promise.all([
              redis.cluster.primaryFor(`{${prefix}mrtr}:secrets`),
              redis.cluster.primaryFor(`{${prefix}registry}:events`),
            ]);
            if (secrets === events) return prefix;
          }
        },
      },
      'cluster',
    );
  } finally {
    await redis.stop();
  }
});
