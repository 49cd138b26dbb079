/**
 * Scenario 7: cold start, from spawning the server process to the first answered request
 * (a 2026-07-28 `tools/call` of `echo`), over HTTP and over stdio. Beside it, what importing
 * Zod alone adds to starting Node (the Janus and SDK servers declare their tools with it, as
 * their users do; the bare server validates nothing): the part of the gap that is the schema
 * library's, not the MCP library's.
 */
import { spawn } from 'node:child_process';
import { orderFor, record, type Ctx } from '../lib/context.js';
import { openConnection } from '../lib/http.js';
import { checkEcho, echoParams, modernHeaders, postHead, responseTo, rpc, withBody, WrongAnswer } from '../lib/mcp.js';
import { ServerProcess, withTimeout, type Pinning } from '../lib/proc.js';
import { StdioClient } from '../lib/stdio.js';

export async function coldStart(ctx: Ctx, scenario: string): Promise<void> {
  const reps = Math.max(ctx.opts.reps, ctx.opts.quick ? 1 : 5);
  for (let rep = 0; rep < reps; rep++) {
    for (const impl of orderFor(rep, ctx.opts.impls)) {
      for (const transport of ['http', 'stdio'] as const) {
        const srv = new ServerProcess(impl, { transport, mode: 'modern' }, ctx.pinning);
        const what = `${impl} ${scenario} ${transport}`;
        try {
          let answeredAt: bigint;
          if (transport === 'stdio') {
            // Written at once: the request waits in the pipe until the server reads it.
            const client = new StdioClient(srv.child);
            const res = await withTimeout(client.request(1, rpc(1, 'tools/call', echoParams('modern'))), 30_000, `${what}: first answer`);
            answeredAt = process.hrtime.bigint();
            if (res.error) throw new WrongAnswer(`${what}: ${JSON.stringify(res.error)}`);
            checkEcho(res.result, what, 'modern');
            await srv.ready();
          } else {
            await srv.ready();
            const conn = await openConnection(srv.port);
            const res = await conn.request(
              withBody(postHead(srv.port, srv.path, modernHeaders('tools/call', 'echo')), rpc(1, 'tools/call', echoParams('modern'))),
            );
            answeredAt = process.hrtime.bigint();
            conn.close();
            if (res.status !== 200) throw new WrongAnswer(`${what}: HTTP ${res.status}`);
            checkEcho(responseTo(res, 1, what), what, 'modern');
          }
          const ms = Number(answeredAt - srv.spawnedAt) / 1e6;
          record(ctx, { scenario, step: transport, metric: 'start to first answer', unit: 'ms', better: 'lower', impl, rep, value: ms });
          ctx.log(`  ${scenario} rep ${rep + 1} ${impl.padEnd(5)} ${transport.padEnd(5)}: ${ms.toFixed(0)} ms`);
        } finally {
          await srv.stop();
        }
      }
    }
    const zod = (await exitTime(ctx.pinning, "await import('zod')")) - (await exitTime(ctx.pinning, ''));
    record(ctx, {
      scenario,
      step: 'Zod',
      metric: 'its import alone',
      unit: 'ms',
      better: 'lower',
      impl: 'janus',
      rep,
      value: zod,
    });
  }
}

/** Milliseconds from spawning `node` (pinned as the servers are) with `code` to its exit. */
function exitTime(pinning: Pinning, code: string): Promise<number> {
  const argv = [...pinning.serverPrefix, process.execPath, '--input-type=module', '-e', code];
  const start = process.hrtime.bigint();
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (status) => {
      if (status === 0) resolve(Number(process.hrtime.bigint() - start) / 1e6);
      else reject(new Error(`node -e ${JSON.stringify(code)} exited with ${status}`));
    });
  });
}
