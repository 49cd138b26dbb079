/**
 * Scenario 5: `subscriptions/listen` fan-out over Streamable HTTP. N open listen streams
 * (each its own connection, as HTTP/1.1 requires), one tools `list_changed`, and the time
 * from the server's publish call until the last stream has read it. Memory per open stream
 * from RSS after forced GCs.
 */
import { connect, type Socket } from 'node:net';
import { orderFor, record, type Ctx, KB } from '../lib/context.js';
import { modernHeaders, modernMeta, postHead, rpc, streamMessagesOf, withBody, WrongAnswer } from '../lib/mcp.js';
import { checkEchoHttp } from '../lib/mcp-http.js';
import { cpuSeconds, ServerProcess, sleep, withTimeout } from '../lib/proc.js';

const ACK = 'notifications/subscriptions/acknowledged';
const CHANGED = 'notifications/tools/list_changed';
const OPEN_CONCURRENCY = 256;

const ACK_BYTES = Buffer.from(ACK);
const CHANGED_BYTES = Buffer.from(CHANGED);
const OK_STATUS = Buffer.from('HTTP/1.1 200');
const ERROR_BYTES = Buffer.from('"error"');

/**
 * One listen stream. The receive path only searches the raw chunk for the notification's
 * method (so the client, not the server, is not what the fan-out time measures); the
 * stream's messages are parsed and checked afterwards.
 */
export class ListenStream {
  socket!: Socket;
  chunks: Buffer[] = [];
  acked = false;
  changedAt = 0n;
  onChanged: (() => void) | undefined;

  constructor(readonly id: number) {}

  open(port: number, request: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket = connect({ port, host: '127.0.0.1', noDelay: true });
      this.socket.once('error', reject);
      this.socket.on('data', (chunk: Buffer) => {
        if (this.changedAt !== 0n) return;
        if (this.acked) {
          this.chunks.push(chunk);
          // A notification is one small SSE event written at once; should it ever arrive
          // split, fall back to searching everything received.
          if (chunk.indexOf(CHANGED_BYTES) >= 0 || Buffer.concat(this.chunks).indexOf(CHANGED_BYTES) >= 0) {
            this.changedAt = process.hrtime.bigint();
            this.onChanged?.();
          }
          return;
        }
        this.chunks.push(chunk);
        const all = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks);
        if (all.indexOf(ACK_BYTES) >= 0) {
          this.acked = true;
          resolve();
        } else if (all.indexOf(ERROR_BYTES) >= 0 || (all.length >= 12 && all.indexOf(OK_STATUS) !== 0)) {
          reject(new WrongAnswer(`listen ${this.id}: ${all.toString('latin1').slice(0, 400)}`));
        }
      });
      this.socket.write(request);
    });
  }

  /** Checks the stream's messages: the ack first, then list_changed, both with its subscription id. */
  verify(what: string): void {
    const { sse, msgs } = streamMessagesOf(this.chunks);
    const sub = (m: Record<string, any>) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId'];
    if (msgs[0]?.method !== ACK || sub(msgs[0]) !== this.id)
      throw new WrongAnswer(`${what}: stream ${this.id} did not start with its acknowledgement: ${sse.slice(0, 300)}`);
    const changed = msgs.find((m) => m.method === CHANGED);
    if (!changed || sub(changed) !== this.id)
      throw new WrongAnswer(`${what}: stream ${this.id} got no list_changed with its subscription id: ${sse.slice(0, 400)}`);
  }

  close(): void {
    this.socket?.destroy();
  }
}

export async function openAll(streams: ListenStream[], port: number, path: string): Promise<void> {
  const head = postHead(port, path, modernHeaders('subscriptions/listen'));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < streams.length) {
      const s = streams[next++]!;
      await s.open(
        port,
        withBody(head, rpc(s.id, 'subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: modernMeta() })),
      );
    }
  };
  await Promise.all(Array.from({ length: OPEN_CONCURRENCY }, worker));
}

export async function listen(ctx: Ctx, scenario: string): Promise<void> {
  const sizes = ctx.opts.quick ? [100, 1000] : [1000, 10_000];
  for (let rep = 0; rep < ctx.opts.reps; rep++) {
    for (const impl of orderFor(rep, ctx.opts.impls)) {
      for (const n of sizes) {
        const srv = new ServerProcess(impl, { transport: 'http', mode: 'modern' }, ctx.pinning);
        const what = `${impl} ${scenario} ${n} streams`;
        const streams = Array.from({ length: n }, (_, i) => new ListenStream(i + 1));
        const base = { scenario, step: `${n} streams`, impl, rep };
        try {
          await srv.ready();
          const ep = { port: srv.port, path: srv.path };
          await checkEchoHttp(ep, 'modern', `${what} before`);
          // Warm up with a tenth as many streams, then close them: the code is compiled and
          // V8's young generation has grown before the baseline, so the RSS delta measures
          // what open streams keep rather than heap growth.
          const warm = Array.from({ length: Math.max(20, n / 10) }, (_, i) => new ListenStream(1_000_000 + i));
          try {
            await withTimeout(openAll(warm, srv.port, srv.path), 10_000, `${what}: warm-up streams`);
          } catch (e) {
            if (e instanceof WrongAnswer && /Method not found|-32601/.test(e.message)) {
              for (const metric of ['time to reach all', 'RSS per open stream']) {
                record(ctx, { ...base, metric, unit: metric.startsWith('time') ? 'ms' : 'KB', better: 'lower', value: null });
              }
              ctx.log(`  ${scenario} rep ${rep + 1} ${impl}: subscriptions/listen not supported (n/a)`);
              continue;
            }
            throw e;
          } finally {
            for (const s of warm) s.close();
          }
          await sleep(300); // let the server see the hang-ups
          const before = await srv.gc();
          const t0 = performance.now();
          const cpu0 = cpuSeconds(srv.pid);
          await withTimeout(openAll(streams, srv.port, srv.path), 120_000, `${what}: opening`);
          const openSeconds = (performance.now() - t0) / 1000;
          const openCpu = cpuSeconds(srv.pid) - cpu0;
          const after = await srv.gc();
          let left = n;
          const all = new Promise<void>((resolve) => {
            for (const s of streams) {
              s.onChanged = () => {
                if (--left === 0) resolve();
              };
            }
          });
          const cpuGen0 = process.cpuUsage();
          const cpuSrv0 = cpuSeconds(srv.pid);
          const published = await srv.notify();
          if (published === undefined) throw new Error(`${what}: the server cannot publish list_changed`);
          await withTimeout(all, 60_000, `${what}: list_changed to reach every stream`);
          const genUsed = process.cpuUsage(cpuGen0);
          const genCpuMs = (genUsed.user + genUsed.system) / 1000;
          const srvCpuMs = (cpuSeconds(srv.pid) - cpuSrv0) * 1000;
          let last = 0n;
          let first = -1n;
          for (const s of streams) {
            if (s.changedAt > last) last = s.changedAt;
            if (first < 0n || s.changedAt < first) first = s.changedAt;
          }
          const firstMs = Number(first - published.t) / 1e6;
          const fanoutMs = Number(last - published.t) / 1e6;
          const publishMs = Number(published.returned - published.t) / 1e6;
          for (const s of streams) s.verify(what);
          await checkEchoHttp(ep, 'modern', `${what} after`);
          const perStream = (after.rss - before.rss) / n / KB;
          const heapPer = (after.heapUsed + after.external - before.heapUsed - before.external) / n / KB;
          record(ctx, { ...base, metric: 'time to reach all', unit: 'ms', better: 'lower', value: fanoutMs });
          record(ctx, { ...base, metric: 'publish call (server)', unit: 'ms', better: 'lower', value: publishMs, diagnostic: true });
          record(ctx, { ...base, metric: 'time to reach first', unit: 'ms', better: 'lower', value: firstMs, diagnostic: true });
          record(ctx, { ...base, metric: 'server CPU during fan-out', unit: 'ms', better: 'lower', value: srvCpuMs, diagnostic: true });
          record(ctx, {
            ...base,
            metric: 'load generator CPU during fan-out',
            unit: 'ms',
            better: 'lower',
            value: genCpuMs,
            diagnostic: true,
          });
          record(ctx, { ...base, metric: 'RSS per open stream', unit: 'KB', better: 'lower', value: perStream });
          record(ctx, { ...base, metric: 'heap per open stream', unit: 'KB', better: 'lower', value: heapPer });
          record(ctx, { ...base, metric: 'streams opened/s', unit: '/s', better: 'higher', value: n / openSeconds });
          record(ctx, { ...base, metric: 'server CPU/stream open', unit: 'µs', better: 'lower', value: (openCpu * 1e6) / n });
          ctx.log(
            `  ${scenario} rep ${rep + 1} ${impl.padEnd(5)} ${String(n).padStart(5)} streams: reached all in ${fanoutMs.toFixed(1)} ms (first ${firstMs.toFixed(1)} ms, server CPU ${srvCpuMs.toFixed(0)} ms, generator CPU ${genCpuMs.toFixed(0)} ms), ${perStream.toFixed(1)} KB RSS/stream, ${heapPer.toFixed(1)} KB heap/stream, opened ${(n / openSeconds).toFixed(0)}/s`,
          );
        } finally {
          for (const s of streams) s.close();
          await srv.stop();
        }
      }
    }
  }
}
