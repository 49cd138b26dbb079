/**
 * `npm run bench`: Janus MCP, the official SDK (@modelcontextprotocol/server 2.4.0) and a bare
 * Node baseline, interleaved per repetition (scenarios 1, 2 and 4 load the servers in turns:
 * `inTurns`), the servers on core 0 and this process (the load generator) on core 1. Prints a
 * table, writes bench/results/<timestamp>.json and .md. A wrong answer from any server ends
 * the run with exit code 1.
 *
 *   npm run bench                      full run (about 12 minutes)
 *   npm run bench -- --quick           smoke run (short steps, fewer clients, 1 repetition)
 *   npm run bench -- --only 1,4        only some scenarios (numbers or names below)
 *   npm run bench -- --reps 5          more repetitions (default 3)
 *   npm run bench -- --impls janus,bare
 *   npm run bench -- --only 1,2,4 --impls janus,janus-mw,janus-otel
 *                                      the cost of an empty middleware chain and of OpenTelemetry
 *   npm run bench -- --only 1,6 --impls janus,janus-tasks
 *                                      the cost of the tasks extension on plain calls, and a task round trip
 *   npm run bench -- --only 1,2 --impls janus,janus-auth
 *                                      the cost of verifying a bearer JWT (JWKS fetched once, then cached)
 *   npm run bench -- --profile 1       CPU profile of Janus under scenario 1, 2, 3 or 4 (see profile.ts)
 *   npm run bench -- --heap 5          heap growth per open listen stream (5) or session (3), by constructor
 *   npm run bench -- --strict          exit 2 when a target is not met
 *   npm run bench -- --only scale-out  scenario 8, on request only: one process without Redis against one
 *                                      process and N workers on each kind of Redis (starts its own: one
 *                                      redis-server, a Redis Cluster 3+3, Sentinel 1+1+3; --redis single,cluster,sentinel
 *                                      picks kinds, default all; --workers N, default cores − 1, at least 2)
 *   npm run bench -- --only memory     scenario 9, on request only: RSS and heap after 10^4 and 10^6 echo calls
 *                                      per era and transport (janus and bare; the SDK only if --impls names it)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ctx, Options } from './lib/context.js';
import { WrongAnswer } from './lib/mcp.js';
import { ALL_IMPLS, IMPLS, setupPinning, type Impl } from './lib/proc.js';
import { markdownTable, overheadMarkdown, overheadText, summarize, TARGETS, textTable } from './lib/report.js';
import { scaleOutMarkdown, scaleOutReport, scaleOutText } from './lib/scale-out-report.js';
import { heap } from './heap.js';
import { profile } from './profile.js';
import { churn } from './scenarios/churn.js';
import { coldStart } from './scenarios/cold-start.js';
import { httpLoad } from './scenarios/http-load.js';
import { listen } from './scenarios/listen.js';
import { mrtrAndList } from './scenarios/mrtr-list.js';
import { memory } from './scenarios/memory.js';
import { machineNote, parseRedisKinds, scaleOut, workerCount } from './scenarios/scale-out.js';
import { stdio } from './scenarios/stdio.js';

interface Scenario {
  id: string;
  name: string;
  title: string;
  run: (ctx: Ctx) => Promise<void>;
  /** Left out of a run without `--only` (it needs more than the suite's own processes). */
  onRequest?: boolean;
}

const SCENARIOS: Scenario[] = [
  { id: '1', name: 'http-stateless', title: '1 HTTP 2026-07-28', run: (c) => httpLoad(c, '1', 'modern') },
  { id: '2', name: 'http-session', title: '2 HTTP 2025-11-25 session', run: (c) => httpLoad(c, '2', 'legacy') },
  { id: '3', name: 'churn', title: '3 session churn', run: (c) => churn(c, '3') },
  { id: '4', name: 'stdio', title: '4 stdio', run: (c) => stdio(c, '4') },
  { id: '5', name: 'listen', title: '5 listen fan-out', run: (c) => listen(c, '5') },
  { id: '6', name: 'mrtr-list', title: '6 MRTR, tools/list', run: (c) => mrtrAndList(c, '6') },
  { id: '7', name: 'cold-start', title: '7 cold start', run: (c) => coldStart(c, '7') },
  { id: '8', name: 'scale-out', title: '8 scale-out on Redis', run: (c) => scaleOut(c, '8'), onRequest: true },
  { id: '9', name: 'memory', title: '9 memory growth', run: (c) => memory(c, '9'), onRequest: true },
];
/** Scenario 8 compares its own configurations, not implementations: its own table. */
const SCALE_OUT = '8';
const TITLES = Object.fromEntries(SCENARIOS.map((s) => [s.id, s.title]));

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

function parseArgs(argv: string[]): Options & { strict: boolean; profile?: string; heap?: string } {
  const flag = (n: string): boolean => argv.includes(`--${n}`);
  const value = (n: string): string | undefined => {
    const i = argv.indexOf(`--${n}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = flag('quick');
  const only = value('only');
  const impls = (value('impls')?.split(',') ?? [...IMPLS]) as Impl[];
  for (const i of impls) if (!ALL_IMPLS.includes(i)) throw new Error(`unknown implementation "${i}" (${ALL_IMPLS.join(', ')})`);
  const selected = only
    ? new Set(
        only.split(',').map((x) => {
          const s = SCENARIOS.find((sc) => sc.id === x.trim() || sc.name === x.trim());
          if (!s) throw new Error(`unknown scenario "${x}": ${SCENARIOS.map((sc) => `${sc.id}=${sc.name}`).join(', ')}`);
          return s.id;
        }),
      )
    : undefined;
  return {
    quick,
    reps: Number(value('reps') ?? (quick ? 1 : 3)),
    only: selected,
    durationMs: Number(value('duration') ?? (quick ? 1000 : 5000)),
    workers: value('workers') === undefined ? undefined : Number(value('workers')),
    redisKinds: parseRedisKinds(value('redis')),
    warmupMs: quick ? 300 : 1000,
    impls,
    implsGiven: value('impls') !== undefined,
    strict: flag('strict'),
    profile: value('profile'),
    heap: value('heap'),
  };
}

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function machine() {
  const lscpu = sh('lscpu', []);
  const model = /Model name:\s*(.+)/.exec(lscpu)?.[1] ?? cpus()[0]?.model ?? 'unknown';
  let sdk = 'not installed';
  try {
    sdk = (
      JSON.parse(readFileSync(join(root, 'node_modules', '@modelcontextprotocol', 'server', 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    /* not installed */
  }
  return {
    cpu: model,
    cores: Number(sh('nproc', ['--all'])) || cpus().length,
    loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: sh('uname', ['-r']),
    commit:
      sh('git', ['-C', root, 'rev-parse', '--short', 'HEAD']) +
      (sh('git', ['-C', root, 'status', '--porcelain', '--', 'src']) ? ' (+ uncommitted src changes)' : ''),
    sdkVersion: sdk,
  };
}

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const pinning = setupPinning();
  const m = machine();
  const started = new Date();
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  console.log(`janus-mcp benchmark — ${started.toISOString()}`);
  console.log(
    `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, kernel ${m.kernel}, commit ${m.commit}, @modelcontextprotocol/server ${m.sdkVersion}`,
  );
  if (m.loadAverage[0]! > 0.5)
    console.log(`NOTE: load average ${m.loadAverage.join(' ')} before the run: other work on this machine makes the results noisier`);
  console.log(pinning.note);
  if (opts.profile) return profile(opts.profile, pinning, opts);
  if (opts.heap) return heap(opts.heap, pinning, opts);

  const ctx: Ctx = { opts, pinning, samples: [], log: (s) => console.log(s) };
  if (opts.workers !== undefined && !(Number.isInteger(opts.workers) && opts.workers >= 1))
    throw new Error(`--workers must be a positive integer`);
  const run = SCENARIOS.filter((s) => (opts.only ? opts.only.has(s.id) : !s.onRequest));
  if (opts.impls.includes('janus-auth') && run.some((s) => s.id !== '1' && s.id !== '2'))
    throw new Error('janus-auth needs a bearer token on every request, which only scenarios 1 and 2 send: add --only 1,2');
  for (const s of run) {
    const t0 = performance.now();
    console.log(`\nScenario ${s.title} (${opts.reps} repetition${opts.reps === 1 ? '' : 's'}, interleaved)`);
    await s.run(ctx);
    console.log(`  (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const rows = summarize(
    ctx.samples.filter((s) => s.scenario !== SCALE_OUT),
    opts,
  );
  const scaleSamples = ctx.samples.filter((s) => s.scenario === SCALE_OUT);
  const scale = scaleSamples.length
    ? {
        ...scaleOutReport(scaleSamples),
        workers: workerCount(ctx),
        note: machineNote(ctx, workerCount(ctx)),
      }
    : undefined;
  console.log(`\nMedians of ${opts.reps} repetition${opts.reps === 1 ? '' : 's'}; ratios are medians of per-repetition ratios.\n`);
  if (rows.length) console.log(textTable(rows, TITLES));
  if (scale) console.log(`\n${TITLES[SCALE_OUT]} (${scale.note}):\n\n${scaleOutText(scale, scale.workers)}`);
  const overhead = overheadText(rows, TITLES, opts.impls);
  if (overhead)
    console.log(
      `\nFeatures on (middleware, OpenTelemetry, tasks, authorization), as a ratio to plain Janus in the same repetition (a step only a variant has: its value):\n\n${overhead}`,
    );
  if (opts.quick)
    console.log(
      '\n--quick: one short repetition and small counts; memory per session/stream at these counts is noise. Targets apply to the full run.',
    );
  const unmet = rows.filter((r) => r.met === false);
  const checks = rows.flatMap((r) => r.metEach ?? []);
  if (checks.length)
    console.log(
      `\nTargets met: ${checks.filter(Boolean).length} of ${checks.length}${unmet.length ? ` (not met in: ${unmet.map((r) => `${r.scenario} ${r.step} ${r.metric}`).join('; ')})` : ''}`,
    );

  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const result = {
    date: started.toISOString(),
    seconds: (Date.now() - started.getTime()) / 1000,
    command,
    machine: { ...m, loadAverageAtEnd: loadavg().map((x) => Math.round(x * 100) / 100) },
    pinning: pinning.note,
    options: { ...opts, only: opts.only ? [...opts.only] : undefined },
    targets: TARGETS.map((t) => ({ scenario: t.scenario, step: t.step(opts), metric: t.metric, label: t.label })),
    rows,
    scaleOut: scale,
    samples: ctx.samples,
  };
  const json = join(dir, `${stamp}.json`);
  writeFileSync(json, JSON.stringify(result, null, 2));
  const md = join(dir, `${stamp}.md`);
  writeFileSync(
    md,
    `Run ${started.toISOString()}, \`${command}\`, ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s.\n` +
      `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, commit ${m.commit}. ${pinning.note}.\n\n` +
      (rows.length ? `${markdownTable(rows, TITLES)}\n` : '') +
      (scale ? `\n${TITLES[SCALE_OUT]} (${scale.note}):\n\n${scaleOutMarkdown(scale, scale.workers)}\n` : '') +
      (overhead
        ? `\nFeatures on (middleware, OpenTelemetry, tasks, authorization), as a ratio to plain Janus in the same repetition (a step only a variant has: its value):\n\n${overheadMarkdown(rows, TITLES, opts.impls)}\n`
        : ''),
  );
  console.log(`\nWrote ${relative(process.cwd(), json)} and ${relative(process.cwd(), md)}`);
  return opts.strict && unmet.length ? 2 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof WrongAnswer) console.error(`\nWRONG ANSWER — the run fails: ${e.message}`);
    else console.error('\nThe benchmark failed:', e);
    process.exit(1);
  },
);
