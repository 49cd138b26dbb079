/**
 * Scenario 8, scale-out on Redis (docs/scale-out.md; run on request: `--only scale-out`). The
 * Janus bench server in up to seven configurations, interleaved per repetition (order rotated),
 * so that every ratio to `one` comes from the same run:
 *   `one`: one process, no Redis;
 *   `<kind>:1`: one process on that kind of Redis (`redisCluster`);
 *   `<kind>:N`: N `node:cluster` workers on it, sharing one port (janus-cluster.ts);
 * for each kind given by `--redis` (default all three): `single`, one redis-server; `cluster`,
 * a Redis Cluster of 3 primaries and 3 replicas; `sentinel`, a primary and a replica watched by
 * 3 sentinels. The scenario starts each kind once (redis-kinds.ts) and stops it by PID at the
 * end. Servers and Redis run on every core but the load generator's; on 2 cores that is one
 * core for all of them. Redis CPU is summed over every process of the kind (the JSON has it
 * apart for primaries, replicas, sentinels and the busiest primary).
 *
 * 1. 2026-07-28 `tools/call` of `echo` at 64 connections: requests/s, p50/p99, CPU per request
 *    of all server processes (primary and workers) and, apart, of Redis.
 * 2. 2025-11-25 `tools/call` of `echo` in K sessions, one request in flight per session, each
 *    session's requests alternating between two connections that (on `:N`) two different
 *    workers hold: on Redis every legacy request first reloads its session's record (one Redis
 *    round trip), and a session opened on one worker is adopted by the other on its first
 *    request there. K = 64, and K = 1 (sequential).
 * 3. One MRTR round trip (`tools/call` → `input_required` → retry with `requestState`); the
 *    retry goes on another connection than the first call, so on `:N` it usually reaches
 *    another worker. On Redis each retry costs one claim. Sequential, and 8 clients at once.
 * 4. listen fan-out: K streams spread over the instances, M tools `list_changed` published by
 *    one instance; time from the publish call to the last stream, p50/p99 over M.
 * 5. list changes one after another, each awaited on a few streams: changes/s and the CPU per
 *    change (Redis's does not depend on how many streams listen: it is one script and one
 *    message to each instance).
 */
import { dirname, join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { orderFor, REDIS_KINDS, type RedisKind, record, type Ctx, type ScaleOutConfig } from '../lib/context.js';
import { type HttpConnection, openConnection, runLoad } from '../lib/http.js';
import { type Lane, runLaneLoad } from '../lib/lane-load.js';
import {
  echoParams,
  streamMessagesOf,
  modernHeaders,
  modernMeta,
  postHead,
  quickEchoCheck,
  requestRenderer,
  responseTo,
  rpc,
  sessionHeaders,
  withBody,
  WrongAnswer,
} from '../lib/mcp.js';
import { checkEchoHttp, openSession } from '../lib/mcp-http.js';
import { cpuSeconds, type Pinning, ServerProcess, serverScript, sleep, withTimeout } from '../lib/proc.js';
import { type RedisCpuSpent, type RedisOfKind, redisCpu, redisCpuSpent, startRedisOfKind } from '../lib/redis-kinds.js';
import { hasRedisServer } from '../lib/redis-server.js';
import { latencySummary, quantile } from '../lib/stats.js';

/** `one`, then each kind's one process and N workers, in the order of `kinds`. */
export function scaleOutConfigs(kinds: readonly RedisKind[]): ScaleOutConfig[] {
  return ['one', ...kinds.flatMap((k): ScaleOutConfig[] => [`${k}:1`, `${k}:N`])];
}

/** `--redis single,cluster,sentinel`: the kinds named, each once, in the order of REDIS_KINDS. */
export function parseRedisKinds(value: string | undefined): RedisKind[] {
  if (value === undefined) return [...REDIS_KINDS];
  const named = value
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const n of named)
    if (!REDIS_KINDS.includes(n as RedisKind)) throw new Error(`unknown --redis kind "${n}" (${REDIS_KINDS.join(', ')})`);
  if (named.length === 0) throw new Error(`--redis needs at least one kind (${REDIS_KINDS.join(', ')})`);
  return REDIS_KINDS.filter((k) => named.includes(k));
}

/** A logged figure in µs; `n/a` without Redis. */
const fmtUs = (v: number, digits: number): string => (Number.isNaN(v) ? 'n/a' : v.toFixed(digits));

const kindOf = (c: ScaleOutConfig): RedisKind | undefined => (c === 'one' ? undefined : (c.split(':')[0] as RedisKind));

/**
 * `BENCH_SCALE_OUT_STEPS=legacy`: only step 2 (legacy sessions), for repeating it more often
 * in the time a full run takes when the machine is noisy.
 */
const legacyOnly = (): boolean => process.env.BENCH_SCALE_OUT_STEPS === 'legacy';
const LOAD_CONNECTIONS = 64;
const MRTR_CLIENTS = 8;
const LEGACY_SESSIONS = 64;

/** Default workers: one per core the load generator leaves, at least 2. */
export function workerCount(ctx: Ctx): number {
  return ctx.opts.workers ?? Math.max(2, ctx.pinning.cores - 1);
}

/** Every core but the load generator's (core 1), or no pinning when the others are unpinned. */
function serverCores(p: Pinning): string[] {
  if (p.serverPrefix.length === 0) return [];
  const list = p.cores <= 2 ? '0' : p.cores === 3 ? '0,2' : `0,2-${p.cores - 1}`;
  return ['taskset', '-c', list];
}

export function machineNote(ctx: Ctx, workers: number): string {
  const { cores } = ctx.pinning;
  const serverSide = Math.max(1, cores - 1);
  let note = `${workers} workers; servers and Redis on ${serverSide} core${serverSide === 1 ? '' : 's'}, the load generator on one`;
  if (serverSide < workers)
    note += `: the ${workers} workers (and Redis) share ${serverSide === 1 ? 'one core' : `${serverSide} cores`}, so the N-worker configurations show what spreading costs, not what it gains`;
  return note;
}

export async function scaleOut(ctx: Ctx, scenario: string): Promise<void> {
  if (!hasRedisServer()) {
    ctx.log('  SKIPPED: redis-server is not on PATH (apt install redis-server); scenario 8 needs a real Redis');
    return;
  }
  const workers = workerCount(ctx);
  const prefix = serverCores(ctx.pinning);
  const kinds = ctx.opts.redisKinds ?? REDIS_KINDS;
  ctx.log(`  ${machineNote(ctx, workers)}`);
  const started = new Map<RedisKind, RedisOfKind>();
  try {
    for (const kind of kinds) {
      const t0 = performance.now();
      const r = await startRedisOfKind(kind, prefix);
      started.set(kind, r);
      const { primaries, replicas, sentinels } = r.pids;
      ctx.log(
        `  ${kind}: ${primaries.length} primar${primaries.length === 1 ? 'y' : 'ies'}, ${replicas.length} replica${replicas.length === 1 ? '' : 's'}, ${sentinels.length} sentinel${sentinels.length === 1 ? '' : 's'} (up in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
    }
    for (let rep = 0; rep < ctx.opts.reps; rep++) {
      for (const config of orderFor(rep, scaleOutConfigs(kinds))) {
        const kind = kindOf(config);
        await runConfig(ctx, scenario, rep, config, workers, prefix, kind ? started.get(kind) : undefined);
      }
    }
  } finally {
    await Promise.allSettled([...started.values()].map((r) => r.stop()));
  }
}

function start(
  ctx: Ctx,
  config: ScaleOutConfig,
  rep: number,
  workers: number,
  prefix: string[],
  redis: RedisOfKind | undefined,
): ServerProcess {
  const keys = `bench-${process.pid}-${rep}-${config.replace(':', '-')}:`;
  if (!redis) return new ServerProcess('janus', { transport: 'http', mode: 'modern', prefix }, ctx.pinning);
  const onRedis = [...redis.serverArgs, '--prefix', keys];
  if (config.endsWith(':1')) return new ServerProcess('janus', { transport: 'http', mode: 'modern', prefix, args: onRedis }, ctx.pinning);
  const script = join(dirname(serverScript('janus')), 'janus-cluster.js');
  return new ServerProcess(
    'janus',
    { transport: 'http', mode: 'modern', prefix, script, args: ['--workers', String(workers), ...onRedis] },
    ctx.pinning,
  );
}

async function runConfig(
  ctx: Ctx,
  scenario: string,
  rep: number,
  config: ScaleOutConfig,
  workers: number,
  prefix: string[],
  redis: RedisOfKind | undefined,
): Promise<void> {
  const srv = start(ctx, config, rep, workers, prefix, redis);
  let pids: number[] = [];
  try {
    await srv.ready();
    const workerPids = (srv.readyInfo.pids as number[] | undefined) ?? [];
    pids = [srv.pid, ...workerPids];
    const p: Probe = {
      ctx,
      scenario,
      rep,
      config,
      srv,
      cpu: () => pids.reduce((s, pid) => s + cpuSeconds(pid), 0),
      redisCpu: () => (redis ? redisCpu(redis.pids) : new Map()),
      redisSpent: (before, after) => (redis ? redisCpuSpent(redis.pids, before, after) : undefined),
      what: `${config} ${scenario}`,
    };
    const ep = { port: srv.port, path: srv.path };
    await checkEchoHttp(ep, 'modern', `${p.what} before`);
    const all = !legacyOnly();
    if (all) await toolsCallLoad(p);
    await legacyLoad(p, LEGACY_SESSIONS);
    await legacyLoad(p, 1);
    if (all) {
      await mrtrLoad(p, 1);
      await mrtrLoad(p, MRTR_CLIENTS);
      await fanout(p);
      await changes(p);
    }
    await checkEchoHttp(ep, 'modern', `${p.what} after`);
  } finally {
    await srv.stop();
    // The workers leave when their primary's IPC channel closes; make sure of it.
    for (const pid of pids.slice(1)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}

interface Probe {
  ctx: Ctx;
  scenario: string;
  rep: number;
  config: ScaleOutConfig;
  srv: ServerProcess;
  /** CPU seconds of all server processes (the primary and its workers on `:N`). */
  cpu: () => number;
  /** CPU seconds of each process of this configuration's Redis (none for `one`). */
  redisCpu: () => Map<number, number>;
  /** Redis CPU between two readings, by role; undefined for `one`. */
  redisSpent: (before: Map<number, number>, after: Map<number, number>) => RedisCpuSpent | undefined;
  what: string;
}

/**
 * Records the Redis CPU per request (`per`: request, round trip, change) between two readings,
 * summed over every process of the kind, and apart (in the JSON) for each role and the busiest
 * primary; null for `one`. Returns the sum in µs per request (NaN for `one`).
 */
function recordRedisCpu(
  p: Probe,
  base: { scenario: string; step: string; impl: ScaleOutConfig; rep: number },
  per: string,
  before: Map<number, number>,
  after: Map<number, number>,
  n: number,
): number {
  const spent = p.redisSpent(before, after);
  const perRequest = (s: number): number => (s * 1e6) / n;
  const metric = `Redis CPU/${per}`;
  record(p.ctx, { ...base, metric, unit: 'µs', better: 'lower', value: spent ? perRequest(spent.all) : null });
  if (!spent) return NaN;
  const parts: Array<[string, number]> = [
    ['primaries', spent.primaries],
    ['replicas', spent.replicas],
    ['sentinels', spent.sentinels],
    ['busiest primary', spent.busiestPrimary],
  ];
  for (const [role, s] of parts)
    record(p.ctx, { ...base, metric: `${metric}: ${role}`, unit: 'µs', better: 'lower', value: perRequest(s), diagnostic: true });
  return perRequest(spent.all);
}

/** Open connections per server process (one entry, or one per worker). */
async function connectionCounts(srv: ServerProcess): Promise<number[]> {
  const m = await srv.stats();
  return Array.isArray(m.workers)
    ? (m.workers as Array<{ connections: number }>).map((w) => Number(w.connections))
    : [Number(m.connections)];
}

const total = (counts: number[]): number => counts.reduce((a, b) => a + b, 0);

/** Open connections per server process, once at least `atLeast` are seen. */
async function spread(srv: ServerProcess, atLeast: number): Promise<number[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const counts = await connectionCounts(srv);
    if (total(counts) >= atLeast || Date.now() > deadline) return counts;
    await sleep(20);
  }
}

/** Connection counts once they add up to exactly `n` (connections closed by the client may take a moment to go). */
async function countsAt(srv: ServerProcess, n: number, what: string): Promise<number[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const counts = await connectionCounts(srv);
    if (total(counts) === n) return counts;
    if (Date.now() > deadline) throw new Error(`${what}: the servers hold ${counts.join('/')} connections, not ${n} in all`);
    await sleep(5);
  }
}

/**
 * `n` connections opened one at a time, each with the index of the server process that took it
 * (the one whose count went up), so that a session can be given connections on two processes.
 * Expects no other connection open.
 */
async function openPlaced(srv: ServerProcess, n: number, what: string): Promise<Array<{ conn: HttpConnection; at: number }>> {
  const placed: Array<{ conn: HttpConnection; at: number }> = [];
  try {
    let before = await countsAt(srv, 0, what);
    for (let i = 0; i < n; i++) {
      const conn = await openConnection(srv.port);
      placed.push({ conn, at: -1 });
      const after = await countsAt(srv, i + 1, what);
      const at = after.findIndex((c, k) => c > (before[k] ?? 0));
      if (at < 0) throw new Error(`${what}: cannot tell which process took connection ${i + 1} (${before.join('/')} → ${after.join('/')})`);
      placed[i]!.at = at;
      before = after;
    }
    return placed;
  } catch (e) {
    for (const p of placed) p.conn.close();
    throw e;
  }
}

/**
 * Two connections per session, on two different processes where there are two: each session
 * takes one from each of the two processes with the most left (the first alternating, so that
 * sessions open on every process). Returns the pairs and how many span two processes.
 */
function pairUp(placed: Array<{ conn: HttpConnection; at: number }>, sessions: number): { pairs: HttpConnection[][]; across: number } {
  const left = new Map<number, HttpConnection[]>();
  for (const { conn, at } of placed) {
    let l = left.get(at);
    if (!l) left.set(at, (l = []));
    l.push(conn);
  }
  const pairs: HttpConnection[][] = [];
  let across = 0;
  for (let s = 0; s < sessions; s++) {
    const lists = [...left.values()].filter((l) => l.length > 0).sort((a, b) => b.length - a.length);
    const [x, y] = lists.length > 1 ? [lists[0]!, lists[1]!] : [lists[0]!, lists[0]!];
    if (x !== y) across++;
    const pair = [x.pop()!, y.pop()!];
    pairs.push(s % 2 === 0 ? pair : pair.reverse());
  }
  return { pairs, across };
}

async function toolsCallLoad(p: Probe): Promise<void> {
  const { ctx, srv } = p;
  const connections: HttpConnection[] = [];
  for (let i = 0; i < LOAD_CONNECTIONS; i++) connections.push(await openConnection(srv.port));
  const counts = await spread(srv, LOAD_CONNECTIONS);
  const render = requestRenderer(postHead(srv.port, srv.path, modernHeaders('tools/call', 'echo')), 'tools/call', echoParams('modern'));
  let id = 1;
  let cpu0 = 0;
  let cpu1 = 0;
  let redis0 = new Map<number, number>();
  let redis1 = new Map<number, number>();
  const res = await runLoad({
    connections,
    next: () => render(id++),
    check: quickEchoCheck,
    warmupMs: ctx.opts.warmupMs,
    durationMs: ctx.opts.durationMs,
    onMeasureStart: () => {
      cpu0 = p.cpu();
      redis0 = p.redisCpu();
    },
    onMeasureEnd: () => {
      cpu1 = p.cpu();
      redis1 = p.redisCpu();
    },
  });
  for (const c of connections) c.close();
  if (res.errors > 0) {
    throw new WrongAnswer(`${p.what} tools/call: ${res.errors} wrong answers; first: ${res.firstError}\n${srv.stderr.trim().slice(-2000)}`);
  }
  const { p50, p99 } = latencySummary(res.latencies);
  const rps = res.requests / res.seconds;
  const cpuPer = ((cpu1 - cpu0) * 1e6) / res.requests;
  const base = { scenario: p.scenario, step: `tools/call ${LOAD_CONNECTIONS} conn`, impl: p.config, rep: p.rep };
  record(ctx, { ...base, metric: 'requests/s', unit: 'req/s', better: 'higher', value: rps });
  record(ctx, { ...base, metric: 'p50 latency', unit: 'ms', better: 'lower', value: p50 });
  record(ctx, { ...base, metric: 'p99 latency', unit: 'ms', better: 'lower', value: p99 });
  record(ctx, { ...base, metric: 'server CPU/request', unit: 'µs', better: 'lower', value: cpuPer });
  const redisPer = recordRedisCpu(p, base, 'request', redis0, redis1, res.requests);
  record(ctx, { ...base, metric: 'load generator CPU', unit: '%', better: 'lower', value: res.generatorCpu * 100, diagnostic: true });
  ctx.log(
    `  ${p.scenario} rep ${p.rep + 1} ${p.config.padEnd(10)} tools/call ${LOAD_CONNECTIONS} conn: ${rps.toFixed(0)} req/s, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, server CPU ${cpuPer.toFixed(1)} µs/req, Redis ${fmtUs(redisPer, 2)} µs/req, generator CPU ${(res.generatorCpu * 100).toFixed(0)}%, connections per process ${counts.join('/')}`,
  );
}

/**
 * 2025-11-25 `tools/call` of `echo` in `sessions` sessions at once, one in flight per session,
 * alternating between the session's two connections. Each session opens (initialize and
 * notifications/initialized) on its first connection; on `:N` its first request on the second
 * reaches the other worker, which adopts it from Redis (during warm-up).
 */
async function legacyLoad(p: Probe, sessions: number): Promise<void> {
  const { ctx, srv } = p;
  const ep = { port: srv.port, path: srv.path };
  const step = sessions === 1 ? 'legacy tools/call sequential' : `legacy tools/call ${sessions} sessions`;
  const what = `${p.what} ${step}`;
  const placed = await openPlaced(srv, 2 * sessions, what);
  try {
    const { pairs, across } = pairUp(placed, sessions);
    const sids = await Promise.all(pairs.map((pair, s) => openSession(pair[0]!, ep, `${what}, session ${s + 1}`)));
    const lanes: Lane[] = pairs.map((connections, s) => {
      const render = requestRenderer(postHead(srv.port, srv.path, sessionHeaders(sids[s]!)), 'tools/call', echoParams('legacy'));
      let id = 1;
      return { connections, next: () => render(id++) };
    });
    let cpu0 = 0;
    let cpu1 = 0;
    let redis0 = new Map<number, number>();
    let redis1 = new Map<number, number>();
    const res = await runLaneLoad({
      lanes,
      check: quickEchoCheck,
      warmupMs: ctx.opts.quick ? 300 : sessions === 1 ? 300 : 500,
      durationMs: ctx.opts.quick ? 1000 : sessions === 1 ? 1500 : 2500,
      onMeasureStart: () => {
        cpu0 = p.cpu();
        redis0 = p.redisCpu();
      },
      onMeasureEnd: () => {
        cpu1 = p.cpu();
        redis1 = p.redisCpu();
      },
    });
    if (res.errors > 0) {
      throw new WrongAnswer(`${what}: ${res.errors} wrong answers; first: ${res.firstError}\n${srv.stderr.trim().slice(-2000)}`);
    }
    // Fully checked, each on a new connection: every session still answers, on whichever process.
    for (const sid of sids) await checkEchoHttp(ep, 'legacy', `${what} after`, sid);
    const { p50, p99 } = latencySummary(res.latencies);
    const rps = res.requests / res.seconds;
    const cpuPer = ((cpu1 - cpu0) * 1e6) / res.requests;
    const base = { scenario: p.scenario, step, impl: p.config, rep: p.rep };
    record(ctx, { ...base, metric: 'requests/s', unit: 'req/s', better: 'higher', value: rps });
    record(ctx, { ...base, metric: 'p50 latency', unit: 'ms', better: 'lower', value: p50 });
    record(ctx, { ...base, metric: 'p99 latency', unit: 'ms', better: 'lower', value: p99 });
    record(ctx, { ...base, metric: 'server CPU/request', unit: 'µs', better: 'lower', value: cpuPer });
    const redisPer = recordRedisCpu(p, base, 'request', redis0, redis1, res.requests);
    record(ctx, { ...base, metric: 'load generator CPU', unit: '%', better: 'lower', value: res.generatorCpu * 100, diagnostic: true });
    record(ctx, {
      ...base,
      metric: 'sessions on two processes',
      unit: '%',
      better: 'higher',
      value: (across / sessions) * 100,
      diagnostic: true,
    });
    const perProcess = [...new Set(placed.map((x) => x.at))].sort().map((at) => placed.filter((x) => x.at === at).length);
    ctx.log(
      `  ${p.scenario} rep ${p.rep + 1} ${p.config.padEnd(10)} ${step}: ${rps.toFixed(0)} req/s, p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms, server CPU ${cpuPer.toFixed(1)} µs/req, Redis ${fmtUs(redisPer, 2)} µs/req, generator CPU ${(res.generatorCpu * 100).toFixed(0)}%, connections per process ${perProcess.join('/')}, sessions on two processes ${across}/${sessions}`,
    );
  } finally {
    for (const x of placed) x.conn.close();
  }
}

/** One MRTR round trip, checked: the first call on `a`, the retry with the state on `b`. */
async function mrtrRoundTrip(a: HttpConnection, b: HttpConnection, port: number, path: string, id: number, what: string): Promise<void> {
  const head = postHead(port, path, modernHeaders('tools/call', 'ask'));
  const params = { name: 'ask', arguments: {}, _meta: modernMeta({ elicitation: {} }) };
  const first = responseTo(await a.request(withBody(head, rpc(id, 'tools/call', params))), id, `${what} (first call)`);
  if (first.resultType !== 'input_required' || typeof first.inputRequests !== 'object' || typeof first.requestState !== 'string') {
    throw new WrongAnswer(`${what}: expected input_required with a requestState, got ${JSON.stringify(first).slice(0, 300)}`);
  }
  const inputResponses: Record<string, unknown> = {};
  for (const [key, req] of Object.entries(first.inputRequests as Record<string, { method: string }>)) {
    if (req.method !== 'elicitation/create') throw new WrongAnswer(`${what}: unexpected input request ${JSON.stringify(req)}`);
    inputResponses[key] = { action: 'accept', content: { name: 'bench' } };
  }
  const retry = { ...params, inputResponses, requestState: first.requestState };
  const second = responseTo(await b.request(withBody(head, rpc(id + 1, 'tools/call', retry))), id + 1, `${what} (retry)`);
  if ((second.resultType ?? 'complete') !== 'complete' || second.content?.[0]?.text !== 'hello bench') {
    throw new WrongAnswer(`${what}: wrong answer after the retry: ${JSON.stringify(second).slice(0, 300)}`);
  }
}

async function mrtrLoad(p: Probe, clients: number): Promise<void> {
  const { ctx, srv } = p;
  const what = `${p.what} MRTR ${clients} client${clients === 1 ? '' : 's'}`;
  const conns: HttpConnection[] = [];
  for (let i = 0; i < 2 * clients; i++) conns.push(await openConnection(srv.port));
  const counts = await spread(srv, 2 * clients);
  const warmMs = ctx.opts.quick ? 200 : 500;
  const durationMs = ctx.opts.quick ? 500 : 2000;
  let phase: 'warm' | 'measure' | 'stop' = 'warm';
  let t0 = Infinity;
  const lat: number[] = [];
  const loops = Array.from({ length: clients }, async (_, c) => {
    for (let i = 0; phase !== 'stop'; i++) {
      const s = performance.now();
      await mrtrRoundTrip(conns[2 * c]!, conns[2 * c + 1]!, srv.port, srv.path, c * 10_000_000 + 2 * i + 1, what);
      if (phase === 'measure' && s >= t0) lat.push(performance.now() - s);
    }
  });
  const all = Promise.all(
    loops.map((l) =>
      l.catch((e: unknown) => {
        phase = 'stop';
        throw e;
      }),
    ),
  );
  all.catch(() => undefined);
  await sleep(warmMs);
  const cpu0 = p.cpu();
  const redis0 = p.redisCpu();
  t0 = performance.now();
  phase = 'measure';
  await sleep(durationMs);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = p.cpu() - cpu0;
  const redis1 = p.redisCpu();
  if (phase === 'measure') phase = 'stop';
  try {
    await all;
  } finally {
    for (const c of conns) c.close();
  }
  const n = lat.length;
  const { p50, p99 } = latencySummary(Float64Array.from(lat));
  const base = { scenario: p.scenario, step: clients === 1 ? 'MRTR sequential' : `MRTR ${clients} clients`, impl: p.config, rep: p.rep };
  record(ctx, { ...base, metric: 'round trips/s', unit: '/s', better: 'higher', value: n / seconds });
  record(ctx, { ...base, metric: 'p50 latency', unit: 'ms', better: 'lower', value: p50 });
  record(ctx, { ...base, metric: 'p99 latency', unit: 'ms', better: 'lower', value: p99 });
  record(ctx, { ...base, metric: 'server CPU/round trip', unit: 'µs', better: 'lower', value: (cpu * 1e6) / n });
  const redisPer = recordRedisCpu(p, base, 'round trip', redis0, redis1, n);
  ctx.log(
    `  ${p.scenario} rep ${p.rep + 1} ${p.config.padEnd(10)} MRTR ${clients} client${clients === 1 ? ' ' : 's'}: ${(n / seconds).toFixed(0)} round trips/s, p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms, server CPU ${((cpu * 1e6) / n).toFixed(0)} µs, Redis ${fmtUs(redisPer, 1)} µs per round trip, connections per process ${counts.join('/')}`,
  );
}

const ACK = Buffer.from('notifications/subscriptions/acknowledged');
const CHANGED = 'notifications/tools/list_changed';
const CHANGED_BYTES = Buffer.from(CHANGED);
const OK_STATUS = Buffer.from('HTTP/1.1 200');
const ERROR_BYTES = Buffer.from('"error"');

/** A listen stream that notes when each `list_changed` arrives (searching bytes only; parsed at the end). */
class FanoutStream {
  socket!: Socket;
  chunks: Buffer[] = [];
  acked = false;
  arrivals: bigint[] = [];
  #tail: Buffer = Buffer.alloc(0);
  onArrival: ((s: FanoutStream) => void) | undefined;

  constructor(readonly id: number) {}

  open(port: number, request: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket = connect({ port, host: '127.0.0.1', noDelay: true });
      this.socket.once('error', reject);
      this.socket.on('data', (chunk: Buffer) => {
        this.chunks.push(chunk);
        if (this.acked) {
          // A match may straddle two chunks; the tail is shorter than the needle, so nothing counts twice.
          const hay = this.#tail.length ? Buffer.concat([this.#tail, chunk]) : chunk;
          for (let at = hay.indexOf(CHANGED_BYTES); at >= 0; at = hay.indexOf(CHANGED_BYTES, at + 1)) {
            this.arrivals.push(process.hrtime.bigint());
            this.onArrival?.(this);
          }
          this.#tail = hay.subarray(Math.max(0, hay.length - CHANGED_BYTES.length + 1));
          return;
        }
        const all = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks);
        if (all.indexOf(ACK) >= 0) {
          this.acked = true;
          resolve();
        } else if (all.indexOf(ERROR_BYTES) >= 0 || (all.length >= 12 && all.indexOf(OK_STATUS) !== 0)) {
          reject(new WrongAnswer(`listen ${this.id}: ${all.toString('latin1').slice(0, 400)}`));
        }
      });
      this.socket.write(request);
    });
  }

  /** The acknowledgement first, then exactly `m` list_changed, all with this stream's subscription id. */
  verify(m: number, what: string): void {
    const { sse, msgs } = streamMessagesOf(this.chunks);
    const sub = (x: Record<string, any>) => x.params?._meta?.['io.modelcontextprotocol/subscriptionId'];
    if (msgs[0]?.method !== 'notifications/subscriptions/acknowledged' || sub(msgs[0]) !== this.id)
      throw new WrongAnswer(`${what}: stream ${this.id} did not start with its acknowledgement: ${sse.slice(0, 300)}`);
    const changed = msgs.filter((x) => x.method === CHANGED);
    if (changed.length !== m || changed.some((x) => sub(x) !== this.id))
      throw new WrongAnswer(`${what}: stream ${this.id} got ${changed.length} list_changed (want ${m}, each with its subscription id)`);
  }

  close(): void {
    this.socket?.destroy();
  }
}

async function fanout(p: Probe): Promise<void> {
  const { ctx, srv } = p;
  const k = ctx.opts.quick ? 200 : 2000;
  const m = ctx.opts.quick ? 5 : 20;
  const what = `${p.what} listen ${k} streams`;
  const streams = Array.from({ length: k }, (_, i) => new FanoutStream(i + 1));
  try {
    const head = postHead(srv.port, srv.path, modernHeaders('subscriptions/listen'));
    let next = 0;
    const opener = async (): Promise<void> => {
      while (next < streams.length) {
        const s = streams[next++]!;
        await s.open(
          srv.port,
          withBody(head, rpc(s.id, 'subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: modernMeta() })),
        );
      }
    };
    await withTimeout(Promise.all(Array.from({ length: 128 }, opener)), 60_000, `${what}: opening`);
    const counts = await spread(srv, k);
    const toAll: number[] = [];
    const toFirst: number[] = [];
    for (let j = 1; j <= m; j++) {
      let left = k;
      const reached = new Promise<void>((resolve) => {
        for (const s of streams) {
          s.onArrival = (x) => {
            if (x.arrivals.length === j && --left === 0) resolve();
          };
        }
      });
      const published = await srv.notify();
      if (published === undefined) throw new Error(`${what}: the server cannot publish list_changed`);
      await withTimeout(reached, 30_000, `${what}: list_changed ${j} to reach every stream`);
      let first = -1n;
      let last = 0n;
      for (const s of streams) {
        const t = s.arrivals[j - 1]!;
        if (t > last) last = t;
        if (first < 0n || t < first) first = t;
      }
      toAll.push(Number(last - published.t) / 1e6);
      toFirst.push(Number(first - published.t) / 1e6);
    }
    // Late duplicates would show here: every stream must hold exactly m.
    await sleep(100);
    for (const s of streams) s.verify(m, what);
    const sorted = Float64Array.from(toAll).sort();
    const p50 = quantile(sorted, 0.5);
    const p99 = quantile(sorted, 0.99);
    const first50 = quantile(Float64Array.from(toFirst).sort(), 0.5);
    const busiest = (Math.max(...counts) / k) * 100;
    const base = { scenario: p.scenario, step: `listen ${k} streams`, impl: p.config, rep: p.rep };
    record(ctx, { ...base, metric: 'time to reach all, p50', unit: 'ms', better: 'lower', value: p50 });
    record(ctx, { ...base, metric: 'time to reach all, p99', unit: 'ms', better: 'lower', value: p99 });
    record(ctx, { ...base, metric: 'time to reach first, p50', unit: 'ms', better: 'lower', value: first50, diagnostic: true });
    record(ctx, { ...base, metric: 'streams on the busiest process', unit: '%', better: 'lower', value: busiest, diagnostic: true });
    ctx.log(
      `  ${p.scenario} rep ${p.rep + 1} ${p.config.padEnd(10)} listen ${k} streams × ${m} changes: reached all p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (first p50 ${first50.toFixed(1)} ms), streams per process ${counts.join('/')}`,
    );
  } finally {
    for (const s of streams) s.close();
  }
}

/**
 * Tools `list_changed` one after another, each published by one instance (on `:N` the first
 * worker) and awaited on a few listen streams spread over the instances: changes/s and the CPU
 * per change. Redis's part (the change's script and its message to every instance) does not
 * depend on how many streams listen; the servers' part grows with them (step 4's times).
 */
async function changes(p: Probe): Promise<void> {
  const { ctx, srv } = p;
  const k = Math.max(4, 2 * workerCount(ctx));
  const what = `${p.what} list changes on ${k} streams`;
  const streams = Array.from({ length: k }, (_, i) => new FanoutStream(i + 1));
  try {
    const head = postHead(srv.port, srv.path, modernHeaders('subscriptions/listen'));
    for (const s of streams)
      await withTimeout(
        s.open(
          srv.port,
          withBody(head, rpc(s.id, 'subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: modernMeta() })),
        ),
        30_000,
        `${what}: opening`,
      );
    const counts = await spread(srv, k);
    let made = 0;
    const change = async (): Promise<void> => {
      const j = ++made;
      let left = k;
      const reached = new Promise<void>((resolve) => {
        for (const s of streams) {
          s.onArrival = (x) => {
            if (x.arrivals.length === j && --left === 0) resolve();
          };
        }
      });
      if ((await srv.notify()) === undefined) throw new Error(`${what}: the server cannot publish list_changed`);
      await withTimeout(reached, 30_000, `${what}: list_changed ${j} to reach every stream`);
    };
    const warmUntil = performance.now() + (ctx.opts.quick ? 200 : 500);
    while (performance.now() < warmUntil) await change();
    const cpu0 = p.cpu();
    const redis0 = p.redisCpu();
    const first = made;
    const t0 = performance.now();
    const until = t0 + (ctx.opts.quick ? 500 : 2500);
    while (performance.now() < until) await change();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = p.cpu() - cpu0;
    const redis1 = p.redisCpu();
    const n = made - first;
    // Late duplicates would show here: every stream must hold exactly one of each change.
    await sleep(100);
    for (const s of streams) s.verify(made, what);
    const base = { scenario: p.scenario, step: `list changes on ${k} streams`, impl: p.config, rep: p.rep };
    record(ctx, { ...base, metric: 'changes/s', unit: '/s', better: 'higher', value: n / seconds });
    record(ctx, { ...base, metric: 'server CPU/change', unit: 'µs', better: 'lower', value: (cpu * 1e6) / n });
    const redisPer = recordRedisCpu(p, base, 'change', redis0, redis1, n);
    ctx.log(
      `  ${p.scenario} rep ${p.rep + 1} ${p.config.padEnd(10)} list changes on ${k} streams: ${(n / seconds).toFixed(0)} changes/s, server CPU ${((cpu * 1e6) / n).toFixed(0)} µs, Redis ${fmtUs(redisPer, 1)} µs per change, streams per process ${counts.join('/')}`,
    );
  } finally {
    for (const s of streams) s.close();
  }
}
