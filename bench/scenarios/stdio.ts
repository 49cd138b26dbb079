/**
 * Scenario 4: stdio, both eras. Sequential round trips (one request in flight), then a
 * pipelined burst of 20,000 calls written at once, timed until the last answer arrives.
 */
import { inTurns, orderFor, record, type Ctx, MB } from '../lib/context.js';
import { checkEcho, echoParams, ECHO_TEXT, initializeParams, LEGACY, notification, rpc, WrongAnswer } from '../lib/mcp.js';
import { cpuSeconds, hwmBytes, type Impl, resetPeak, ServerProcess, sleep, withTimeout } from '../lib/proc.js';
import { StdioClient } from '../lib/stdio.js';
import { latencySummary } from '../lib/stats.js';

const MARK = `"text":"${ECHO_TEXT}"`;

function renderer(era: 'modern' | 'legacy'): (id: number) => string {
  const body = rpc(987654321, 'tools/call', echoParams(era));
  const [before, after] = body.split('987654321') as [string, string];
  return (id) => `${before}${id}${after}\n`;
}

/** Opens the era on a fresh stdio server and checks one echo. */
export async function open(client: StdioClient, era: 'modern' | 'legacy', what: string): Promise<void> {
  if (era === 'legacy') {
    const init = await withTimeout(client.request('init', rpc('init', 'initialize', initializeParams())), 10_000, `${what}: initialize`);
    if (init.result?.protocolVersion !== LEGACY)
      throw new WrongAnswer(`${what}: initialize answered ${JSON.stringify(init).slice(0, 300)}`);
    client.write(`${notification('notifications/initialized')}\n`);
  }
  await check(client, era, what, 'check-before');
}

export async function check(client: StdioClient, era: 'modern' | 'legacy', what: string, id: string): Promise<void> {
  const res = await withTimeout(client.request(id, rpc(id, 'tools/call', echoParams(era))), 10_000, `${what}: tools/call`);
  if (res.error) throw new WrongAnswer(`${what}: error ${JSON.stringify(res.error)}`);
  checkEcho(res.result, what, era);
}

function sequential(client: StdioClient, era: 'modern' | 'legacy', warmupMs: number, durationMs: number, firstId: number) {
  const render = renderer(era);
  return new Promise<{ requests: number; seconds: number; latencies: Float64Array; error?: string; cpu: [number, number] }>((resolve) => {
    let id = firstId;
    let phase: 'warm' | 'measure' | 'stop' = 'warm';
    let lat = new Float64Array(1 << 16);
    let n = 0;
    let sent = 0;
    let t0 = 0;
    let t1 = 0;
    const pid = client.child.pid!;
    let cpu0 = 0;
    let cpu1 = 0;
    const expect = (k: number): string => `"id":${k},`;
    client.onLine = (line) => {
      const now = performance.now();
      if (line.indexOf(expect(id)) < 0 && line.indexOf(`"id":${id}}`) < 0) return; // not our answer (e.g. a notification)
      if (line.indexOf(MARK) < 0 || line.indexOf('"error"') >= 0) {
        phase = 'stop';
        resolve({ requests: n, seconds: 0, latencies: lat, error: line.slice(0, 300), cpu: [0, 0] });
        return;
      }
      if (phase === 'measure') {
        if (n === lat.length) {
          const b = new Float64Array(n * 2);
          b.set(lat);
          lat = b;
        }
        lat[n++] = now - sent;
      }
      if (phase === 'stop') {
        resolve({ requests: n, seconds: (t1 - t0) / 1000, latencies: lat.subarray(0, n), cpu: [cpu0, cpu1] });
        return;
      }
      id++;
      sent = performance.now();
      client.write(render(id));
    };
    setTimeout(() => {
      phase = 'measure';
      cpu0 = cpuSeconds(pid);
      t0 = performance.now();
      setTimeout(() => {
        t1 = performance.now();
        cpu1 = cpuSeconds(pid);
        phase = 'stop';
      }, durationMs);
    }, warmupMs);
    sent = performance.now();
    client.write(render(id));
  });
}

export function burst(client: StdioClient, era: 'modern' | 'legacy', count: number, firstId: number) {
  const render = renderer(era);
  let text = '';
  for (let i = 0; i < count; i++) text += render(firstId + i);
  return new Promise<{ seconds: number; lines: string[] }>((resolve) => {
    const lines: string[] = [];
    let t0 = 0;
    client.onLine = (line) => {
      if (line.indexOf('"result"') < 0 && line.indexOf('"error"') < 0) return; // not a response
      lines.push(line);
      if (lines.length === count) resolve({ seconds: (performance.now() - t0) / 1000, lines });
    };
    t0 = performance.now();
    client.write(text);
  });
}

function verifyBurst(lines: string[], firstId: number, what: string): void {
  const seen = new Set<number>();
  for (const line of lines) {
    const msg = JSON.parse(line);
    if (msg.error) throw new WrongAnswer(`${what}: error ${JSON.stringify(msg.error)}`);
    checkEcho(msg.result, what, 'legacy');
    seen.add(msg.id);
  }
  for (let i = 0; i < lines.length; i++) if (!seen.has(firstId + i)) throw new WrongAnswer(`${what}: no answer to id ${firstId + i}`);
}

/** One implementation's stdio server in a repetition, and what its sequential slices add up to. */
interface Lane {
  impl: Impl;
  srv: ServerProcess;
  client: StdioClient;
  what: string;
  /** The first JSON-RPC id of its next sequential slice. */
  nextId: number;
  requests: number;
  seconds: number;
  cpu: number;
  latencies: Float64Array[];
}

/** Warm-up at the start of each later sequential slice. */
const REWARM_MS = 100;

/**
 * Each repetition and era starts every implementation's server; the sequential round trips
 * are measured in turns (`inTurns`) and the bursts one right after another, so the
 * implementations share the same stretch of this machine's time.
 */
export async function stdio(ctx: Ctx, scenario: string): Promise<void> {
  const count = ctx.opts.quick ? 2000 : 20_000;
  const seqMs = ctx.opts.quick ? 500 : 3000;
  const warmMs = ctx.opts.quick ? 200 : 500;
  for (let rep = 0; rep < ctx.opts.reps; rep++) {
    for (const era of ['modern', 'legacy'] as const) {
      const started: ServerProcess[] = [];
      const lanes: Lane[] = [];
      try {
        for (const impl of orderFor(rep, ctx.opts.impls)) {
          const srv = new ServerProcess(impl, { transport: 'stdio', nodeFlags: ctx.opts.nodeFlags }, ctx.pinning);
          started.push(srv);
          await srv.ready();
          const what = `${impl} ${scenario} ${era}`;
          const client = new StdioClient(srv.child);
          await open(client, era, `${what} before load`);
          lanes.push({ impl, srv, client, what, nextId: 0, requests: 0, seconds: 0, cpu: 0, latencies: [] });
        }
        await inTurns(lanes, { durationMs: seqMs, warmupMs: warmMs, rewarmMs: REWARM_MS }, async (lane, warmupMs, durationMs, measured) => {
          const seq = await withTimeout(
            sequential(lane.client, era, warmupMs, durationMs, (lane.nextId += 10_000_000)),
            warmupMs + durationMs + 30_000,
            `${lane.what}: sequential round trips`,
          );
          if (seq.error) throw new WrongAnswer(`${lane.what}: wrong answer in sequential round trips: ${seq.error}`);
          if (!measured) return;
          lane.requests += seq.requests;
          lane.seconds += seq.seconds;
          lane.cpu += seq.cpu[1] - seq.cpu[0];
          lane.latencies.push(seq.latencies);
        });
        // A warm-up burst each, then the measured ones back to back.
        for (const lane of lanes)
          await withTimeout(burst(lane.client, era, Math.min(2000, count), 100_000_000), 60_000, `${lane.what}: warm-up burst`);
        await sleep(100);
        for (const lane of lanes) {
          const { srv, client, what } = lane;
          const peakReset = resetPeak(srv.pid);
          const cpu0 = cpuSeconds(srv.pid);
          const b = await withTimeout(burst(client, era, count, 200_000_000), 120_000, `${what}: burst of ${count}`);
          const cpu = cpuSeconds(srv.pid) - cpu0;
          const peak = peakReset ? hwmBytes(srv.pid) : NaN;
          verifyBurst(b.lines, 200_000_000, `${what} burst`);
          client.useDefaultHandler();
          await check(client, era, `${what} after load`, 'check-after');
          const { p50, p99 } = latencySummary(lane.latencies);
          const seqRate = lane.requests / lane.seconds;
          const base = { scenario, impl: lane.impl, rep };
          const step = `${era} sequential`;
          record(ctx, { ...base, step, metric: 'round trips/s', unit: '/s', better: 'higher', value: seqRate });
          record(ctx, { ...base, step, metric: 'p50 latency', unit: 'ms', better: 'lower', value: p50 });
          record(ctx, { ...base, step, metric: 'p99 latency', unit: 'ms', better: 'lower', value: p99 });
          record(ctx, { ...base, step, metric: 'server CPU/call', unit: 'µs', better: 'lower', value: (lane.cpu * 1e6) / lane.requests });
          const bstep = `${era} burst ${count}`;
          record(ctx, { ...base, step: bstep, metric: 'calls/s', unit: '/s', better: 'higher', value: count / b.seconds });
          record(ctx, { ...base, step: bstep, metric: 'server CPU/call', unit: 'µs', better: 'lower', value: (cpu * 1e6) / count });
          record(ctx, { ...base, step: bstep, metric: 'peak RSS', unit: 'MB', better: 'lower', value: peak / MB });
          ctx.log(
            `  ${scenario} rep ${rep + 1} ${lane.impl.padEnd(5)} ${era.padEnd(6)}: sequential ${seqRate.toFixed(0)}/s (p50 ${p50.toFixed(3)} ms), burst ${(count / b.seconds).toFixed(0)}/s, peak ${(peak / MB).toFixed(1)} MB`,
          );
        }
      } finally {
        await Promise.all(started.map((srv) => srv.stop()));
      }
    }
  }
}
