/**
 * `npm run bench -- --heap <3|5>`: where the memory of an open 2025 session (scenario 3) or an
 * open listen stream (scenario 5) goes. Takes a heap snapshot of each server before and after
 * opening N of them and prints the growth per session/stream by constructor (V8 self sizes,
 * so it leaves out socket buffers and other memory outside the JS heap).
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ctx, Options } from './lib/context.js';
import { checkEchoHttp } from './lib/mcp-http.js';
import { ServerProcess, sleep, type Pinning } from './lib/proc.js';
import { runClients } from './scenarios/churn.js';
import { ListenStream, openAll } from './scenarios/listen.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

type Summary = Map<string, { count: number; size: number }>;

function summarize(file: string): Summary {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const nf = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const out: Summary = new Map();
  for (let i = 0; i < snap.nodes.length; i += nf) {
    const type = types[snap.nodes[i + iType]!]!;
    const name = snap.strings[snap.nodes[i + iName]!]!;
    const key = /string/.test(type) ? '(strings)' : type === 'number' ? '(heap numbers)' : `${type}: ${name.slice(0, 70)}`;
    const e = out.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += snap.nodes[i + iSize]!;
    out.set(key, e);
  }
  return out;
}

function diff(a: Summary, b: Summary, n: number, what: string): string {
  const rows: Array<{ key: string; count: number; size: number }> = [];
  for (const [key, e] of b) {
    const before = a.get(key) ?? { count: 0, size: 0 };
    rows.push({ key, count: (e.count - before.count) / n, size: (e.size - before.size) / n });
  }
  const total = rows.reduce((s, r) => s + r.size, 0);
  const lines = [`Heap growth per ${what}: ${(total / 1024).toFixed(2)} KB (V8 self sizes)`, '      bytes   objects  constructor'];
  for (const r of rows.sort((x, y) => y.size - x.size).slice(0, 30)) {
    if (r.size < 8) break;
    lines.push(`  ${r.size.toFixed(0).padStart(9)}  ${r.count.toFixed(2).padStart(8)}  ${r.key}`);
  }
  return lines.join('\n');
}

export async function heap(which: string, pinning: Pinning, base: Options): Promise<number> {
  const dir = join(root, 'bench', 'results', `heap-${which}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(dir, { recursive: true });
  const n = 1000;
  const impls = base.impls.length === 3 ? (['bare', 'janus'] as const) : base.impls;
  const ctx: Ctx = { opts: { ...base, reps: 1 }, pinning, samples: [], log: (s) => console.log(s) };
  for (const impl of impls) {
    const srv = new ServerProcess(impl, { transport: 'http', mode: which === '3' ? 'session' : 'modern' }, pinning);
    const streams: ListenStream[] = [];
    try {
      await srv.ready();
      const ep = { port: srv.port, path: srv.path };
      let what: string;
      if (which === '3') {
        what = 'open 2025-11-25 session';
        await checkEchoHttp(ep, 'legacy', `${impl} heap`);
        await runClients(ctx, srv, impl, 'heap', 200, []);
      } else if (which === '5') {
        what = 'open listen stream';
        const warm = Array.from({ length: 100 }, (_, i) => new ListenStream(1_000_000 + i));
        await openAll(warm, srv.port, srv.path);
        for (const s of warm) s.close();
        await sleep(300);
      } else {
        throw new Error('--heap takes 3 (sessions) or 5 (listen streams)');
      }
      const a = await srv.heapSnapshot(join(dir, `${impl}-before.heapsnapshot`));
      if (which === '3') {
        await runClients(ctx, srv, impl, 'heap', n, []);
        await sleep(300);
      } else {
        for (let i = 0; i < n; i++) streams.push(new ListenStream(i + 1));
        await openAll(streams, srv.port, srv.path);
      }
      const b = await srv.heapSnapshot(join(dir, `${impl}-after.heapsnapshot`));
      console.log(`\n${impl}: ${diff(summarize(a), summarize(b), n, what)}`);
      rmSync(a);
      rmSync(b);
    } finally {
      for (const s of streams) s.close();
      await srv.stop();
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return 0;
}
