/**
 * Soak: a million requests per era against the example server, its RSS sampled all along and
 * checked flat after warm-up (docs/reliability.md). Eras:
 *   modern  2026-07-28 stateless tools/call over HTTP (keep-alive connections, full headers)
 *   legacy  2025-11-25 tools/call in sessions over HTTP (one session per connection)
 *   stdio   2026-07-28 tools/call over stdio (a window of requests in flight)
 *   churn   2025-11-25 sessions opened and ended over HTTP: initialize, initialized, a tools/call
 *           answered as an event stream (test_logging_tool logs first, so its events go to the
 *           event store), DELETE; four requests per session
 * Every answer is checked (status 200, the tool's text, no error). Exit code 1 when an answer
 * is wrong or the RSS level at the end is more than 10% above its level just after warm-up.
 *
 *   node dist/bench/reliability/soak.js [--requests 1000000] [--eras modern,legacy,stdio]
 *        [--connections 8] [--warmup 0.1] [--tolerance 0.10]
 */
import { spawn } from 'node:child_process';
import { type HttpConnection, openConnection } from '../lib/http.js';
import { openSession } from '../lib/mcp-http.js';
import { initializeParams, modernHeaders, notification, postHead, requestRenderer, rpc, sessionHeaders, withBody } from '../lib/mcp.js';
import { arg, cpuSecondsOf, EXAMPLE_MAIN, META, mib, rssOf, SIMPLE_TEXT, startHttp } from './example-server.js';

type Era = 'modern' | 'legacy' | 'stdio' | 'churn';

interface Sample {
  requests: number;
  rss: number;
}

interface SoakResult {
  era: Era;
  requests: number;
  wrong: number;
  firstWrong?: string;
  seconds: number;
  serverCpuSeconds: number;
  samples: Sample[];
  baseline: number;
  peak: number;
  final: number;
  flat: boolean;
}

const TOTAL = Number(arg('requests', '1000000'));
const CONNECTIONS = Number(arg('connections', '8'));
const WARMUP = Number(arg('warmup', '0.1'));
const TOLERANCE = Number(arg('tolerance', '0.10'));
const ERAS = arg('eras', 'modern,legacy,stdio,churn').split(',') as Era[];
const SAMPLE_MS = 500;

const CALL = { name: 'test_simple_text', arguments: {} };
const MARK = Buffer.from(SIMPLE_TEXT);
const ERROR = Buffer.from('"error"');

/** Samples the server's RSS every SAMPLE_MS along with the requests answered so far. */
function sampler(pid: number, answered: () => number): { samples: Sample[]; stop(): void } {
  const samples: Sample[] = [];
  const take = () => {
    const rss = rssOf(pid);
    if (rss !== undefined) samples.push({ requests: answered(), rss });
  };
  take();
  const timer = setInterval(take, SAMPLE_MS);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
    },
  };
}

/**
 * Flat after warm-up: the median RSS of the last fifth of the samples after warm-up against the
 * median of the first fifth. Medians, because a garbage-collected heap saws up and down by more
 * than 10% between collections; a leak moves the whole level.
 */
function judge(samples: Sample[], total: number): Pick<SoakResult, 'baseline' | 'peak' | 'final' | 'flat'> {
  const after = samples.filter((s) => s.requests >= total * WARMUP);
  const fifth = Math.max(1, Math.floor(after.length / 5));
  const median = (xs: Sample[]) => {
    const sorted = xs.map((s) => s.rss).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  const baseline = median(after.slice(0, fifth));
  const final = median(after.slice(-fifth));
  const peak = Math.max(...after.map((s) => s.rss));
  return { baseline, peak, final, flat: final <= baseline * (1 + TOLERANCE) };
}

/** Closed loop over HTTP connections until `total` answers; `render(i)` is request i. */
function httpLoop(conns: HttpConnection[], render: (c: number, id: number) => string, total: number, onAnswer: () => void) {
  return new Promise<{ wrong: number; firstWrong?: string }>((resolve) => {
    let sent = 0;
    let done = 0;
    let wrong = 0;
    let firstWrong: string | undefined;
    conns.forEach((conn, c) => {
      const next = () => {
        if (sent >= total) return;
        conn.send(render(c, ++sent));
      };
      conn.onResponse = (err, res) => {
        done++;
        onAnswer();
        if (err || !res || res.status !== 200 || res.body.indexOf(MARK) < 0 || res.body.indexOf(ERROR) >= 0) {
          wrong++;
          firstWrong ??= err ? err.message : `HTTP ${res?.status}: ${res?.body.toString('utf8').slice(0, 300)}`;
        }
        if (done >= total) resolve({ wrong, firstWrong });
        else next();
      };
      next();
    });
  });
}

async function soakHttp(era: 'modern' | 'legacy'): Promise<SoakResult> {
  const server = await startHttp(0);
  const ep = { port: server.port, path: server.url.pathname };
  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => openConnection(ep.port)));
  try {
    let renderers: Array<(id: number) => string>;
    if (era === 'modern') {
      const render = requestRenderer(postHead(ep.port, ep.path, modernHeaders('tools/call', 'test_simple_text')), 'tools/call', {
        ...CALL,
        _meta: META,
      });
      renderers = conns.map(() => render);
    } else {
      const sessions = await Promise.all(conns.map((c, i) => openSession(c, ep, `session ${i}`)));
      renderers = sessions.map((sid) => requestRenderer(postHead(ep.port, ep.path, sessionHeaders(sid)), 'tools/call', CALL));
    }
    let answered = 0;
    const cpu0 = cpuSecondsOf(server.pid) ?? 0;
    const rss = sampler(server.pid, () => answered);
    const t0 = performance.now();
    const { wrong, firstWrong } = await httpLoop(
      conns,
      (c, id) => renderers[c]!(id),
      TOTAL,
      () => answered++,
    );
    const seconds = (performance.now() - t0) / 1000;
    rss.stop();
    const serverCpuSeconds = (cpuSecondsOf(server.pid) ?? 0) - cpu0;
    return { era, requests: answered, wrong, firstWrong, seconds, serverCpuSeconds, samples: rss.samples, ...judge(rss.samples, TOTAL) };
  } finally {
    for (const c of conns) c.close();
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

/** 2026-07-28 over stdio: WINDOW requests in flight, a new one written for each answer. */
async function soakStdio(): Promise<SoakResult> {
  const WINDOW = 64;
  const child = spawn(process.execPath, [EXAMPLE_MAIN, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const pid = child.pid!;
  const params = JSON.stringify({ ...CALL, _meta: META });
  const line = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}\n`;
  let answered = 0;
  let sent = 0;
  let wrong = 0;
  let firstWrong: string | undefined;
  const cpu0 = cpuSecondsOf(pid) ?? 0;
  const rss = sampler(pid, () => answered);
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      let more = '';
      while (nl >= 0) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
        answered++;
        if (!text.includes(SIMPLE_TEXT) || text.includes('"error"')) {
          wrong++;
          firstWrong ??= text.slice(0, 300);
        }
        if (sent < TOTAL) more += line(++sent);
      }
      if (more) child.stdin.write(more);
      if (answered >= TOTAL) resolve();
    });
    let first = '';
    while (sent < Math.min(WINDOW, TOTAL)) first += line(++sent);
    child.stdin.write(first);
  });
  const seconds = (performance.now() - t0) / 1000;
  rss.stop();
  const serverCpuSeconds = (cpuSecondsOf(pid) ?? 0) - cpu0;
  child.stdin.end();
  await new Promise((resolve) => child.once('exit', resolve));
  return {
    era: 'stdio',
    requests: answered,
    wrong,
    firstWrong,
    seconds,
    serverCpuSeconds,
    samples: rss.samples,
    ...judge(rss.samples, TOTAL),
  };
}

function report(r: SoakResult): void {
  const rate = Math.round(r.requests / r.seconds);
  console.log(`\n${r.era}: ${r.requests} requests in ${r.seconds.toFixed(1)} s (${rate} req/s), ${r.wrong} wrong answers`);
  if (r.firstWrong) console.log(`  first wrong answer: ${r.firstWrong}`);
  console.log(`  server CPU: ${r.serverCpuSeconds.toFixed(1)} s (${((r.serverCpuSeconds / r.requests) * 1e6).toFixed(1)} µs per request)`);
  const change = ((r.final - r.baseline) / r.baseline) * 100;
  console.log(
    `  RSS (median of the first and last fifth after warm-up): ${mib(r.baseline)} → ${mib(r.final)} (${change >= 0 ? '+' : ''}${change.toFixed(1)}%, limit +${TOLERANCE * 100}%; peak ${mib(r.peak)}): ${r.flat ? 'flat' : 'GROWS'}`,
  );
  const step = Math.max(1, Math.floor(r.samples.length / 10));
  const rows = r.samples.filter((_, i) => i % step === 0 || i === r.samples.length - 1);
  console.log(`  ${rows.map((s) => `${Math.round(s.requests / 1000)}k:${mib(s.rss)}`).join('  ')}`);
}

/**
 * Session churn: each connection runs initialize → notifications/initialized → tools/call
 * (an event stream) → DELETE in a loop. Counts every request; only the call's answer is checked
 * for the tool's text, the others for their status.
 */
async function soakChurn(): Promise<SoakResult> {
  const server = await startHttp(0);
  const ep = { port: server.port, path: server.url.pathname };
  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => openConnection(ep.port)));
  const init = withBody(postHead(ep.port, ep.path, {}), rpc(0, 'initialize', initializeParams()));
  const LOGGED = Buffer.from('test_logging_tool ran');
  let answered = 0;
  let wrong = 0;
  let firstWrong: string | undefined;
  const cpu0 = cpuSecondsOf(server.pid) ?? 0;
  const rss = sampler(server.pid, () => answered);
  const t0 = performance.now();
  try {
    await Promise.all(
      conns.map(async (conn) => {
        conn.captureHeaders = true;
        while (answered < TOTAL) {
          const check = (ok: boolean, what: string, body: Buffer) => {
            answered++;
            if (!ok) {
              wrong++;
              firstWrong ??= `${what}: ${body.toString('utf8').slice(0, 300)}`;
            }
          };
          const opened = await conn.request(init);
          const sid = opened.headers['mcp-session-id'];
          check(opened.status === 200 && sid !== undefined, 'initialize', opened.body);
          if (sid === undefined) continue;
          const head = postHead(ep.port, ep.path, sessionHeaders(sid));
          const ack = await conn.request(withBody(head, notification('notifications/initialized')));
          check(ack.status === 202, 'initialized', ack.body);
          const call = await conn.request(withBody(head, rpc(1, 'tools/call', { name: 'test_logging_tool', arguments: {} })));
          check(call.status === 200 && call.body.indexOf(LOGGED) >= 0 && call.body.indexOf(ERROR) < 0, 'tools/call', call.body);
          const end = `DELETE ${ep.path} HTTP/1.1\r\nHost: 127.0.0.1:${ep.port}\r\nMcp-Session-Id: ${sid}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: 0\r\n\r\n`;
          const deleted = await conn.request(end);
          check(deleted.status === 200, 'DELETE', deleted.body);
        }
      }),
    );
  } finally {
    for (const c of conns) c.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  rss.stop();
  const serverCpuSeconds = (cpuSecondsOf(server.pid) ?? 0) - cpu0;
  server.child.kill('SIGTERM');
  await server.exited;
  return {
    era: 'churn',
    requests: answered,
    wrong,
    firstWrong,
    seconds,
    serverCpuSeconds,
    samples: rss.samples,
    ...judge(rss.samples, TOTAL),
  };
}

const results: SoakResult[] = [];
for (const era of ERAS) {
  const r = era === 'stdio' ? await soakStdio() : era === 'churn' ? await soakChurn() : await soakHttp(era);
  report(r);
  results.push(r);
}
const failed = results.filter((r) => r.wrong > 0 || !r.flat || r.requests < TOTAL);
console.log(`\nSOAK: ${failed.length === 0 ? 'OK' : `FAILED (${failed.map((r) => r.era).join(', ')})`}`);
process.exitCode = failed.length === 0 ? 0 : 1;
