/**
 * `npm run bench -- --profile <1|2|3|4>`: runs Janus alone under one scenario's load with
 * `node --cpu-prof`, then prints where the server's CPU went: the top self-time functions
 * (dist file:line, which mirrors src/*.ts) and totals per area. The .cpuprofile is kept
 * (open it in Chrome DevTools or VS Code for the call tree).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ctx, Options } from './lib/context.js';
import type { Pinning } from './lib/proc.js';
import { churn } from './scenarios/churn.js';
import { httpLoad } from './scenarios/http-load.js';
import { stdio } from './scenarios/stdio.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

function area(url: string, fn: string): string {
  if (url === '') return fn.startsWith('(') ? fn : '(native / V8 builtins)';
  if (url.includes('/dist/src/transports/http/')) return 'janus src/transports/http';
  if (url.includes('/dist/src/server/')) return 'janus src/server';
  if (url.includes('/dist/src/')) return 'janus src (other)';
  // The bench server imports the published bundle: its chunks do not name their source folders.
  if (url.includes('/dist/bundle/')) return 'janus (dist/bundle)';
  if (url.includes('/node_modules/zod/')) return 'zod (user schema)';
  if (url.includes('/node_modules/')) return 'node_modules (other)';
  if (url.startsWith('node:internal/') || url.startsWith('node:')) {
    if (/http|_http_/.test(url)) return 'node:http internals';
    if (/net|stream|stream_base/.test(url)) return 'node:net/streams internals';
    return 'node internals (other)';
  }
  return url;
}

function where(url: string, line: number): string {
  const file = url.startsWith('file://') ? relative(root, fileURLToPath(url)) : url;
  return file ? `${file}:${line + 1}` : '';
}

/** Self time per function and per area, in ms and % of the profile. */
export function analyze(profile: CpuProfile, top = 30): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++)
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map<string, { name: string; at: string; area: string; us: number }>();
  const areas = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const name = f.functionName || '(anonymous)';
    const at = where(f.url, f.lineNumber);
    const key = `${name}\u0000${at}`;
    const e = fns.get(key) ?? { name, at, area: area(f.url, name), us: 0 };
    e.us += us;
    fns.set(key, e);
    areas.set(e.area, (areas.get(e.area) ?? 0) + us);
  }
  const busy = total - (areas.get('(idle)') ?? 0);
  const pct = (us: number): string => `${((100 * us) / busy).toFixed(1)}%`.padStart(6);
  const lines = [
    `Profile: ${(total / 1e3).toFixed(0)} ms sampled, ${(busy / 1e3).toFixed(0)} ms not idle (percentages are of the non-idle time).`,
    '',
    'Self time by area:',
  ];
  for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1]))
    if (a !== '(idle)') lines.push(`  ${pct(us)}  ${(us / 1e3).toFixed(0).padStart(6)} ms  ${a}`);
  lines.push('', `Top ${top} functions by self time:`);
  for (const e of [...fns.values()]
    .filter((x) => x.area !== '(idle)')
    .sort((x, y) => y.us - x.us)
    .slice(0, top)) {
    lines.push(`  ${pct(e.us)}  ${e.name}  ${e.at}  [${e.area}]`);
  }
  // Inclusive time of Janus's own functions: which of them the node internals above run under.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = new Map<number, string | undefined>();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const ours = f.url.includes('/dist/src/') || f.url.includes('/dist/bundle/');
    keyOf.set(n.id, ours ? `${f.functionName || '(anonymous)'}  ${where(f.url, f.lineNumber)}` : undefined);
  }
  const incl = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = keyOf.get(at);
      if (k !== undefined && !seen.has(k)) {
        seen.add(k);
        incl.set(k, (incl.get(k) ?? 0) + us);
      }
    }
  }
  lines.push('', `Top ${top} Janus functions by inclusive time (self + everything they call):`);
  for (const [k, us] of [...incl].sort((x, y) => y[1] - x[1]).slice(0, top)) lines.push(`  ${pct(us)}  ${k}`);
  return lines.join('\n');
}

export async function profile(which: string, pinning: Pinning, base: Options): Promise<number> {
  const who = base.impls.length === 3 ? 'janus' : base.impls.join('-');
  const dir = join(root, 'bench', 'results', `profile-${which}-${who}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(dir, { recursive: true });
  const opts: Options = {
    ...base,
    impls: base.impls.length === 3 ? ['janus'] : base.impls,
    reps: 1,
    connections: [64],
    nodeFlags: ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${dir}`],
    durationMs: Math.max(base.durationMs, 10_000),
  };
  const ctx: Ctx = { opts, pinning, samples: [], log: (s) => console.log(s) };
  if (which === '1') await httpLoad(ctx, '1', 'modern');
  else if (which === '2') await httpLoad(ctx, '2', 'legacy');
  else if (which === '3') await churn(ctx, '3');
  else if (which === '4') await stdio(ctx, '4');
  else throw new Error('--profile takes 1 (stateless HTTP), 2 (session HTTP), 3 (session churn) or 4 (stdio)');
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`no .cpuprofile was written in ${dir}`);
  for (const f of files) {
    console.log(`\n${relative(process.cwd(), join(dir, f))}`);
    console.log(analyze(JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile));
  }
  return 0;
}
