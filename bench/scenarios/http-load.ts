/**
 * Scenarios 1 and 2: `tools/call` of `echo` over Streamable HTTP at 1, 16 and 64 connections,
 * as stateless 2026-07-28 requests (scenario 1) or inside 2025-11-25 sessions, one session
 * per connection (scenario 2). Requests/s, p50/p99 latency, server CPU per request, peak RSS.
 */
import { orderFor, record, type Ctx, MB } from '../lib/context.js';
import { openConnection, runLoad, type HttpConnection } from '../lib/http.js';
import { echoParams, modernHeaders, postHead, quickEchoCheck, requestRenderer, sessionHeaders, WrongAnswer } from '../lib/mcp.js';
import { checkEchoHttp, openSession } from '../lib/mcp-http.js';
import { cpuSeconds, hwmBytes, resetPeak, rssBytes, ServerProcess } from '../lib/proc.js';
import { latencySummary } from '../lib/stats.js';

export const CONNECTIONS = [1, 16, 64];

export async function httpLoad(ctx: Ctx, scenario: string, era: 'modern' | 'legacy'): Promise<void> {
  for (let rep = 0; rep < ctx.opts.reps; rep++) {
    for (const impl of orderFor(rep, ctx.opts.impls)) {
      const srv = new ServerProcess(
        impl,
        { transport: 'http', mode: era === 'modern' ? 'modern' : 'session', nodeFlags: ctx.opts.nodeFlags },
        ctx.pinning,
      );
      try {
        await srv.ready();
        const ep = { port: srv.port, path: srv.path, token: srv.token };
        await checkEchoHttp(ep, era, `${impl} ${scenario} before load`);
        for (const conns of ctx.opts.connections ?? CONNECTIONS) {
          const connections: HttpConnection[] = [];
          for (let i = 0; i < conns; i++) connections.push(await openConnection(srv.port));
          let renderers: Array<(id: number) => string>;
          if (era === 'modern') {
            const r = requestRenderer(
              postHead(srv.port, srv.path, modernHeaders('tools/call', 'echo'), srv.token),
              'tools/call',
              echoParams('modern'),
            );
            renderers = connections.map(() => r);
          } else {
            renderers = [];
            for (const c of connections) {
              const sid = await openSession(c, ep, `${impl} ${scenario}`);
              renderers.push(
                requestRenderer(postHead(srv.port, srv.path, sessionHeaders(sid), srv.token), 'tools/call', echoParams('legacy')),
              );
            }
          }
          const ids = new Array<number>(conns).fill(1);
          let cpu0 = 0;
          let cpu1 = 0;
          let peakReset = false;
          let sampledPeak = 0;
          const sampler = setInterval(() => {
            sampledPeak = Math.max(sampledPeak, rssBytes(srv.pid));
          }, 100);
          const res = await runLoad({
            connections,
            next: (c) => renderers[c]!(ids[c]!++),
            check: quickEchoCheck,
            warmupMs: ctx.opts.warmupMs,
            durationMs: ctx.opts.durationMs,
            onMeasureStart: () => {
              peakReset = resetPeak(srv.pid);
              sampledPeak = rssBytes(srv.pid);
              cpu0 = cpuSeconds(srv.pid);
            },
            onMeasureEnd: () => {
              cpu1 = cpuSeconds(srv.pid);
            },
          });
          clearInterval(sampler);
          const peak = Math.max(sampledPeak, peakReset ? hwmBytes(srv.pid) : 0);
          for (const c of connections) c.close();
          if (res.errors > 0) {
            const log = srv.stderr.trim();
            throw new WrongAnswer(
              `${impl} ${scenario} at ${conns} connections: ${res.errors} wrong answers; first: ${res.firstError}${log ? `\nserver stderr:\n${log.slice(-2000)}` : ''}`,
            );
          }
          const step = `${conns} conn`;
          const { p50, p99 } = latencySummary(res.latencies);
          const rps = res.requests / res.seconds;
          const base = { scenario, step, impl, rep };
          record(ctx, { ...base, metric: 'requests/s', unit: 'req/s', better: 'higher', value: rps });
          record(ctx, { ...base, metric: 'p50 latency', unit: 'ms', better: 'lower', value: p50 });
          record(ctx, { ...base, metric: 'p99 latency', unit: 'ms', better: 'lower', value: p99 });
          record(ctx, { ...base, metric: 'server CPU/request', unit: 'µs', better: 'lower', value: ((cpu1 - cpu0) * 1e6) / res.requests });
          record(ctx, { ...base, metric: 'peak RSS', unit: 'MB', better: 'lower', value: peak / MB });
          record(ctx, {
            ...base,
            metric: 'load generator CPU',
            unit: '%',
            better: 'lower',
            value: res.generatorCpu * 100,
            diagnostic: true,
          });
          ctx.log(
            `  ${scenario} rep ${rep + 1} ${impl.padEnd(5)} ${String(conns).padStart(2)} conn: ${rps.toFixed(0)} req/s, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, CPU ${(((cpu1 - cpu0) * 1e6) / res.requests).toFixed(1)} µs/req, peak ${(peak / MB).toFixed(1)} MB, generator CPU ${(res.generatorCpu * 100).toFixed(0)}%`,
          );
        }
        await checkEchoHttp(ep, era, `${impl} ${scenario} after load`);
      } finally {
        await srv.stop();
      }
    }
  }
}
