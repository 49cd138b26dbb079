/**
 * Redis lost and back under load (docs/scale-out.md §Failure
 * behaviour): two instances on one redis-server serve a steady stream of 2026-07-28 requests
 * while Redis is killed, kept down, and restarted empty on the same port. No request hangs;
 * none is answered wrongly (a plain tool call never needs Redis; an MRTR retry crossing
 * instances either completes or gets -32603 "retry later"); a change stays local meanwhile;
 * fan-out across instances resumes, once per change; the recovery times are reported.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import type { RedisCluster } from '../../src/redis/index.js';
import { META_SUB, MODERN, type Msg } from '../support/common.js';
import { delay, until } from '../support/wait.js';
import { HttpPeer, nextMessage, type Outcome, type RawReply, type Served } from '../http-e2e/support.js';
import { startInstances, startRedis, uniquePrefix, type RedisServer } from './support.js';

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const CAPS = { elicitation: { form: {} } };
const WATCHED = 'test://watched';
const MARKER = 'test://marker';
const LOCAL = 'test://local-while-down';

/** Longer than anything Redis-bound may take (commandTimeoutMs is 2 s): a request past it hangs. */
const REQUEST_LIMIT_MS = 10_000;
/** How long Redis stays down once the outage has been seen by the load. */
const OUTAGE_MS = 1000;
/** Generous: node-redis retries at most every 2 s. */
const RECOVERY_LIMIT_MS = 15_000;
/** How often a fan-out probe is published from B until A's stream hears one. */
const PROBE_EVERY_MS = 100;

function define(cluster: RedisCluster) {
  const server = createServer({ name: 'scaled', version: '1.0.0', cluster });
  server.tool('echo', { input: { type: 'object', properties: { n: { type: 'number' } } } }, (args) => `echo ${String(args.n)}`);
  server.tool('ask', async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'name' });
    return `Hello, ${String(answer.content?.name)}!`;
  });
  for (const uri of [WATCHED, MARKER, LOCAL]) server.resource(uri, { name: uri }, 'text');
  return server;
}

/** What the load saw. */
interface Tally {
  plain: number;
  mrtrDone: number;
  /** Retries refused with -32603 "retry later" (Redis down). */
  mrtrRefused: number;
  /** Retries refused with -32602 as issued before Redis lost its records (the new epoch). */
  mrtrStale: number;
  wrong: string[];
  hung: string[];
  /** When the first MRTR retry sent after the restart completed (performance.now()). */
  mrtrBackAt?: number;
}

/** `request`, or a record in `tally.hung` (and a rejection) when it takes longer than REQUEST_LIMIT_MS. */
async function bounded(tally: Tally, what: string, request: Promise<Outcome>): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      tally.hung.push(what);
      reject(new Error(`${what}: no answer within ${REQUEST_LIMIT_MS} ms`));
    }, REQUEST_LIMIT_MS);
  });
  try {
    return await Promise.race([request, hang]);
  } finally {
    clearTimeout(timer);
  }
}

const text = (m: Msg | undefined): unknown => m?.result?.content?.[0]?.text;

/** A plain tool call, alternately on A and B: Redis is never needed for it. */
async function plainLoop(urls: readonly URL[], tally: Tally, running: () => boolean, loop: number): Promise<void> {
  const peers = urls.map((u) => new HttpPeer(u, MODERN));
  for (let i = 0; running(); i++) {
    const n = loop * 1_000_000 + i;
    const what = `plain call ${n}`;
    try {
      const o = await bounded(tally, what, peers[i % 2]!.modern('tools/call', { name: 'echo', arguments: { n } }));
      if (o.status === 200 && text(o.messages[0]) === `echo ${n}`) tally.plain++;
      else tally.wrong.push(`${what}: ${o.status} ${JSON.stringify(o.messages)}`);
    } catch (error) {
      if (!tally.hung.includes(what)) tally.wrong.push(`${what}: ${String(error)}`);
    }
  }
}

/** Round 1 on one instance, the retry on the other: the retry needs Redis (one-time use). */
async function mrtrLoop(urls: readonly URL[], tally: Tally, running: () => boolean, loop: number, restartedAt: () => number | undefined) {
  const peers = urls.map((u) => new HttpPeer(u, MODERN));
  for (let i = 0; running(); i++) {
    const who = `caller-${loop}-${i}`;
    const what = `MRTR call ${who}`;
    try {
      const first = await bounded(
        tally,
        `${what} round 1`,
        peers[i % 2]!.modern('tools/call', { name: 'ask', arguments: {} }, { caps: CAPS }),
      );
      // Recovered before this call began: its state comes after the new epoch and must never be stale.
      const afterRecovery = tally.mrtrBackAt !== undefined;
      const round1 = first.messages[0]?.result;
      if (first.status !== 200 || round1?.resultType !== 'input_required' || typeof round1.requestState !== 'string') {
        tally.wrong.push(`${what} round 1: ${first.status} ${JSON.stringify(first.messages)}`);
        continue;
      }
      const sentAt = performance.now();
      const retry = await bounded(
        tally,
        `${what} retry`,
        peers[(i + 1) % 2]!.modern(
          'tools/call',
          {
            name: 'ask',
            arguments: {},
            inputResponses: { name: { action: 'accept', content: { name: who } } },
            requestState: round1.requestState,
          },
          { caps: CAPS },
        ),
      );
      const reply = retry.messages[0];
      if (retry.status === 200 && text(reply) === `Hello, ${who}!` && reply?.result?.resultType !== 'input_required') {
        tally.mrtrDone++;
        const restart = restartedAt();
        if (restart !== undefined && sentAt >= restart) tally.mrtrBackAt ??= performance.now();
      } else if (reply?.error?.code === -32603 && /retry later/.test(String(reply.error.message))) {
        tally.mrtrRefused++;
      } else if (!afterRecovery && reply?.error?.code === -32602 && /lost its records/.test(String(reply.error.message))) {
        // Issued before the restarted Redis started a new epoch: its single use cannot be checked.
        tally.mrtrStale++;
      } else {
        tally.wrong.push(`${what} retry: ${retry.status} ${JSON.stringify(retry.messages)}`);
      }
    } catch (error) {
      if (!tally.hung.some((h) => h.startsWith(what))) tally.wrong.push(`${what}: ${String(error)}`);
    }
  }
}

/** The `resources/updated` notifications for `uri` that a listen stream has received so far. */
const updates = (stream: RawReply, uri: string) =>
  stream.events.filter((e) => e.message?.method === 'notifications/resources/updated' && e.message.params?.uri === uri).length;
const listChanged = (stream: RawReply) => stream.events.filter((e) => e.message?.method === 'notifications/tools/list_changed').length;

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

test('Redis killed and restarted under load: no request hangs or is answered wrongly, fan-out resumes once per change, recovery times reported', async (t) => {
  const lost: Error[] = [];
  const { instances, close } = await startInstances(2, redis.url, uniquePrefix(), define, { onError: (e) => void lost.push(e) });
  const [a, b] = instances.map((i) => i.served) as [Served, Served];
  const urls = [a.url, b.url];
  const listen = async (served: Served, id: string) => {
    const peer = new HttpPeer(served.url, MODERN);
    const stream = await peer.openModern(
      'subscriptions/listen',
      { notifications: { toolsListChanged: true, resourceSubscriptions: [WATCHED, MARKER, LOCAL] } },
      { id },
    );
    assert.equal(stream.status, 200);
    assert.equal((await nextMessage(stream)).method, 'notifications/subscriptions/acknowledged');
    return { peer, stream };
  };
  const onA = await listen(a, 'listen-a');
  const onB = await listen(b, 'listen-b');

  const tally: Tally = { plain: 0, mrtrDone: 0, mrtrRefused: 0, mrtrStale: 0, wrong: [], hung: [] };
  let loading = true;
  let restartedAt: number | undefined;
  const loops = [
    ...[0, 1].map((n) => plainLoop(urls, tally, () => loading, n)),
    ...[2, 3].map((n) =>
      mrtrLoop(
        urls,
        tally,
        () => loading,
        n,
        () => restartedAt,
      ),
    ),
  ];
  try {
    await until(() => tally.plain >= 10 && tally.mrtrDone >= 5, 'the load to run with Redis up', 10_000);

    // A state used while Redis is up, to replay once Redis comes back empty.
    const replayer = new HttpPeer(a.url, MODERN);
    const used = (await replayer.modern('tools/call', { name: 'ask', arguments: {} }, { caps: CAPS })).messages[0]?.result?.requestState;
    const retry = {
      name: 'ask',
      arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'Eve' } } },
      requestState: used,
    };
    assert.equal(text((await new HttpPeer(b.url, MODERN).modern('tools/call', retry, { caps: CAPS })).messages[0]), 'Hello, Eve!');

    // Down: the load sees it (retries refused), and keeps running through it.
    await redis.kill();
    const before = { plain: tally.plain, refused: tally.mrtrRefused };
    await until(
      () => tally.mrtrRefused >= before.refused + 2 && tally.plain >= before.plain + 4,
      'the load to run with Redis down',
      10_000,
    );
    // A change made meanwhile still reaches the streams of the instance it was made on.
    b.server.resourceUpdated(LOCAL);
    await until(() => updates(onB.stream, LOCAL) === 1, "B's own listen stream to hear B's change while Redis is down", 5000);
    await delay(OUTAGE_MS);
    const duringOutage = { plain: tally.plain - before.plain, refused: tally.mrtrRefused - before.refused };

    // Back, empty, on the same port: measure until an MRTR retry crosses instances again and
    // until a change made on B reaches A's stream again.
    await redis.restart();
    restartedAt = performance.now();
    const fanOutBack = async () => {
      for (let lastProbe = Number.NEGATIVE_INFINITY; ; await delay(5)) {
        if (updates(onA.stream, WATCHED) > 0) return performance.now();
        if (performance.now() - restartedAt! > RECOVERY_LIMIT_MS)
          assert.fail(`fan-out from B to A did not resume within ${RECOVERY_LIMIT_MS} ms`);
        if (performance.now() - lastProbe >= PROBE_EVERY_MS) {
          b.server.resourceUpdated(WATCHED);
          probes++;
          lastProbe = performance.now();
        }
      }
    };
    let probes = 0;
    const [, fanOutBackAt] = await Promise.all([
      until(() => tally.mrtrBackAt, 'an MRTR retry sent after the restart to complete across instances', RECOVERY_LIMIT_MS),
      fanOutBack(),
    ]);
    const mrtrMs = Math.round(tally.mrtrBackAt! - restartedAt);
    const fanOutMs = Math.round(fanOutBackAt - restartedAt);
    t.diagnostic(
      `recovery after redis-server restarted: MRTR across instances ${mrtrMs} ms, fan-out B -> A ${fanOutMs} ms (${probes} probes)`,
    );

    // Once per change after recovery: a tool registered on B, then a marker behind it.
    b.server.tool('added_after_restart', () => 'new');
    b.server.resourceUpdated(MARKER);
    await until(() => updates(onA.stream, MARKER) === 1, "B's marker on A's stream", 5000);
    assert.equal(listChanged(onA.stream), 1, 'tools/list_changed reaches A exactly once');
    assert.equal(updates(onA.stream, LOCAL), 0, 'a change made while Redis was down stays on its own instance');
    assert.equal(updates(onB.stream, LOCAL), 1, 'and is told there once, not again when Redis returns');
    assert.equal(onA.stream.events.at(-1)?.message?.params?._meta?.[META_SUB], 'listen-a');

    // The restarted Redis lost the one-time-use records: a state issued before the loss is refused, not accepted again.
    const replay = (await replayer.modern('tools/call', retry, { caps: CAPS })).messages[0];
    assert.equal(replay?.error?.code, -32602, `a state used before the crash, replayed after it: ${reply(replay)}`);
    assert.match(replay.error.message, /lost its records/);

    loading = false;
    await Promise.all(loops);
    t.diagnostic(
      `load: ${tally.plain} plain calls, ${tally.mrtrDone} MRTR calls completed, ${tally.mrtrRefused} retries refused "retry later", ${tally.mrtrStale} as issued before the loss ` +
        `(while down: ${duringOutage.plain} plain calls, ${duringOutage.refused} refused)`,
    );
    assert.deepEqual(tally.hung, [], 'no request hangs');
    assert.deepEqual(tally.wrong, [], 'no request is answered wrongly');
    assert.ok(duringOutage.plain > 0 && duringOutage.refused > 0);
    assert.ok(!onA.stream.done && !onB.stream.done, 'the listen streams stay open through the outage');
    onA.peer.assertClean();
    onB.peer.assertClean();
    // Each of the four connections (command and subscriber, on A and B) reports the outage once at most.
    assert.ok(lost.length >= 1 && lost.length <= 4, lost.map(String).join('\n'));
    for (const e of lost) assert.match(e.message, /lost; reconnecting/);
    // The servers' own onError hears of each refused retry; nothing else went wrong in them.
    const reported = [a, b].flatMap((s) => s.errors.splice(0));
    for (const e of reported) assert.match(String(e), /retry later/);
    t.diagnostic(`the cluster's onError heard ${lost.length} lost connections; the servers' onError ${reported.length} refused retries`);
  } finally {
    loading = false;
    await Promise.allSettled(loops);
    onA.stream.abort();
    onB.stream.abort();
    await close();
  }
});

function reply(m: Msg | undefined): string {
  if (m?.error) return `refused (${m.error.code} ${m.error.message})`;
  return `ACCEPTED (${JSON.stringify(m?.result?.content)})`;
}
