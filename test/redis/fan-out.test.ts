/**
 * Fan-out across instances on Redis (a listen stream on A receives a change made through B,
 * exactly once): three instances of one server on one Redis; a change made on B or
 * C reaches A's 2026-07-28 `subscriptions/listen` stream (basic/patterns/subscriptions.mdx) and
 * A's 2025-11-25 standalone GET stream (transports §Listening for Messages), once each.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { META_SUB, MODERN } from '../support/common.js';
import { HttpPeer, nextMessage, type Served } from '../http-e2e/support.js';
import { startInstances, startRedis, uniquePrefix, type RedisServer } from './support.js';
import type { RedisCluster } from '../../src/redis/index.js';

const WATCHED = 'test://watched';
const MARKER = 'test://marker';

function define(cluster: RedisCluster) {
  const server = createServer({ name: 'scaled', version: '1.0.0', cluster });
  server.tool('hello', () => 'hi');
  server.resource(WATCHED, { name: 'watched' }, 'watched text');
  server.resource(MARKER, { name: 'marker' }, 'marker text');
  return server;
}

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

test('a 2026-07-28 listen stream on A gets tools/list_changed once for a tool registered through B, and resources/updated once for resourceUpdated on C', async () => {
  const { instances, close } = await startInstances(3, redis.target, uniquePrefix(), define);
  const [a, b, c] = instances.map((i) => i.served) as [Served, Served, Served];
  const peer = new HttpPeer(a.url, MODERN);
  const listen = await peer.openModern(
    'subscriptions/listen',
    { notifications: { toolsListChanged: true, resourceSubscriptions: [WATCHED, MARKER] } },
    { id: 'listen-a' },
  );
  try {
    assert.equal(listen.status, 200);
    assert.equal((await nextMessage(listen)).method, 'notifications/subscriptions/acknowledged');

    b.server.tool('added_on_b', () => 'from b');
    assert.deepEqual(await nextMessage(listen), {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [META_SUB]: 'listen-a' } },
    });
    c.server.resourceUpdated(WATCHED);
    assert.deepEqual(await nextMessage(listen), {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: WATCHED, _meta: { [META_SUB]: 'listen-a' } },
    });
    // A later event on the same channel: a duplicate of either would have arrived before it.
    b.server.resourceUpdated(MARKER);
    assert.deepEqual((await nextMessage(listen)).params, { uri: MARKER, _meta: { [META_SUB]: 'listen-a' } });
    assert.deepEqual(
      listen.events.flatMap((e) => (e.message ? [e.message.method] : [])),
      [
        'notifications/subscriptions/acknowledged',
        'notifications/tools/list_changed',
        'notifications/resources/updated',
        'notifications/resources/updated',
      ],
    );
    peer.assertClean();
  } finally {
    listen.abort();
    await close();
  }
});

test('a 2025-11-25 session on A gets tools/list_changed on its GET stream once when B registers a tool', async () => {
  const { instances, close } = await startInstances(3, redis.target, uniquePrefix(), define);
  const [a, b, c] = instances.map((i) => i.served) as [Served, Served, Served];
  const peer = new HttpPeer(a.url, '2025-11-25');
  await peer.initialize();
  const sub = await peer.request('resources/subscribe', { uri: MARKER }, { id: 'sub' });
  assert.deepEqual(sub.messages, [{ jsonrpc: '2.0', id: 'sub', result: {} }]);
  const get = await peer.get();
  try {
    assert.equal(get.status, 200);
    assert.equal((await get.next()).data, '', 'priming event first: the stream is attached');

    b.server.tool('added_on_b', () => 'from b');
    assert.deepEqual(await nextMessage(get), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    c.server.resourceUpdated(MARKER);
    assert.deepEqual(await nextMessage(get), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: MARKER } });
    assert.deepEqual(
      get.events.flatMap((e) => (e.message ? [e.message.method] : [])),
      ['notifications/tools/list_changed', 'notifications/resources/updated'],
    );
    peer.assertClean();
  } finally {
    get.abort();
    await close();
  }
});
