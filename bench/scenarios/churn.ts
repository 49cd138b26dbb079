/**
 * Scenario 3: session churn. 1,000 clients, each on its own connection, do `initialize`,
 * `notifications/initialized` and one `tools/call`, then hang up, leaving the session open
 * on the server. Sessions/s, and memory per open session from RSS after forced GCs.
 */
import { orderFor, record, type Ctx, KB } from '../lib/context.js';
import { openConnection } from '../lib/http.js';
import { checkEcho, echoParams, postHead, responseTo, rpc, sessionHeaders, withBody, WrongAnswer } from '../lib/mcp.js';
import { checkEchoHttp, openSession } from '../lib/mcp-http.js';
import { cpuSeconds, ServerProcess, sleep } from '../lib/proc.js';

const CONCURRENCY = 16;

/** `count` clients, CONCURRENCY at a time, each on its own connection; collects session ids. */
export async function runClients(
  _ctx: Ctx,
  srv: ServerProcess,
  impl: string,
  scenario: string,
  count: number,
  sessionIds: string[],
): Promise<void> {
  const ep = { port: srv.port, path: srv.path };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const k = next++;
      const what = `${impl} ${scenario} client ${k}`;
      const conn = await openConnection(srv.port);
      try {
        const sid = await openSession(conn, ep, what);
        sessionIds.push(sid);
        const res = await conn.request(
          withBody(postHead(srv.port, srv.path, sessionHeaders(sid)), rpc(1, 'tools/call', echoParams('legacy'))),
        );
        if (res.status !== 200) throw new WrongAnswer(`${what}: tools/call answered HTTP ${res.status}`);
        checkEcho(responseTo(res, 1, what), what, 'legacy');
      } finally {
        conn.close();
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export async function churn(ctx: Ctx, scenario: string): Promise<void> {
  const clients = ctx.opts.quick ? 200 : 1000;
  for (let rep = 0; rep < ctx.opts.reps; rep++) {
    for (const impl of orderFor(rep, ctx.opts.impls)) {
      const srv = new ServerProcess(impl, { transport: 'http', mode: 'session', nodeFlags: ctx.opts.nodeFlags }, ctx.pinning);
      try {
        await srv.ready();
        const ep = { port: srv.port, path: srv.path };
        await checkEchoHttp(ep, 'legacy', `${impl} ${scenario} before churn`);
        // Warm up with the same workload (a fifth as many clients, sessions left open), so the
        // code is compiled and V8's young generation has grown to its working size before the
        // baseline: otherwise RSS deltas measure heap growth, not what a session keeps.
        await runClients(ctx, srv, impl, scenario, Math.round(clients / 5), []);
        const before = await srv.gc();
        const cpu0 = cpuSeconds(srv.pid);
        const t0 = performance.now();
        const sessionIds: string[] = [];
        await runClients(ctx, srv, impl, scenario, clients, sessionIds);
        const seconds = (performance.now() - t0) / 1000;
        const cpu = cpuSeconds(srv.pid) - cpu0;
        await sleep(300); // let the server see the hang-ups
        const after = await srv.gc();
        // Sessions were left open: the first one must still answer.
        await checkEchoHttp(ep, 'legacy', `${impl} ${scenario} after churn (first session)`, sessionIds[0]);
        const base = { scenario, step: `${clients} sessions`, impl, rep };
        const perSession = (after.rss - before.rss) / clients / KB;
        const heapPer = (after.heapUsed + after.external - before.heapUsed - before.external) / clients / KB;
        record(ctx, { ...base, metric: 'sessions/s', unit: '/s', better: 'higher', value: clients / seconds });
        record(ctx, { ...base, metric: 'RSS per open session', unit: 'KB', better: 'lower', value: perSession });
        record(ctx, { ...base, metric: 'heap per open session', unit: 'KB', better: 'lower', value: heapPer });
        record(ctx, { ...base, metric: 'server CPU/session', unit: 'µs', better: 'lower', value: (cpu * 1e6) / clients });
        ctx.log(
          `  ${scenario} rep ${rep + 1} ${impl.padEnd(5)}: ${(clients / seconds).toFixed(0)} sessions/s, ${perSession.toFixed(1)} KB RSS/session, ${heapPer.toFixed(1)} KB heap/session`,
        );
      } finally {
        await srv.stop();
      }
    }
  }
}
