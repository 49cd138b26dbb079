/**
 * Which Redis the environment names (`redisTopologyFromEnv`): one Redis, a Redis Cluster or a
 * Sentinel set, and the errors a wrong combination gets.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redisCluster, redisTopologyFromEnv } from '../../src/redis/index.js';
import { freePort } from '../support/example-process.js';

test('REDIS_URL names one Redis; REDIS_CLUSTER_NODES a cluster; REDIS_SENTINELS with REDIS_SENTINEL_NAME a Sentinel set; none, nothing', () => {
  assert.deepEqual(redisTopologyFromEnv({ REDIS_URL: 'redis://10.0.0.1:6379' }), { url: 'redis://10.0.0.1:6379' });
  assert.deepEqual(redisTopologyFromEnv({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, 10.0.0.2:7000,' }), {
    cluster: { nodes: ['10.0.0.1:7000', '10.0.0.2:7000'] },
  });
  assert.deepEqual(
    redisTopologyFromEnv({ REDIS_SENTINELS: '10.0.0.5:26379,10.0.0.6:26379', REDIS_SENTINEL_NAME: 'main', REDIS_PASSWORD: 's3cret' }),
    { sentinel: { sentinels: ['10.0.0.5:26379', '10.0.0.6:26379'], name: 'main', password: 's3cret' } },
  );
  assert.equal(redisTopologyFromEnv({}), undefined);
  assert.equal(redisTopologyFromEnv({ REDIS_URL: '  ' }), undefined);
});

test('contradicting or incomplete variables are refused, naming them', () => {
  assert.throws(
    () => redisTopologyFromEnv({ REDIS_URL: 'redis://a:1', REDIS_CLUSTER_NODES: 'b:2' }),
    /REDIS_CLUSTER_NODES and REDIS_URL are both set; set one/,
  );
  assert.throws(() => redisTopologyFromEnv({ REDIS_SENTINELS: 'a:26379' }), /REDIS_SENTINEL_NAME is not/);
});

test('redisCluster refuses two topologies at once, and a sentinel that is not host:port, before connecting', async () => {
  await assert.rejects(
    redisCluster({ url: 'redis://127.0.0.1:1', cluster: { nodes: ['127.0.0.1:2'] } }),
    /give one of url, cluster and sentinel/,
  );
  await assert.rejects(redisCluster({ sentinel: { sentinels: ['nowhere'], name: 'main' } }), /sentinel "nowhere" is not host:port/);
  await assert.rejects(redisCluster({ cluster: { nodes: [] } }), /cluster.nodes is empty/);
});

test('a cluster or Sentinel set that cannot be reached is refused within connectTimeoutMs, naming it, and leaves nothing running', async () => {
  const port = await freePort();
  const started = Date.now();
  await assert.rejects(redisCluster({ cluster: { nodes: [`127.0.0.1:${port}`] }, connectTimeoutMs: 1500 }), (e: Error) =>
    e.message.startsWith(`Cannot reach the Redis Cluster redis://127.0.0.1:${port}`),
  );
  await assert.rejects(redisCluster({ sentinel: { sentinels: [`127.0.0.1:${port}`], name: 'main' }, connectTimeoutMs: 1500 }), (e: Error) =>
    e.message.startsWith(`Cannot reach the Redis primary 'main' of Sentinel 127.0.0.1:${port}`),
  );
  assert.ok(Date.now() - started < 6000, `took ${Date.now() - started} ms`);
});
