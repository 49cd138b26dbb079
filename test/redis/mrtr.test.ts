/**
 * MRTR `requestState` across instances on Redis (2026-07-28 basic/patterns/mrtr.mdx §Server
 * Requirements): a multi-round input_required call started on A completes when its
 * retries go to B and then C; replaying a used requestState on any instance is refused. The
 * instances share only the Redis URL and prefix: the sealing secret comes from Redis.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import type { RedisCluster } from '../../src/redis/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { HttpPeer } from '../http-e2e/support.js';
import { startInstances, startRedis, uniquePrefix, type RedisServer } from './support.js';

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const CAPS = { elicitation: { form: {} } };

function define(cluster: RedisCluster) {
  const server = createServer({ name: 'scaled', version: '1.0.0', cluster });
  server.tool('two_questions', async (_args, ctx) => {
    const first = await ctx.elicit({ message: 'First name?', requestedSchema: NAME }, { key: 'first' });
    const last = await ctx.elicit({ message: 'Last name?', requestedSchema: NAME }, { key: 'last' });
    return `Hello, ${String(first.content?.name)} ${String(last.content?.name)}!`;
  });
  return server;
}

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

test('a two-round input_required call started on A completes through B then C; a used requestState is refused on A, B and C', async () => {
  const { instances, close } = await startInstances(3, redis.target, uniquePrefix(), define);
  const [a, b, c] = instances.map((i) => new HttpPeer(i.served.url, MODERN));
  const call = async (peer: HttpPeer, extra: Record<string, unknown> = {}, status = 200): Promise<Msg> => {
    const o = await peer.modern('tools/call', { name: 'two_questions', arguments: {}, ...extra }, { caps: CAPS });
    assert.equal(o.status, status, JSON.stringify(o.messages));
    return o.messages[0]!;
  };
  try {
    const round1 = (await call(a!)).result;
    assert.equal(round1.resultType, 'input_required');
    assert.deepEqual(Object.keys(round1.inputRequests), ['first']);

    const round2 = (
      await call(b!, { inputResponses: { first: { action: 'accept', content: { name: 'Ada' } } }, requestState: round1.requestState })
    ).result;
    assert.equal(round2.resultType, 'input_required', JSON.stringify(round2));
    assert.deepEqual(Object.keys(round2.inputRequests), ['last']);

    const done = await call(c!, {
      inputResponses: { last: { action: 'accept', content: { name: 'Lovelace' } } },
      requestState: round2.requestState,
    });
    assert.deepEqual(done.result?.content, [{ type: 'text', text: 'Hello, Ada Lovelace!' }], JSON.stringify(done));

    for (const [peer, state, answer] of [
      [a!, round1.requestState, { first: { action: 'accept', content: { name: 'Eve' } } }],
      [b!, round1.requestState, { first: { action: 'accept', content: { name: 'Eve' } } }],
      [c!, round1.requestState, { first: { action: 'accept', content: { name: 'Eve' } } }],
      [a!, round2.requestState, { last: { action: 'accept', content: { name: 'Eve' } } }],
    ] as const) {
      // The server answers a refused requestState (-32602) with HTTP 400.
      const replay = await call(peer, { inputResponses: answer, requestState: state }, 400);
      assert.equal(replay.error?.code, -32602, JSON.stringify(replay));
      assert.match(replay.error.message, /already used/);
    }
    for (const p of [a!, b!, c!]) p.assertClean();
  } finally {
    await close();
  }
});
