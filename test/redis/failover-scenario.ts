/**
 * A primary killed under load, and its replica promoted (docs/scale-out.md §Which Redis): two
 * instances on a Redis Cluster or a Sentinel set serve a steady stream of requests of both
 * eras while the primary holding their shared state is SIGKILLed and the topology fails over
 * by itself. Requests made meanwhile wait for the new primary (`failoverWaitMs`, 10 s) instead
 * of failing: none hangs past that bound, none is answered wrongly or refused; MRTR rounds
 * and 2025 sessions go on across the instances; listen fan-out resumes with exactly one copy
 * per change; the recovery time is reported.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { TestContext } from 'node:test';
import type { RedisCluster } from '../../src/redis/index.js';
import { createServer } from '../../src/server/index.js';
import { HttpPeer, nextMessage, type Outcome, type RawReply, type Served } from '../http-e2e/support.js';
import { MODERN, type Msg } from '../support/common.js';
import type { Failover } from '../support/redis-topologies.js';
import { delay, until } from '../support/wait.js';
import { startInstances, type ReplicatedRedis } from './support.js';

const LEGACY = '2025-11-25';
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const CAPS = { elicitation: { form: {} } };
const WATCHED = 'test://watched';
const MARKER = 'test://marker';

/** The documented bound: `failoverWaitMs` (10 s) and one `commandTimeoutMs` (2 s) for the last try. */
const FAILOVER_BOUND_MS = 12_000;
/** Past this a request hangs (the bound, plus a margin for a loaded machine). */
const REQUEST_LIMIT_MS = FAILOVER_BOUND_MS + 3000;

function define(cluster: RedisCluster) {
  const server = createServer({ name: 'failing-over', version: '1.0.0', cluster });
  server.tool('echo', { input: { type: 'object', properties: { n: { type: 'number' } } } }, (args) => `echo ${String(args.n)}`);
  server.tool('ask', async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'name' });
    return `Hello, ${String(answer.content?.name)}!`;
  });
  for (const uri of [WATCHED, MARKER]) server.resource(uri, { name: uri }, 'text');
  return server;
}

interface Tally {
  plain: number;
  mrtr: number;
  legacy: number;
  wrong: string[];
  hung: string[];
  /** The slowest request that completed, in ms, and what it was. */
  slowest: { ms: number; what: string };
  /** When the first MRTR retry and the first 2025 request sent after the kill completed. */
  mrtrBackAt?: number;
  legacyBackAt?: number;
}

async function timed(tally: Tally, what: string, request: Promise<Outcome>): Promise<Outcome> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      tally.hung.push(what);
      reject(new Error(`${what}: no answer within ${REQUEST_LIMIT_MS} ms`));
    }, REQUEST_LIMIT_MS);
  });
  try {
    const outcome = await Promise.race([request, hang]);
    const ms = performance.now() - started;
    if (ms > tally.slowest.ms) tally.slowest = { ms: Math.round(ms), what };
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

const text = (m: Msg | undefined): unknown => m?.result?.content?.[0]?.text;

/** Runs `step` until `running()` is false; an exception is a wrong answer unless the request was counted as hung. */
async function loop(tally: Tally, running: () => boolean, step: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; running(); i++) {
    try {
      await step(i);
    } catch (error) {
      const message = String(error);
      if (!tally.hung.some((h) => message.includes(h))) tally.wrong.push(message);
    }
  }
}

/** What a replicated Redis lets the scenario do: kill the primary that holds a key. */
export interface Killable extends ReplicatedRedis {
  killPrimaryOf(key: string): Promise<Failover>;
  /** A prefix whose shared keys the killed primary holds (on a cluster: their slots on one shard). */
  prefixOnOneShard(): Promise<string>;
}

export async function failoverUnderLoad(t: TestContext, redis: Killable, label: string): Promise<void> {
  const prefix = await redis.prefixOnOneShard();
  const lost: Error[] = [];
  const { instances, close } = await startInstances(2, redis.target, prefix, define, { onError: (e) => void lost.push(e) });
  const [a, b] = instances.map((i) => i.served) as [Served, Served];
  const urls = [a.url, b.url];
  const modernPeers = urls.map((u) => new HttpPeer(u, MODERN));
  const listen = async (served: Served, id: string) => {
    const peer = new HttpPeer(served.url, MODERN);
    const stream = await peer.openModern(
      'subscriptions/listen',
      { notifications: { toolsListChanged: true, resourceSubscriptions: [WATCHED, MARKER] } },
      { id },
    );
    assert.equal(stream.status, 200);
    assert.equal((await nextMessage(stream)).method, 'notifications/subscriptions/acknowledged');
    return { peer, stream };
  };
  const onA = await listen(a, 'listen-a');
  const onB = await listen(b, 'listen-b');
  // One 2025-11-25 session, initialized on A, whose requests alternate between A and B.
  const legacyOnA = new HttpPeer(a.url, LEGACY);
  await legacyOnA.initialize();
  const legacyOnB = new HttpPeer(b.url, LEGACY);
  legacyOnB.sessionId = legacyOnA.sessionId;
  const legacyPeers = [legacyOnA, legacyOnB];

  const tally: Tally = { plain: 0, mrtr: 0, legacy: 0, wrong: [], hung: [], slowest: { ms: 0, what: '' } };
  let running = true;
  let killedAt: number | undefined;
  const loops = [
    loop(
      tally,
      () => running,
      async (i) => {
        const what = `${label} plain call ${i}`;
        const o = await timed(tally, what, modernPeers[i % 2]!.modern('tools/call', { name: 'echo', arguments: { n: i } }));
        if (o.status === 200 && text(o.messages[0]) === `echo ${i}`) tally.plain++;
        else tally.wrong.push(`${what}: ${o.status} ${JSON.stringify(o.messages)}`);
      },
    ),
    ...[0, 1].map((n) =>
      loop(
        tally,
        () => running,
        async (i) => {
          const who = `caller-${n}-${i}`;
          const what = `${label} MRTR call ${who}`;
          const first = await timed(
            tally,
            `${what} round 1`,
            modernPeers[i % 2]!.modern('tools/call', { name: 'ask', arguments: {} }, { caps: CAPS }),
          );
          const round1 = first.messages[0]?.result;
          if (first.status !== 200 || round1?.resultType !== 'input_required') {
            tally.wrong.push(`${what} round 1: ${first.status} ${JSON.stringify(first.messages)}`);
            return;
          }
          const sentAt = performance.now();
          const params = {
            name: 'ask',
            arguments: {},
            inputResponses: { name: { action: 'accept', content: { name: who } } },
            requestState: round1.requestState,
          };
          const retry = await timed(tally, `${what} retry`, modernPeers[(i + 1) % 2]!.modern('tools/call', params, { caps: CAPS }));
          if (retry.status === 200 && text(retry.messages[0]) === `Hello, ${who}!`) {
            tally.mrtr++;
            if (killedAt !== undefined && sentAt >= killedAt) tally.mrtrBackAt ??= performance.now();
          } else {
            tally.wrong.push(`${what} retry: ${retry.status} ${JSON.stringify(retry.messages)}`);
          }
        },
      ),
    ),
    loop(
      tally,
      () => running,
      async (i) => {
        // A 2025 request on either instance, and a write (the log level) every third one.
        const peer = legacyPeers[i % 2]!;
        const what = `${label} 2025 request ${i}`;
        const sentAt = performance.now();
        const o =
          i % 3 === 2
            ? await timed(tally, what, peer.request('logging/setLevel', { level: i % 2 === 0 ? 'info' : 'debug' }))
            : await timed(tally, what, peer.request('tools/call', { name: 'echo', arguments: { n: i } }));
        const reply = o.messages.find((m) => m.id !== undefined);
        const ok = o.status === 200 && reply?.error === undefined && (i % 3 === 2 || text(reply) === `echo ${i}`);
        if (!ok) {
          tally.wrong.push(`${what}: ${o.status} ${JSON.stringify(o.messages)}`);
          return;
        }
        tally.legacy++;
        if (killedAt !== undefined && sentAt >= killedAt) tally.legacyBackAt ??= performance.now();
      },
    ),
  ];
  try {
    await until(() => tally.plain >= 10 && tally.mrtr >= 5 && tally.legacy >= 5, 'the load to run before the failover', 15_000);
    const before = { ...tally };

    const failover = await redis.killPrimaryOf(`{${prefix}mrtr}:secrets`);
    killedAt = performance.now();
    const { address, ms: promotedMs } = await failover.promoted;
    const [mrtrBackAt, legacyBackAt] = await Promise.all([
      until(() => tally.mrtrBackAt, 'an MRTR retry sent after the kill to complete across instances', REQUEST_LIMIT_MS * 2),
      until(() => tally.legacyBackAt, 'a 2025 request sent after the kill to complete', REQUEST_LIMIT_MS * 2),
    ]);
    // Fan-out after the failover: every change once, on both instances' streams, whichever published it.
    const probe = `test://probe-${randomUUID()}`;
    const fanOutFrom = performance.now();
    let probes = 0;
    for (;;) {
      if (updates(onA.stream, MARKER) > 0 && updates(onB.stream, MARKER) > 0) break;
      assert.ok(performance.now() - fanOutFrom < REQUEST_LIMIT_MS * 2, 'fan-out did not resume');
      b.server.resourceUpdated(MARKER);
      probes++;
      await delay(100);
    }
    // Quiet: whatever probes were in flight have arrived; from now on one change is one copy.
    await delay(500);
    const counts = [updates(onA.stream, MARKER), updates(onB.stream, MARKER)];
    b.server.tool(`added_after_failover_${probes}`, () => 'new');
    a.server.resourceUpdated(probe);
    b.server.resourceUpdated(WATCHED);
    await until(
      () => updates(onA.stream, WATCHED) === 1 && updates(onB.stream, WATCHED) === 1,
      'the change after the failover on both streams',
    );
    b.server.resourceUpdated(MARKER);
    await until(
      () => updates(onA.stream, MARKER) === counts[0]! + 1 && updates(onB.stream, MARKER) === counts[1]! + 1,
      'the marker behind it on both streams',
    );
    for (const [name, stream] of [
      ['A', onA.stream],
      ['B', onB.stream],
    ] as const) {
      assert.equal(listChanged(stream), 1, `tools/list_changed reaches ${name} exactly once`);
      assert.equal(updates(stream, WATCHED), 1, `resources/updated reaches ${name} exactly once`);
    }
    running = false;
    await Promise.all(loops);
    const during = { plain: tally.plain - before.plain, mrtr: tally.mrtr - before.mrtr, legacy: tally.legacy - before.legacy };
    t.diagnostic(
      `${label}: primary killed, ${address} promoted after ${promotedMs} ms; first MRTR retry sent after the kill done at ${Math.round(mrtrBackAt - killedAt)} ms, ` +
        `first 2025 request at ${Math.round(legacyBackAt - killedAt)} ms; slowest request ${tally.slowest.ms} ms (${tally.slowest.what})`,
    );
    t.diagnostic(
      `${label}: load ${tally.plain} plain calls, ${tally.mrtr} MRTR calls, ${tally.legacy} 2025 requests (${during.plain}, ${during.mrtr}, ${during.legacy} from the kill on); ` +
        `the cluster's onError heard ${lost.length} lost connections`,
    );
    assert.deepEqual(tally.hung, [], 'no request hangs');
    assert.deepEqual(tally.wrong, [], 'no request is refused or answered wrongly');
    assert.ok(tally.slowest.ms <= REQUEST_LIMIT_MS, `every request answered within the bound (slowest ${tally.slowest.ms} ms)`);
    assert.ok(!onA.stream.done && !onB.stream.done, 'the listen streams stay open through the failover');
    onA.peer.assertClean();
    onB.peer.assertClean();
    const reported = [a, b].flatMap((s) => s.errors.splice(0));
    assert.deepEqual(reported.map(String), [], "the servers' onError heard of nothing going wrong");
  } finally {
    running = false;
    await Promise.allSettled(loops);
    onA.stream.abort();
    onB.stream.abort();
    await close();
  }
}

const updates = (stream: RawReply, uri: string) =>
  stream.events.filter((e) => e.message?.method === 'notifications/resources/updated' && e.message.params?.uri === uri).length;
const listChanged = (stream: RawReply) => stream.events.filter((e) => e.message?.method === 'notifications/tools/list_changed').length;
