/**
 * A protected (OAuth) server on a cluster: a 2025 session belongs to whoever opened it on every
 * instance, not only on the one that opened it (its owner travels with its shared record). Two
 * instances on one Redis behind one resource URL, a real authorization server (oidc-provider).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { redisCluster, type RedisCluster } from '../../src/redis/index.js';
import { createServer } from '../../src/server/index.js';
import { serve, type Served } from '../http-e2e/support.js';
import { BearerPeer, CLIENT, OTHER_CLIENT, startAuthorizationServer, type AuthorizationServer } from '../auth/server-support.js';
import { startRedis, uniquePrefix, type RedisServer } from './support.js';

/** The one resource both instances are, as a load balancer in front of them would present it. */
const RESOURCE = 'http://mcp.cluster.test/mcp';
const REV = '2025-11-25';

let redis: RedisServer;
let as: AuthorizationServer;
before(async () => {
  redis = await startRedis();
  as = await startAuthorizationServer();
});
after(async () => {
  await as?.stop();
  await redis?.stop();
});

test("a session opened on A by one client is 404 on B for another client's valid token, and served on B for its owner", async () => {
  const prefix = uniquePrefix();
  const clusters: RedisCluster[] = [];
  const served: Served[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const cluster = await redisCluster({ url: redis.url, prefix });
      clusters.push(cluster);
      const server = createServer({ name: 'protected', version: '1.0.0', cluster });
      server.tool('whoami', (_args, ctx) => String(ctx.auth?.clientId));
      served.push(await serve(server, { auth: { issuer: as.issuer, resource: RESOURCE, scopes: ['mcp'] } }));
    }
    const [a, b] = served as [Served, Served];
    const owner = await as.token(RESOURCE, 'mcp', { client: CLIENT });
    const intruder = await as.token(RESOURCE, 'mcp', { client: OTHER_CLIENT });

    const onA = new BearerPeer(a.url, REV, owner);
    await onA.initialize();
    const stolen = new BearerPeer(b.url, REV, intruder);
    stolen.sessionId = onA.sessionId;
    // B has never served the session: it loads it from Redis, owner included.
    assert.equal((await stolen.request('tools/call', { name: 'whoami', arguments: {} })).status, 404);
    assert.equal((await stolen.send({ method: 'DELETE', headers: stolen.sessionHeaders() })).status, 404);

    const onB = new BearerPeer(b.url, REV, owner);
    onB.sessionId = onA.sessionId;
    const call = await onB.request('tools/call', { name: 'whoami', arguments: {} });
    assert.equal(call.status, 200);
    assert.equal(call.messages.at(-1)?.result?.content?.[0]?.text, CLIENT.id);
  } finally {
    for (const s of served) await s.close();
    for (const c of clusters) await c.close();
  }
});
