/**
 * A server killed and restarted under load, seen from Janus clients (docs/reliability.md): the
 * example server on a fixed port, one 2026-07-28 client and one 2025-11-25 client calling
 * test_simple_text from several workers each; the server is killed with SIGKILL mid-load and
 * started again on the same port. Reported per client: calls that succeeded before the kill,
 * how calls failed while the server was down (and how long each took to fail), whether the same
 * client object works again after the restart without any help (a 2026-07-28 client simply
 * sends its next request; a 2025-11-25 client gets 404 for its old session and initializes a new
 * one), how long after the restart the first call succeeded, and whether any call hung.
 * Exit code 1 when a client does not recover or a call outlives its timeout.
 *
 *   node dist/bench/reliability/restart.js [--workers 4] [--down-ms 1000] [--timeout-ms 5000]
 */
import { type Client, connect } from '../../src/client/index.js';
import { arg, freePort, LEGACY, SIMPLE_TEXT, startHttp, type HttpChild } from './example-server.js';

const WORKERS = Number(arg('workers', '4'));
const DOWN_MS = Number(arg('down-ms', '1000'));
const TIMEOUT_MS = Number(arg('timeout-ms', '5000'));
const LOAD_MS = 1500;

interface Call {
  start: number;
  end: number;
  ok: boolean;
  error?: string;
}

/** The error's class and a short text, e.g. "ChannelError: could not connect …". */
function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = 'code' in e ? ` ${String(e.code)}` : '';
  return `${e.constructor.name}${code}: ${e.message.split('\n')[0]!.slice(0, 120)}`;
}

async function load(client: Client, until: () => boolean): Promise<Call[]> {
  const calls: Call[] = [];
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (!until()) {
        const start = performance.now();
        try {
          const r = await client.callTool('test_simple_text', {}, { timeoutMs: TIMEOUT_MS });
          const c = r.content[0];
          const ok = c?.type === 'text' && c.text === SIMPLE_TEXT;
          calls.push({ start, end: performance.now(), ok, ...(ok ? {} : { error: `wrong answer ${JSON.stringify(r)}` }) });
        } catch (e) {
          calls.push({ start, end: performance.now(), ok: false, error: describeError(e) });
          await new Promise((r) => setTimeout(r, 50)); // a client retrying in a loop would back off
        }
      }
    }),
  );
  return calls;
}

const port = await freePort();
let server: HttpChild = await startHttp(port);
const url = server.url.href;
const warnings: string[] = [];
const clients = {
  '2026-07-28': await connect(url, { timeoutMs: TIMEOUT_MS, onWarning: (w) => warnings.push(`modern: ${w}`) }),
  '2025-11-25': await connect(url, { protocolVersion: LEGACY, timeoutMs: TIMEOUT_MS, onWarning: (w) => warnings.push(`legacy: ${w}`) }),
};
let stop = false;
const loads = Object.values(clients).map((c) => load(c, () => stop));

await new Promise((r) => setTimeout(r, LOAD_MS));
const killedAt = performance.now();
server.child.kill('SIGKILL');
await server.exited;
await new Promise((r) => setTimeout(r, DOWN_MS));
server = await startHttp(port);
const upAt = performance.now();
await new Promise((r) => setTimeout(r, LOAD_MS));
stop = true;
const results = await Promise.all(loads);

let recovered = true;
Object.keys(clients).forEach((name, i) => {
  const calls = results[i]!;
  const before = calls.filter((c) => c.end < killedAt);
  const during = calls.filter((c) => c.end >= killedAt && c.start < upAt);
  const after = calls.filter((c) => c.start >= upAt);
  const firstOk = after.find((c) => c.ok);
  const kinds = new Map<string, number>();
  for (const c of during.filter((x) => !x.ok)) kinds.set(c.error!, (kinds.get(c.error!) ?? 0) + 1);
  const slowest = Math.max(0, ...during.map((c) => c.end - c.start));
  const hung = calls.filter((c) => c.end - c.start > TIMEOUT_MS + 1000).length;
  const failedAfter = after.filter((c) => !c.ok);
  const ok = firstOk !== undefined && hung === 0 && failedAfter.length <= WORKERS;
  recovered &&= ok;
  console.log(`${name} client (${clients[name as keyof typeof clients].era}, ${clients[name as keyof typeof clients].protocolVersion}):`);
  console.log(`  before the kill: ${before.filter((c) => c.ok).length} calls ok, ${before.filter((c) => !c.ok).length} failed`);
  console.log(
    `  while down (${DOWN_MS} ms): ${during.filter((c) => c.ok).length} ok, ${during.length - during.filter((c) => c.ok).length} failed, slowest ${Math.round(slowest)} ms`,
  );
  for (const [k, n] of kinds) console.log(`    ${n} × ${k}`);
  console.log(
    `  after the restart: ${after.filter((c) => c.ok).length} ok, ${failedAfter.length} failed${failedAfter[0] ? ` (first: ${failedAfter[0].error})` : ''}`,
  );
  console.log(
    `  first success ${firstOk ? `${Math.round(firstOk.end - upAt)} ms after the server was up again` : 'never'}; calls past their timeout: ${hung}`,
  );
});
if (warnings.length > 0) console.log(`client warnings: ${warnings.length}, first: ${warnings[0]}`);
for (const c of Object.values(clients)) await c.close();
server.child.kill('SIGTERM');
await server.exited;
console.log(`\nRESTART: ${recovered ? 'OK (both clients recovered by themselves)' : 'FAILED'}`);
process.exitCode = recovered ? 0 : 1;
