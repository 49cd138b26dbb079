/**
 * RedisEventStore on a real redis-server (legacy SSE streams resumable on any
 * instance; 2025-11-25 transports §Resumability and Redelivery): the EventStore contract as
 * InMemoryEventStore keeps it, across two connections standing for two server instances,
 * under a Redis that is killed or stops answering, and end to end over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { JsonRpcMessage } from '../../src/protocol/index.js';
import { RedisEventStore, redisLink, type RedisEventStoreOptions, type RedisLink } from '../../src/redis/index.js';
import { closeRedis, connectRedis, type RedisConnection } from '../../src/redis/connect.js';
import { createServer } from '../../src/server/index.js';
import type { EventStore } from '../../src/transports/http/index.js';
import { deferred, until } from '../support/wait.js';
import { HttpPeer, rpc, serve } from '../http-e2e/support.js';
import { startRedis, uniquePrefix, type RedisServer } from './support.js';

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'n', params: { n } });
const numberOf = (m: JsonRpcMessage) => (m as unknown as { params: { n: number } }).params.n;

/** Every id this store issues through Redis: `<streamId>#<epoch>-<seq>`. */
const STORED_ID = /^(.+)#[0-9a-f]{8}-\d+$/;

async function replay(store: RedisEventStore, after: string) {
  const got: Array<[string, JsonRpcMessage]> = [];
  const stream = await store.replayAfter(after, (id, m) => got.push([id, m]));
  return { stream, ids: got.map(([id]) => id), numbers: got.map(([, m]) => numberOf(m)) };
}

/** A plain connection, to look at what the store wrote. */
const connect = (url: string, onError: (e: Error) => void = () => undefined): Promise<RedisConnection> =>
  connectRedis({ url, connectTimeoutMs: 2000, role: 'command', onError });
/** What a store runs on. */
const linkTo = (url: string): Promise<RedisLink> => redisLink({ url, connectTimeoutMs: 2000, onError: () => undefined });

describe('RedisEventStore: the EventStore contract', () => {
  let redis: RedisServer;
  let conn: RedisConnection;
  let link: RedisLink;
  let other: RedisLink;
  const store = (options: RedisEventStoreOptions = {}) => new RedisEventStore(link, { prefix: uniquePrefix(), ...options });
  const keysUnder = (prefix: string) => conn.keys(`${prefix}*`);

  before(async () => {
    redis = await startRedis();
    conn = await connect(redis.url);
    link = await linkTo(redis.url);
    other = await linkTo(redis.url);
  });
  after(async () => {
    await closeRedis(conn);
    await link.close();
    await other.close();
    await redis.stop();
  });

  it("is janus-mcp/http's EventStore", () => {
    const asHttp: EventStore = store();
    assert.equal(typeof asHttp.deleteStreams, 'function');
  });

  it('replays the later events of the same stream in order, skipping the priming event; ids are unique and name their stream', async () => {
    const s = store();
    const prime = await s.append('a', undefined);
    const ids = [prime];
    for (let n = 1; n <= 4; n++) {
      ids.push(await s.append('a', note(n)));
      ids.push(await s.append('b', note(10 + n)));
    }
    ids.push(await s.append('a', undefined)); // a reconnected standalone stream primes again
    ids.push(await s.append('a', note(5)));
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, STORED_ID);
    const ofA = [0, 1, 3, 5, 7, 9, 10].map((i) => ids[i]!);
    assert.ok(ofA.every((id) => id.startsWith('a#')));

    const all = await replay(s, prime);
    assert.equal(all.stream, 'a');
    assert.deepEqual(all.numbers, [1, 2, 3, 4, 5], 'priming events are not replayed, nor are the events of b');
    assert.deepEqual(all.ids, [ids[1], ids[3], ids[5], ids[7], ids[10]], 'replayed under the ids append returned');

    const middle = await replay(s, ids[3]!); // after a2
    assert.deepEqual([middle.stream, middle.numbers], ['a', [3, 4, 5]]);
    assert.deepEqual((await replay(s, ids[10]!)).numbers, [], 'after the last: the stream, nothing to replay');
    assert.deepEqual((await replay(s, ids[2]!)).numbers, [12, 13, 14]);
  });

  it('keeps the last maxEventsPerStream events of a stream, the oldest dropped first (default 1000)', async () => {
    const s = store({ maxEventsPerStream: 3 });
    const prime = await s.append('a', undefined); // a priming event counts as an event
    for (let n = 1; n <= 4; n++) await s.append('a', note(n));
    assert.deepEqual((await replay(s, prime)).numbers, [2, 3, 4]);

    const byDefault = store();
    const first = await byDefault.append('a', undefined);
    for (let n = 1; n <= 1001; n++) await byDefault.append('a', note(n));
    const kept = (await replay(byDefault, first)).numbers;
    assert.deepEqual([kept.length, kept[0], kept.at(-1)], [1000, 2, 1001]);
  });

  it('keeps at most maxBytesPerStream bytes of UTF-8 JSON, the oldest dropped first; a larger event is sent but not kept', async () => {
    const size = Buffer.byteLength(JSON.stringify(note(1)));
    const s = store({ maxBytesPerStream: 2 * size });
    const prime = await s.append('a', undefined);
    for (let n = 1; n <= 4; n++) await s.append('a', note(n));
    assert.deepEqual((await replay(s, prime)).numbers, [3, 4]);

    // Bytes, not UTF-16 units: one 'é' is 2 bytes, so this fits in 2 × size characters but not bytes.
    const accents = { jsonrpc: '2.0', method: 'n', params: { n: 5, t: 'é'.repeat(size - 10) } } as JsonRpcMessage;
    assert.ok(JSON.stringify(accents).length <= 2 * size && Buffer.byteLength(JSON.stringify(accents)) > 2 * size);
    const big = await s.append('a', accents);
    assert.match(big, STORED_ID, 'a stream id and cursor all the same');
    assert.deepEqual(await replay(s, prime), { stream: 'a', ids: [], numbers: [] }, 'nothing before it is kept either');
    await s.append('a', note(6));
    assert.deepEqual((await replay(s, big)).numbers, [6]);
  });

  it('a stream not appended to for ttlMs expires in Redis; every append refreshes it', async () => {
    const prefix = uniquePrefix();
    const s = new RedisEventStore(link, { prefix, ttlMs: 300 });
    const first = await s.append('x', note(1));
    const key = `${prefix}sse:x`;
    assert.ok((await conn.pTTL(key)) > 0);
    await until(async () => (await conn.pTTL(key)) < 200, 'the TTL to run down');
    await s.append('x', note(2));
    assert.ok((await conn.pTTL(key)) > 200, 'the append refreshed it');
    await until(async () => (await conn.exists(key)) === 0, 'the key to expire', 5000);
    assert.equal((await replay(s, first)).stream, undefined);
    assert.deepEqual(await keysUnder(prefix), []);
  });

  it('deleteStreams removes the streams at once and nothing else', async () => {
    const prefix = uniquePrefix();
    const s = new RedisEventStore(link, { prefix });
    const a = await s.append('s.0', note(1));
    const b = await s.append('s.1', note(1));
    const c = await s.append('t.0', note(1));
    await s.deleteStreams(['s.0', 's.1', 's.2']);
    assert.deepEqual(
      [(await replay(s, a)).stream, (await replay(s, b)).stream, (await replay(s, c)).stream],
      [undefined, undefined, 't.0'],
    );
    assert.deepEqual(await keysUnder(prefix), [`${prefix}sse:t.0`]);
  });

  it('unknown, malformed, foreign, local or future ids replay nothing', async () => {
    const s = store();
    const id = await s.append('a', note(1));
    const [, epoch] = /#([0-9a-f]{8})-/.exec(id)!;
    const foreign = await store().append('a', note(1)); // same stream id, another prefix
    for (const bad of ['nope', 'a#', 'a#x', 'a#1', `a#${epoch}-`, `a#${epoch}-x`, `a#${epoch}-2`, `b#${epoch}-1`, 'a#L1', foreign]) {
      assert.equal((await replay(s, bad)).stream, undefined, bad);
    }
    assert.equal((await replay(s, `a#${epoch}-1`)).stream, 'a');
  });

  it('a stream deleted (or expired) and written again issues new ids: an old cursor replays none of its events', async () => {
    const s = store();
    const old = [await s.append('a', note(1)), await s.append('a', note(2))];
    await s.deleteStreams(['a']);
    const again = [await s.append('a', note(3)), await s.append('a', note(4)), await s.append('a', note(5))];
    assert.equal(new Set([...old, ...again]).size, 5);
    assert.equal((await replay(s, old[0]!)).stream, undefined);
    assert.deepEqual((await replay(s, again[0]!)).numbers, [4, 5]);
  });

  it('two instances appending to one stream, interleaved or at once: unique ids, one order, replayed whole from either', async () => {
    const prefix = uniquePrefix();
    const a = new RedisEventStore(link, { prefix });
    const b = new RedisEventStore(other, { prefix });
    const prime = await a.append('g.0', undefined);
    const ids: string[] = [];
    for (let n = 1; n <= 6; n++) ids.push(await (n % 2 ? a : b).append('g.0', note(n)));
    assert.equal(new Set(ids).size, 6);
    for (const s of [a, b]) assert.deepEqual(await replay(s, prime), { stream: 'g.0', ids, numbers: [1, 2, 3, 4, 5, 6] });
    assert.deepEqual((await replay(b, ids[2]!)).numbers, [4, 5, 6], 'after an id the other instance issued');

    const together = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).append('g.0', note(100 + i))));
    assert.equal(new Set(together).size, 40);
    const fromA = await replay(a, ids[5]!);
    const fromB = await replay(b, ids[5]!);
    assert.deepEqual(fromA, fromB);
    assert.deepEqual(fromA.ids.toSorted(), together.toSorted(), 'every event once');
    const seqs = fromA.ids.map((id) => Number(id.slice(id.lastIndexOf('-') + 1)));
    assert.deepEqual(
      seqs,
      seqs.toSorted((x, y) => x - y),
      'in the order Redis numbered them',
    );
  });

  it('the key count stays bounded: one key per live stream, none once the streams are deleted', async () => {
    const prefix = uniquePrefix();
    const s = new RedisEventStore(link, { prefix });
    const streams = Array.from({ length: 200 }, (_, i) => `session-${i % 20}.${Math.floor(i / 20)}`);
    for (const id of streams) {
      await s.append(id, undefined);
      for (let n = 0; n < 3; n++) await s.append(id, note(n));
    }
    assert.equal((await keysUnder(prefix)).length, 200);
    for (let i = 0; i < 20; i++) await s.deleteStreams(streams.filter((id) => id.startsWith(`session-${i}.`)));
    assert.deepEqual(await keysUnder(prefix), []);
  });
});

describe('RedisEventStore when Redis fails', () => {
  let redis: RedisServer;
  let link: RedisLink;

  before(async () => {
    redis = await startRedis();
    link = await linkTo(redis.url);
  });
  after(async () => {
    process.kill(redis.pid, 'SIGCONT'); // in case a failed test left it stopped
    await link.close();
    await redis.stop();
  });

  it('Redis killed: append still gives an id (once reported), replay rejects saying so; after a restart both work again', async () => {
    const errors: Error[] = [];
    const s = new RedisEventStore(link, { prefix: uniquePrefix(), onError: (e) => errors.push(e) });
    const before = await s.append('k.0', note(1));
    assert.match(before, STORED_ID);

    await redis.kill();
    const during = [await s.append('k.0', note(2)), await s.append('k.0', undefined), await s.append('k.1', note(3))];
    assert.deepEqual(during, ['k.0#L1', 'k.0#L2', 'k.1#L3'], 'ids of their streams, unique, that resume nothing');
    assert.equal(errors.length, 1, `one report for the outage: ${errors.map((e) => e.message).join('; ')}`);
    assert.match(errors[0]!.message, /event store, Redis, is unavailable/);
    await assert.rejects(
      s.replayAfter(before, () => assert.fail('nothing to replay')),
      /the event store \(Redis\) is unavailable/,
    );
    await s.deleteStreams(['k.0']); // does not reject: the keys would expire

    await redis.restart();
    // Back once an append reaches Redis again (the command connection reconnects by itself).
    const back = await until(
      async () => {
        const id = await s.append('k.0', note(4));
        return STORED_ID.test(id) && id;
      },
      'appends to reach Redis again',
      10_000,
    );
    await s.append('k.0', note(5));
    assert.deepEqual((await replay(s, back)).numbers, [5]);
    assert.equal((await replay(s, before)).stream, undefined, 'the Redis restarted empty: the old cursor is unknown');
    assert.equal(errors.length, 1);
  });

  // Without a deadline of its own the append would wait forever: the test's timeout fails it instead.
  it('Redis not answering: append gives a local id after commandTimeoutMs, replay rejects; both work once it answers', {
    timeout: 10_000,
  }, async () => {
    const errors: Error[] = [];
    const s = new RedisEventStore(link, { prefix: uniquePrefix(), commandTimeoutMs: 100, onError: (e) => errors.push(e) });
    const first = await s.append('t.0', note(1));
    assert.match(first, STORED_ID, 'stored while Redis answers');
    const pid = redis.pid;
    process.kill(pid, 'SIGSTOP');
    try {
      assert.match(await s.append('t.0', note(2)), /^t\.0#L\d+$/);
      assert.equal(errors.length, 1);
      await assert.rejects(
        s.replayAfter(first, () => undefined),
        /the event store \(Redis\) is unavailable/,
      );
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const third = await until(async () => {
      const id = await s.append('t.0', note(3));
      return STORED_ID.test(id) && id;
    }, 'appends to reach Redis again');
    const got = await replay(s, first);
    assert.equal(got.stream, 't.0');
    assert.equal(got.ids.at(-1), third);
  });
});

test('end to end, one instance: a 2025-11-25 client drops the POST stream after its first notification and resumes it with GET + Last-Event-ID from Redis', async () => {
  const redis = await startRedis();
  const conn = await connect(redis.url);
  const link = await linkTo(redis.url);
  const release = deferred();
  const server = createServer({ name: 'resumable', version: '1.0.0' });
  server.tool('steps', async (_args, ctx) => {
    ctx.progress(1, 3);
    ctx.progress(2, 3);
    await release.promise;
    ctx.progress(3, 3);
    return 'done';
  });
  const prefix = uniquePrefix();
  const s = await serve(server, { eventStore: new RedisEventStore(link, { prefix }) });
  try {
    const peer = new HttpPeer(s.url, '2025-11-25');
    await peer.initialize();
    const post = await peer.open(rpc(5, 'tools/call', { name: 'steps', arguments: {}, _meta: { progressToken: 'p' } }));
    const priming = await post.next();
    assert.equal(priming.data, '');
    const first = await post.next();
    assert.equal(first.message?.params?.progress, 1);
    assert.match(first.id!, STORED_ID, 'the event id comes from Redis');
    post.abort();

    const resumed = await peer.get({ 'last-event-id': first.id });
    assert.equal(resumed.status, 200);
    const second = await resumed.next();
    assert.equal(second.message?.params?.progress, 2);
    release.resolve();
    const rest = [second, ...(await resumed.rest())];
    const result = { content: [{ type: 'text', text: 'done' }] };
    assert.deepEqual(
      rest.map((e) => e.message?.params?.progress ?? e.message?.result),
      [2, 3, result],
      'the rest and the result, each once',
    );
    const ids = rest.map((e) => e.id!);
    for (const id of ids) assert.equal(STORED_ID.exec(id)?.[1], STORED_ID.exec(first.id!)?.[1], `${id} is on the POST's stream`);
    assert.equal(new Set([priming.id, first.id, ...ids]).size, 5);

    // The stream is complete: resuming it again replays it from Redis alone, then ends.
    const again = await peer.get({ 'last-event-id': first.id });
    const replayed = await again.rest();
    assert.deepEqual(
      replayed.map((e) => [e.id, e.message?.params?.progress ?? e.message?.result]),
      [
        [ids[0], 2],
        [ids[1], 3],
        [ids[2], result],
      ],
    );
    peer.assertClean();
    assert.equal((await peer.send({ method: 'DELETE', headers: peer.sessionHeaders() })).status, 200);
    await until(async () => (await conn.keys(`${prefix}*`)).length === 0, "the session's streams to be deleted from Redis");
  } finally {
    release.resolve();
    await s.close();
    await closeRedis(conn);
    await link.close();
    await redis.stop();
  }
});
