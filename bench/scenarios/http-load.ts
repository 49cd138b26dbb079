/**
 * Scenarios 1 and 2: `tools/call` of `echo` over Streamable HTTP at 1, 16 and 64 connections,
 * as stateless 2026-07-28 requests (scenario 1) or inside 2025-11-25 sessions, one session
 * per connection (scenario 2). Requests/s, p50/p99 latency, server CPU per request, peak RSS.
 *
 * Each repetition starts every implementation's server, and each step loads them in turns
 * over the same stretch of time (`inTurns`): an implementation's figures add up over its
 * measured slices of the window.
 */
import { inTurns, orderFor, record, type Ctx, MB } from '../lib/context.js';
import { openConnection, runLoad, type HttpConnection } from '../lib/http.js';
import { echoParams, modernHeaders, postHead, quickEchoCheck, requestRenderer, sessionHeaders, WrongAnswer } from '../lib/mcp.js';
import { checkEchoHttp, openSession } from '../lib/mcp-http.js';
import { cpuSeconds, hwmBytes, type Impl, resetPeak, rssBytes, ServerProcess } from '../lib/proc.js';
import { latencySummary } from '../lib/stats.js';

export const CONNECTIONS = [1, 16, 64];

/** Warm-up at the start of each later slice, after the implementation idled through the others'. */
const REWARM_MS = 200;

/** What a lane adds up over one step, zeroed. */
const emptyStep = () => ({
  connections: [] as HttpConnection[],
  renderers: [] as Array<(id: number) => string>,
  ids: [] as number[],
  requests: 0,
  seconds: 0,
  cpu: 0,
  latencies: [] as Float64Array[],
  generatorCpuSeconds: 0,
  peak: 0,
});

/** One implementation's server and, during a step, its connections and what they add up to. */
type Lane = { impl: Impl; srv: ServerProcess } & ReturnType<typeof emptyStep>;

export async function httpLoad(ctx: Ctx, scenario: string, era: 'modern' | 'legacy'): Promise<void> {
  for (let rep = 0; rep < ctx.opts.reps; rep++) {
    const started: ServerProcess[] = [];
    const lanes: Lane[] = [];
    try {
      for (const impl of orderFor(rep, ctx.opts.impls)) {
        const srv = new ServerProcess(
          impl,
          { transport: 'http', mode: era === 'modern' ? 'modern' : 'session', nodeFlags: ctx.opts.nodeFlags },
          ctx.pinning,
        );
        started.push(srv);
        await srv.ready();
        await checkEchoHttp(endpoint(srv), era, `${impl} ${scenario} before load`);
        lanes.push({ impl, srv, ...emptyStep() });
      }
      for (const conns of ctx.opts.connections ?? CONNECTIONS) {
        for (const lane of lanes) await openLane(lane, conns, era, scenario);
        const turns = { durationMs: ctx.opts.durationMs, warmupMs: ctx.opts.warmupMs, rewarmMs: REWARM_MS };
        await inTurns(lanes, turns, (lane, warmupMs, durationMs, measured) => slice(lane, warmupMs, durationMs, measured, scenario, conns));
        for (const lane of lanes) report(ctx, lane, scenario, rep, conns);
      }
      for (const lane of lanes) await checkEchoHttp(endpoint(lane.srv), era, `${lane.impl} ${scenario} after load`);
    } finally {
      for (const lane of lanes) for (const c of lane.connections) c.close();
      await Promise.all(started.map((srv) => srv.stop()));
    }
  }
}

const endpoint = (srv: ServerProcess) => ({ port: srv.port, path: srv.path, token: srv.token });

/** Opens a step's connections (and sessions) to one server, and zeroes what it adds up. */
async function openLane(lane: Lane, conns: number, era: 'modern' | 'legacy', scenario: string): Promise<void> {
  const { srv } = lane;
  for (const c of lane.connections) c.close();
  Object.assign(lane, emptyStep());
  for (let i = 0; i < conns; i++) lane.connections.push(await openConnection(srv.port));
  if (era === 'modern') {
    const r = requestRenderer(
      postHead(srv.port, srv.path, modernHeaders('tools/call', 'echo'), srv.token),
      'tools/call',
      echoParams('modern'),
    );
    lane.renderers = lane.connections.map(() => r);
  } else {
    for (const c of lane.connections) {
      const sid = await openSession(c, endpoint(srv), `${lane.impl} ${scenario}`);
      lane.renderers.push(
        requestRenderer(postHead(srv.port, srv.path, sessionHeaders(sid), srv.token), 'tools/call', echoParams('legacy')),
      );
    }
  }
  lane.ids = new Array<number>(conns).fill(1);
}

/** One turn of load on one server; a measured one adds to the lane's figures. */
async function slice(lane: Lane, warmupMs: number, durationMs: number, measured: boolean, scenario: string, conns: number): Promise<void> {
  const { srv } = lane;
  let cpu0 = 0;
  let peakReset = false;
  let sampledPeak = 0;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, rssBytes(srv.pid));
  }, 100);
  const res = await runLoad({
    connections: lane.connections,
    next: (c) => lane.renderers[c]!(lane.ids[c]!++),
    check: quickEchoCheck,
    warmupMs,
    durationMs,
    onMeasureStart: () => {
      peakReset = resetPeak(srv.pid);
      sampledPeak = rssBytes(srv.pid);
      cpu0 = cpuSeconds(srv.pid);
    },
    onMeasureEnd: () => {
      if (measured) lane.cpu += cpuSeconds(srv.pid) - cpu0;
    },
  });
  clearInterval(sampler);
  if (res.errors > 0) {
    const log = srv.stderr.trim();
    throw new WrongAnswer(
      `${lane.impl} ${scenario} at ${conns} connections: ${res.errors} wrong answers; first: ${res.firstError}${log ? `\nserver stderr:\n${log.slice(-2000)}` : ''}`,
    );
  }
  if (!measured) return;
  lane.peak = Math.max(lane.peak, sampledPeak, peakReset ? hwmBytes(srv.pid) : 0);
  lane.requests += res.requests;
  lane.seconds += res.seconds;
  lane.latencies.push(res.latencies);
  lane.generatorCpuSeconds += res.generatorCpu * res.seconds;
}

function report(ctx: Ctx, lane: Lane, scenario: string, rep: number, conns: number): void {
  const { p50, p99 } = latencySummary(lane.latencies);
  const rps = lane.requests / lane.seconds;
  const cpu = (lane.cpu * 1e6) / lane.requests;
  const generator = (lane.generatorCpuSeconds / lane.seconds) * 100;
  const base = { scenario, step: `${conns} conn`, impl: lane.impl, rep };
  record(ctx, { ...base, metric: 'requests/s', unit: 'req/s', better: 'higher', value: rps });
  record(ctx, { ...base, metric: 'p50 latency', unit: 'ms', better: 'lower', value: p50 });
  record(ctx, { ...base, metric: 'p99 latency', unit: 'ms', better: 'lower', value: p99 });
  record(ctx, { ...base, metric: 'server CPU/request', unit: 'µs', better: 'lower', value: cpu });
  record(ctx, { ...base, metric: 'peak RSS', unit: 'MB', better: 'lower', value: lane.peak / MB });
  record(ctx, { ...base, metric: 'load generator CPU', unit: '%', better: 'lower', value: generator, diagnostic: true });
  ctx.log(
    `  ${scenario} rep ${rep + 1} ${lane.impl.padEnd(5)} ${String(conns).padStart(2)} conn: ${rps.toFixed(0)} req/s, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, CPU ${cpu.toFixed(1)} µs/req, peak ${(lane.peak / MB).toFixed(1)} MB, generator CPU ${generator.toFixed(0)}%`,
  );
}
