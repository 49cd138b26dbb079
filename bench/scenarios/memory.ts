/**
 * Scenario 9 (on request: `--only memory`): does memory stay flat under sustained load?
 * For each transport and era, one fresh server gets 10^4 echo calls, then full GCs and a
 * memory reading, then more calls up to 10^6 in all, GCs and a second reading (`--quick`:
 * 10^3 and 10^5). Reports RSS and V8 heap at both points and RSS(10^6)/RSS(10^4); the issue's
 * target is ≤ 1.10× for Janus. The calls are those of scenarios 1, 2 and 4, and every answer
 * is checked as there.
 */
import { readFileSync } from 'node:fs';
import { orderFor, record, type Ctx, MB } from '../lib/context.js';
import { type HttpConnection, openConnection, runLoad } from '../lib/http.js';
import {
  checkEcho,
  echoParams,
  modernHeaders,
  postHead,
  quickEchoCheck,
  requestRenderer,
  sessionHeaders,
  WrongAnswer,
} from '../lib/mcp.js';
import { checkEchoHttp, openSession } from '../lib/mcp-http.js';
import { type MemStats, ServerProcess, withTimeout } from '../lib/proc.js';
import { StdioClient } from '../lib/stdio.js';
import { burst, check as checkStdio, open as openStdio } from './stdio.js';

/** HTTP connections (one session each in 2025-11-25), as scenarios 1 and 2 at their top step. */
const CONNECTIONS = 64;
/** stdio: pipelined batches of this many calls (scenario 4's burst client), each checked. */
const BATCH = 1000;
/** Upper bound for one leg of HTTP load; a leg that needs longer fails the run. */
const LEG_LIMIT_MS = 20 * 60_000;

type Era = 'modern' | 'legacy';
interface Mode {
  transport: 'http' | 'stdio';
  era: Era;
  /** The table's step; the targets in lib/report.ts name these. */
  step: string;
}

export const MEMORY_MODES: readonly Mode[] = [
  { transport: 'http', era: 'modern', step: `HTTP 2026-07-28, ${CONNECTIONS} conn` },
  { transport: 'http', era: 'legacy', step: `HTTP 2025-11-25, ${CONNECTIONS} sessions` },
  { transport: 'stdio', era: 'modern', step: 'stdio 2026-07-28' },
  { transport: 'stdio', era: 'legacy', step: 'stdio 2025-11-25' },
];

/** One reading after full GCs: the child's own report, its V8 heap spaces, and RSS split by /proc. */
interface Reading extends MemStats {
  heapTotal: number;
  /** Committed bytes per V8 heap space. */
  spaces: Record<string, number>;
  /** Anonymous (heap, malloc, JIT code) and file-backed (the node binary's pages) parts of RSS. */
  rssAnon: number;
  rssFile: number;
}

async function reading(srv: ServerProcess): Promise<Reading> {
  const m = await srv.gc();
  const s = await srv.stats();
  const status = readFileSync(`/proc/${srv.pid}/status`, 'latin1');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024;
  return {
    ...m,
    heapTotal: Number(s.heapTotal),
    spaces: (s.heapSpaces ?? {}) as Record<string, number>,
    rssAnon: kb('RssAnon'),
    rssFile: kb('RssFile'),
  };
}

/** "10^4" for 10,000. */
const power = (n: number): string => {
  const e = Math.log10(n);
  return Number.isInteger(e) ? `10^${e}` : n.toLocaleString('en-US');
};

/** A server that can take calls in legs: `more(n)` sends n more, all answered and checked. */
interface Driver {
  more(n: number): Promise<void>;
  /** One fully parsed call after the load. */
  finalCheck(): Promise<void>;
  close(): void;
}

async function httpDriver(srv: ServerProcess, era: Era, what: string): Promise<Driver> {
  const ep = { port: srv.port, path: srv.path };
  await checkEchoHttp(ep, era, `${what} before load`);
  const connections: HttpConnection[] = [];
  for (let i = 0; i < CONNECTIONS; i++) connections.push(await openConnection(srv.port));
  let renderers: Array<(id: number) => string>;
  if (era === 'modern') {
    const r = requestRenderer(postHead(srv.port, srv.path, modernHeaders('tools/call', 'echo')), 'tools/call', echoParams('modern'));
    renderers = connections.map(() => r);
  } else {
    renderers = [];
    for (const c of connections) {
      const sid = await openSession(c, ep, what);
      renderers.push(requestRenderer(postHead(srv.port, srv.path, sessionHeaders(sid)), 'tools/call', echoParams('legacy')));
    }
  }
  const ids = new Array<number>(CONNECTIONS).fill(1);
  return {
    async more(n) {
      let answered = 0;
      const res = await runLoad({
        connections,
        next: (c) => renderers[c]!(ids[c]!++),
        check: (r) => {
          const ok = quickEchoCheck(r);
          if (ok) answered++;
          return ok;
        },
        warmupMs: 0,
        durationMs: LEG_LIMIT_MS,
        maxRequests: n,
      });
      if (res.errors > 0) {
        const log = srv.stderr.trim();
        throw new WrongAnswer(
          `${what}: ${res.errors} wrong answers; first: ${res.firstError}${log ? `\nserver stderr:\n${log.slice(-2000)}` : ''}`,
        );
      }
      if (answered !== n) throw new Error(`${what}: ${answered} of ${n} calls answered within ${LEG_LIMIT_MS / 1000} s`);
    },
    async finalCheck() {
      // A new connection (and, in 2025-11-25, a new session), then a call in the first session.
      await checkEchoHttp(ep, era, `${what} after load`);
    },
    close() {
      for (const c of connections) c.close();
    },
  };
}

async function stdioDriver(srv: ServerProcess, era: Era, what: string): Promise<Driver> {
  const client = new StdioClient(srv.child);
  await openStdio(client, era, `${what} before load`);
  let nextId = 1;
  return {
    async more(n) {
      for (let done = 0; done < n; ) {
        const count = Math.min(BATCH, n - done);
        const first = nextId;
        nextId += count;
        const b = await withTimeout(burst(client, era, count, first), 60_000, `${what}: batch of ${count}`);
        // Every answer parsed and checked, each id answered once.
        const seen = new Set<number>();
        for (const line of b.lines) {
          const msg = JSON.parse(line);
          if (msg.error) throw new WrongAnswer(`${what}: error ${JSON.stringify(msg.error)}`);
          checkEcho(msg.result, what, era);
          if (typeof msg.id !== 'number' || msg.id < first || msg.id >= first + count || seen.has(msg.id))
            throw new WrongAnswer(`${what}: unexpected or repeated id ${JSON.stringify(msg.id)}`);
          seen.add(msg.id);
        }
        done += count;
      }
    },
    async finalCheck() {
      client.useDefaultHandler();
      await checkStdio(client, era, `${what} after load`, 'check-after');
    },
    close() {
      /* the server is stopped by the caller */
    },
  };
}

export async function memory(ctx: Ctx, scenario: string): Promise<void> {
  const [early, total] = ctx.opts.quick ? [1000, 100_000] : [10_000, 1_000_000];
  const e = power(early);
  const t = power(total);
  // The SDK takes about 8 minutes per HTTP era at 10^6: only when `--impls` names it.
  const impls = ctx.opts.implsGiven ? ctx.opts.impls : ctx.opts.impls.filter((i) => i !== 'sdk');
  ctx.log(`  ${e} calls, full GC, memory; then to ${t} calls, full GC, memory (${impls.join(', ')})`);
  for (let rep = 0; rep < ctx.opts.reps; rep++) {
    for (const impl of orderFor(rep, impls)) {
      for (const mode of MEMORY_MODES) {
        const what = `${impl} ${scenario} ${mode.step}`;
        const srv = new ServerProcess(
          impl,
          mode.transport === 'http'
            ? { transport: 'http', mode: mode.era === 'modern' ? 'modern' : 'session', nodeFlags: ctx.opts.nodeFlags }
            : { transport: 'stdio', nodeFlags: ctx.opts.nodeFlags },
          ctx.pinning,
        );
        let driver: Driver | undefined;
        try {
          await srv.ready();
          driver = mode.transport === 'http' ? await httpDriver(srv, mode.era, what) : await stdioDriver(srv, mode.era, what);
          const t0 = performance.now();
          await driver.more(early);
          const a = await reading(srv);
          const t1 = performance.now();
          await driver.more(total - early);
          const seconds = (performance.now() - t1) / 1000;
          const b = await reading(srv);
          await driver.finalCheck();
          const base = { scenario, step: mode.step, impl, rep };
          const mb = { unit: 'MB', better: 'lower' as const };
          record(ctx, { ...base, ...mb, metric: `RSS after ${e}`, value: a.rss / MB });
          record(ctx, { ...base, ...mb, metric: `RSS after ${t}`, value: b.rss / MB });
          record(ctx, { ...base, ...mb, metric: `heap used after ${e}`, value: a.heapUsed / MB });
          record(ctx, { ...base, ...mb, metric: `heap used after ${t}`, value: b.heapUsed / MB });
          record(ctx, { ...base, metric: 'RSS growth', unit: '×', better: 'lower', value: b.rss / a.rss });
          // V8 sizes its young generation by the allocation rate and keeps it after full GCs: RSS
          // growth with that space's committed size taken out of both readings (no target).
          const young = (r: Reading): number => r.spaces.new_space ?? NaN;
          record(ctx, {
            ...base,
            metric: 'RSS growth without new_space',
            unit: '×',
            better: 'lower',
            value: (b.rss - young(b)) / (a.rss - young(a)),
          });
          // In the JSON only: where growth would be, if any.
          record(ctx, { ...base, ...mb, metric: `external after ${e}`, value: a.external / MB, diagnostic: true });
          record(ctx, { ...base, ...mb, metric: `external after ${t}`, value: b.external / MB, diagnostic: true });
          record(ctx, { ...base, ...mb, metric: `arrayBuffers after ${e}`, value: a.arrayBuffers / MB, diagnostic: true });
          record(ctx, { ...base, ...mb, metric: `arrayBuffers after ${t}`, value: b.arrayBuffers / MB, diagnostic: true });
          const parts: Array<[string, number, number]> = [
            ['RSS anonymous', a.rssAnon, b.rssAnon],
            ['RSS file-backed', a.rssFile, b.rssFile],
            ['heap committed', a.heapTotal, b.heapTotal],
            ...['new_space', 'old_space', 'code_space'].map((k): [string, number, number] => [k, a.spaces[k] ?? NaN, b.spaces[k] ?? NaN]),
          ];
          for (const [name, x, y] of parts) {
            record(ctx, { ...base, ...mb, metric: `${name} after ${e}`, value: x / MB, diagnostic: true });
            record(ctx, { ...base, ...mb, metric: `${name} after ${t}`, value: y / MB, diagnostic: true });
          }
          const rate = (total - early) / seconds;
          record(ctx, { ...base, metric: `calls/s (${e} to ${t})`, unit: '/s', better: 'higher', value: rate, diagnostic: true });
          ctx.log(
            `  ${scenario} rep ${rep + 1} ${impl.padEnd(5)} ${mode.step.padEnd(28)}: RSS ${(a.rss / MB).toFixed(1)} → ${(b.rss / MB).toFixed(1)} MB (${(b.rss / a.rss).toFixed(3)}×), heap ${(a.heapUsed / MB).toFixed(2)} → ${(b.heapUsed / MB).toFixed(2)} MB, external ${(a.external / MB).toFixed(2)} → ${(b.external / MB).toFixed(2)} MB; ${rate.toFixed(0)} calls/s, ${((performance.now() - t0) / 1000).toFixed(0)} s\n` +
              `      growth (MB): ${parts.map(([name, x, y]) => `${name} ${((y - x) / MB).toFixed(2)}`).join(', ')}`,
          );
        } finally {
          driver?.close();
          await srv.stop();
        }
      }
    }
  }
}
