/**
 * A Sentinel-managed primary killed under load (failover-scenario.ts): the sentinels promote its
 * replica, and the instances follow them to it.
 */
import { test } from 'node:test';
import { failoverUnderLoad } from './failover-scenario.js';
import { startSentinel, uniquePrefix } from './support.js';

test('Sentinel: the primary killed under load; requests wait for the promoted replica, nothing fails or doubles', async (t) => {
  const redis = await startSentinel();
  try {
    await failoverUnderLoad(
      t,
      { ...redis, killPrimaryOf: () => redis.sentinel.killPrimary(), prefixOnOneShard: async () => uniquePrefix() },
      'sentinel',
    );
  } finally {
    await redis.stop();
  }
});
