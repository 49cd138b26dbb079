/**
 * Scenario 6: one MRTR round trip (2026-07-28 `tools/call` answered `input_required`, then
 * the retry with `inputResponses` and the echoed `requestState`), one task round trip where the
 * tasks extension is on (`janus-tasks`), and `tools/list` of a server with 1,000 tools (plus
 * `echo` and `ask`). Sequential, over one connection.
 */
import { orderFor, record, type Ctx, KB } from '../lib/context.js';
import { openConnection, type HttpConnection } from '../lib/http.js';
import { modernHeaders, modernMeta, postHead, responseTo, rpc, withBody, WrongAnswer } from '../lib/mcp.js';
import { checkEchoHttp } from '../lib/mcp-http.js';
import { cpuSeconds, ServerProcess } from '../lib/proc.js';
import { latencySummary } from '../lib/stats.js';
import { extraToolName } from '../servers/control.js';

/** One full MRTR round trip, checked. */
async function mrtrRoundTrip(conn: HttpConnection, port: number, path: string, id: number, what: string): Promise<void> {
  const head = postHead(port, path, modernHeaders('tools/call', 'ask'));
  const params = { name: 'ask', arguments: {}, _meta: modernMeta({ elicitation: {} }) };
  const first = responseTo(await conn.request(withBody(head, rpc(id, 'tools/call', params))), id, `${what} (first call)`);
  if (first.resultType !== 'input_required' || typeof first.inputRequests !== 'object') {
    throw new WrongAnswer(`${what}: expected input_required, got ${JSON.stringify(first).slice(0, 300)}`);
  }
  const inputResponses: Record<string, unknown> = {};
  for (const [key, req] of Object.entries(first.inputRequests as Record<string, { method: string }>)) {
    if (req.method !== 'elicitation/create') throw new WrongAnswer(`${what}: unexpected input request ${JSON.stringify(req)}`);
    inputResponses[key] = { action: 'accept', content: { name: 'bench' } };
  }
  const retry: Record<string, unknown> = { ...params, inputResponses };
  if (first.requestState !== undefined) retry.requestState = first.requestState;
  const second = responseTo(await conn.request(withBody(head, rpc(id + 1, 'tools/call', retry))), id + 1, `${what} (retry)`);
  const text = second.content?.[0]?.text;
  if ((second.resultType ?? 'complete') !== 'complete' || text !== 'hello bench') {
    throw new WrongAnswer(`${what}: wrong answer after the retry: ${JSON.stringify(second).slice(0, 300)}`);
  }
}

const TASKS = 'io.modelcontextprotocol/tasks';

/**
 * One task round trip (the 2026 tasks extension): `tools/call` of a task tool answered with a
 * CreateTaskResult, then `tasks/get` until the task has completed, its inlined result checked.
 * The handler answers at once, so this times the extension's own work: the durable create, the
 * record's updates, and the polls.
 */
async function taskRoundTrip(conn: HttpConnection, port: number, path: string, id: number, what: string): Promise<number> {
  const meta = modernMeta({ extensions: { [TASKS]: {} } });
  const call = rpc(id, 'tools/call', { name: 'echo_task', arguments: { text: 'bench' }, _meta: meta });
  const created = responseTo(await conn.request(withBody(postHead(port, path, modernHeaders('tools/call', 'echo_task')), call)), id, what);
  if (created.resultType !== 'task' || typeof created.taskId !== 'string') {
    throw new WrongAnswer(`${what}: expected a CreateTaskResult, got ${JSON.stringify(created).slice(0, 300)}`);
  }
  const head = postHead(port, path, modernHeaders('tasks/get', created.taskId));
  for (let polls = 1; polls <= 1000; polls++) {
    const got = responseTo(
      await conn.request(withBody(head, rpc(id + polls, 'tasks/get', { taskId: created.taskId, _meta: meta }))),
      id + polls,
      what,
    );
    if (got.status === 'completed') {
      if (got.result?.content?.[0]?.text !== 'bench')
        throw new WrongAnswer(`${what}: wrong task result ${JSON.stringify(got).slice(0, 300)}`);
      return polls;
    }
    if (got.status !== 'working') throw new WrongAnswer(`${what}: task ended ${got.status}: ${JSON.stringify(got).slice(0, 300)}`);
  }
  throw new WrongAnswer(`${what}: the task did not complete after 1,000 polls`);
}

function checkList(result: Record<string, any>, what: string): number {
  const tools = result.tools as Array<{ name: string; inputSchema?: unknown }> | undefined;
  const names = new Set(tools?.map((t) => t.name));
  const want = ['echo', 'ask', extraToolName(0), extraToolName(999)];
  // `janus-tasks` has its task tool besides.
  const expected = 1002 + (names.has('echo_task') ? 1 : 0);
  if (tools?.length !== expected || want.some((n) => !names.has(n)) || result.nextCursor !== undefined) {
    throw new WrongAnswer(`${what}: expected the ${expected} tools on one page, got ${tools?.length} (nextCursor ${result.nextCursor})`);
  }
  return tools.length;
}

/** Runs `op` back to back: a warm-up, then a measured window; returns rate, latencies, CPU. */
async function timed(pid: number, warmMs: number, durationMs: number, op: (i: number) => Promise<void>) {
  let i = 0;
  const warmEnd = performance.now() + warmMs;
  while (performance.now() < warmEnd) await op(i++);
  const lat: number[] = [];
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const end = t0 + durationMs;
  while (performance.now() < end) {
    const s = performance.now();
    await op(i++);
    lat.push(performance.now() - s);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { rate: lat.length / seconds, cpuPerOp: ((cpuSeconds(pid) - cpu0) * 1e6) / lat.length, ...latencySummary(Float64Array.from(lat)) };
}

export async function mrtrAndList(ctx: Ctx, scenario: string): Promise<void> {
  const warmMs = ctx.opts.quick ? 200 : 500;
  const durationMs = ctx.opts.quick ? 500 : 2000;
  for (let rep = 0; rep < ctx.opts.reps; rep++) {
    for (const impl of orderFor(rep, ctx.opts.impls)) {
      // MRTR
      {
        const srv = new ServerProcess(impl, { transport: 'http', mode: 'modern' }, ctx.pinning);
        const what = `${impl} ${scenario} MRTR`;
        try {
          await srv.ready();
          await checkEchoHttp({ port: srv.port, path: srv.path }, 'modern', `${what} before`);
          const conn = await openConnection(srv.port);
          const r = await timed(srv.pid, warmMs, durationMs, (i) => mrtrRoundTrip(conn, srv.port, srv.path, 2 * i + 1, what));
          conn.close();
          await checkEchoHttp({ port: srv.port, path: srv.path }, 'modern', `${what} after`);
          const base = { scenario, step: 'MRTR round trip', impl, rep };
          record(ctx, { ...base, metric: 'round trips/s', unit: '/s', better: 'higher', value: r.rate });
          record(ctx, { ...base, metric: 'p50 latency', unit: 'ms', better: 'lower', value: r.p50 });
          record(ctx, { ...base, metric: 'server CPU/round trip', unit: 'µs', better: 'lower', value: r.cpuPerOp });
          ctx.log(
            `  ${scenario} rep ${rep + 1} ${impl.padEnd(5)} MRTR: ${r.rate.toFixed(0)} round trips/s, p50 ${r.p50.toFixed(3)} ms, CPU ${r.cpuPerOp.toFixed(0)} µs`,
          );
        } finally {
          await srv.stop();
        }
      }
      // A task round trip, where the tasks extension is on (`--impls janus-tasks`).
      if (impl === 'janus-tasks') {
        const srv = new ServerProcess(impl, { transport: 'http', mode: 'modern' }, ctx.pinning);
        const what = `${impl} ${scenario} task`;
        try {
          await srv.ready();
          const conn = await openConnection(srv.port);
          let polls = 0;
          let rounds = 0;
          const r = await timed(srv.pid, warmMs, durationMs, async (i) => {
            polls += await taskRoundTrip(conn, srv.port, srv.path, 10_000 * i + 1, what);
            rounds++;
          });
          conn.close();
          await checkEchoHttp({ port: srv.port, path: srv.path }, 'modern', `${what} after`);
          const base = { scenario, step: 'task round trip (create + tasks/get)', impl, rep };
          record(ctx, { ...base, metric: 'round trips/s', unit: '/s', better: 'higher', value: r.rate });
          record(ctx, { ...base, metric: 'p50 latency', unit: 'ms', better: 'lower', value: r.p50 });
          record(ctx, { ...base, metric: 'server CPU/round trip', unit: 'µs', better: 'lower', value: r.cpuPerOp });
          record(ctx, { ...base, metric: 'tasks/get per round trip', unit: '', better: 'lower', value: polls / rounds, diagnostic: true });
          ctx.log(
            `  ${scenario} rep ${rep + 1} ${impl} task: ${r.rate.toFixed(0)} round trips/s, p50 ${r.p50.toFixed(3)} ms, CPU ${r.cpuPerOp.toFixed(0)} µs, ${(polls / rounds).toFixed(2)} polls`,
          );
        } finally {
          await srv.stop();
        }
      }
      // tools/list of 1,000 tools
      {
        const srv = new ServerProcess(impl, { transport: 'http', mode: 'modern', tools: 1000 }, ctx.pinning);
        const what = `${impl} ${scenario} tools/list`;
        try {
          await srv.ready(60_000);
          const conn = await openConnection(srv.port);
          const head = postHead(srv.port, srv.path, modernHeaders('tools/list'));
          let bytes = 0;
          const list = async (i: number, full: boolean): Promise<void> => {
            const res = await conn.request(withBody(head, rpc(i, 'tools/list', { _meta: modernMeta() })));
            if (res.status !== 200) throw new WrongAnswer(`${what}: HTTP ${res.status}: ${res.body.toString().slice(0, 300)}`);
            bytes = res.body.length;
            if (full) checkList(responseTo(res, i, what), what);
            else if (res.body.indexOf(`"${extraToolName(999)}"`) < 0) throw new WrongAnswer(`${what}: tool_0999 missing from the answer`);
          };
          await list(0, true);
          const r = await timed(srv.pid, warmMs, durationMs, (i) => list(i + 1, false));
          await list(1e9, true);
          conn.close();
          const base = { scenario, step: 'tools/list of 1,000 tools', impl, rep };
          record(ctx, { ...base, metric: 'lists/s', unit: '/s', better: 'higher', value: r.rate });
          record(ctx, { ...base, metric: 'p50 latency', unit: 'ms', better: 'lower', value: r.p50 });
          record(ctx, { ...base, metric: 'server CPU/list', unit: 'µs', better: 'lower', value: r.cpuPerOp });
          record(ctx, { ...base, metric: 'response size', unit: 'KB', better: 'lower', value: bytes / KB, diagnostic: true });
          ctx.log(
            `  ${scenario} rep ${rep + 1} ${impl.padEnd(5)} tools/list: ${r.rate.toFixed(0)}/s, p50 ${r.p50.toFixed(2)} ms, ${(bytes / KB).toFixed(0)} KB`,
          );
        } finally {
          await srv.stop();
        }
      }
    }
  }
}
