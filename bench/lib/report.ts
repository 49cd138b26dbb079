/** Medians, ratios, the targets, and the table (terminal and Markdown). */
import type { Options, Sample } from './context.js';
import { VARIANTS, type Impl, type JanusVariant } from './proc.js';
import { median } from './stats.js';

export interface Target {
  scenario: string;
  step: (o: Options) => string;
  metric: string;
  /** `bare`/`sdk`: a ratio of Janus to that implementation; `abs`: Janus's own value. */
  vs: 'bare' | 'sdk' | 'abs';
  min?: number;
  max?: number;
  label: string;
}

const count = (o: Options, full: number, quick: number): number => (o.quick ? quick : full);

/**
 * The targets (median ratios from one run): those against bare Node, set for the performance
 * pass (bench/NOTES.md), which replaced the suite's first, looser ones; and those against
 * the official SDK.
 */
export const TARGETS: Target[] = [
  { scenario: '1', step: () => '64 conn', metric: 'requests/s', vs: 'bare', min: 0.75, label: '≥ 0.75× bare' },
  { scenario: '1', step: () => '64 conn', metric: 'requests/s', vs: 'sdk', min: 10, label: '≥ 10× SDK' },
  { scenario: '1', step: () => '64 conn', metric: 'server CPU/request', vs: 'bare', max: 1.3, label: '≤ 1.3× bare' },
  { scenario: '1', step: () => '64 conn', metric: 'p99 latency', vs: 'bare', max: 2, label: '≤ 2× bare' },
  { scenario: '2', step: () => '64 conn', metric: 'requests/s', vs: 'bare', min: 0.8, label: '≥ 0.8× bare' },
  { scenario: '2', step: () => '64 conn', metric: 'requests/s', vs: 'sdk', min: 5, label: '≥ 5× SDK' },
  { scenario: '3', step: (o) => `${count(o, 1000, 200)} sessions`, metric: 'RSS per open session', vs: 'abs', max: 12, label: '≤ 12 KB' },
  { scenario: '3', step: (o) => `${count(o, 1000, 200)} sessions`, metric: 'sessions/s', vs: 'sdk', min: 3, label: '≥ 3× SDK' },
  { scenario: '4', step: () => 'modern sequential', metric: 'round trips/s', vs: 'bare', min: 0.95, label: '≥ 0.95× bare' },
  { scenario: '4', step: () => 'legacy sequential', metric: 'round trips/s', vs: 'bare', min: 0.95, label: '≥ 0.95× bare' },
  { scenario: '4', step: (o) => `modern burst ${count(o, 20000, 2000)}`, metric: 'calls/s', vs: 'bare', min: 0.8, label: '≥ 0.8× bare' },
  { scenario: '4', step: (o) => `legacy burst ${count(o, 20000, 2000)}`, metric: 'calls/s', vs: 'bare', min: 0.8, label: '≥ 0.8× bare' },
  { scenario: '5', step: (o) => `${count(o, 10000, 1000)} streams`, metric: 'time to reach all', vs: 'abs', max: 150, label: '≤ 150 ms' },
  { scenario: '5', step: (o) => `${count(o, 10000, 1000)} streams`, metric: 'RSS per open stream', vs: 'abs', max: 11, label: '≤ 11 KB' },
  ...['http', 'stdio'].map(
    (step): Target => ({ scenario: '7', step: () => step, metric: 'start to first answer', vs: 'bare', max: 1.3, label: '≤ 1.3× bare' }),
  ),
  // Memory under sustained load: RSS after 10^6 calls within 10% of RSS after 10^4 (steps: MEMORY_MODES in scenarios/memory.ts).
  ...['HTTP 2026-07-28, 64 conn', 'HTTP 2025-11-25, 64 sessions', 'stdio 2026-07-28', 'stdio 2025-11-25'].map(
    (step): Target => ({ scenario: '9', step: () => step, metric: 'RSS growth', vs: 'abs', max: 1.1, label: '≤ 1.10×' }),
  ),
];

export interface Row {
  scenario: string;
  step: string;
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  diagnostic: boolean;
  /** Median per implementation; null = n/a. */
  values: Partial<Record<Impl, number | null>>;
  /** Median over repetitions of Janus/bare and Janus/SDK of the same repetition. */
  vsBare: number | null;
  vsSdk: number | null;
  /** The same for each Janus variant that ran, to plain Janus (observability's cost). */
  vsJanus: Partial<Record<JanusVariant, number | null>>;
  target?: string;
  /** Every target of this row met; `metEach` per target, in `target`'s order. */
  met?: boolean;
  metEach?: boolean[];
  reps: number;
}

function ratio(samples: Sample[], a: Impl, b: Impl): number | null {
  const reps = new Set(samples.map((s) => s.rep));
  const rs: number[] = [];
  for (const rep of reps) {
    const x = samples.find((s) => s.rep === rep && s.impl === a)?.value;
    const y = samples.find((s) => s.rep === rep && s.impl === b)?.value;
    if (x != null && y != null && y !== 0) rs.push(x / y);
  }
  return rs.length ? median(rs) : null;
}

export function summarize(samples: Sample[], opts: Options): Row[] {
  const groups = new Map<string, Sample[]>();
  for (const s of samples) {
    const k = `${s.scenario}\u0000${s.step}\u0000${s.metric}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(s);
  }
  const rows: Row[] = [];
  for (const g of groups.values()) {
    const s0 = g[0]!;
    const values: Row['values'] = {};
    for (const impl of opts.impls) {
      const vs = g.filter((s) => s.impl === impl);
      if (vs.length === 0) continue;
      values[impl] = vs.every((s) => s.value === null) ? null : median(vs.map((s) => s.value ?? NaN));
    }
    const row: Row = {
      scenario: s0.scenario,
      step: s0.step,
      metric: s0.metric,
      unit: s0.unit,
      better: s0.better,
      diagnostic: !!s0.diagnostic,
      values,
      vsBare: ratio(g, 'janus', 'bare'),
      vsSdk: ratio(g, 'janus', 'sdk'),
      vsJanus: Object.fromEntries(VARIANTS.filter((v) => opts.impls.includes(v)).map((v) => [v, ratio(g, v, 'janus')])),
      reps: new Set(g.map((s) => s.rep)).size,
    };
    const targets = TARGETS.filter((t) => t.scenario === row.scenario && t.step(opts) === row.step && t.metric === row.metric);
    if (targets.length) {
      row.target = targets.map((t) => t.label).join('; ');
      row.metEach = targets.map((t) => {
        const v = t.vs === 'abs' ? values.janus : t.vs === 'bare' ? row.vsBare : row.vsSdk;
        if (v == null || Number.isNaN(v)) return false;
        return (t.min === undefined || v >= t.min) && (t.max === undefined || v <= t.max);
      });
      row.met = row.metEach.every(Boolean);
    }
    rows.push(row);
  }
  return rows;
}

export function fmt(v: number | null | undefined, unit = ''): string {
  if (v === null) return 'n/a';
  if (v === undefined || Number.isNaN(v)) return '–';
  const a = Math.abs(v);
  const s =
    a >= 1000
      ? Math.round(v).toLocaleString('en-US')
      : a >= 100
        ? v.toFixed(0)
        : a >= 10
          ? v.toFixed(1)
          : a >= 1
            ? v.toFixed(2)
            : v.toFixed(3);
  return unit ? `${s} ${unit}` : s;
}

export const fmtRatio = (r: number | null): string => (r === null || Number.isNaN(r) ? '–' : `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`);
const metLabel = (r: Row): string => (r.metEach === undefined ? '' : r.metEach.map((m) => (m ? 'yes' : 'NO')).join('; '));

const HEADERS = ['Scenario', 'Step', 'Metric', 'bare', 'janus', 'sdk', 'janus/bare', 'janus/sdk', 'Target (janus)', 'Met'];

function cells(r: Row, titles: Record<string, string>): string[] {
  return [
    titles[r.scenario] ?? r.scenario,
    r.step,
    `${r.metric} (${r.unit})`,
    fmt(r.values.bare),
    fmt(r.values.janus),
    fmt(r.values.sdk),
    fmtRatio(r.vsBare),
    fmtRatio(r.vsSdk),
    r.target ?? '',
    metLabel(r),
  ];
}

export function textTable(rows: Row[], titles: Record<string, string>): string {
  const body = rows.filter((r) => !r.diagnostic).map((r) => cells(r, titles));
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...body.map((c) => c[i]!.length)));
  const line = (c: string[]): string => c.map((x, i) => (i >= 3 && i <= 7 ? x.padStart(widths[i]!) : x.padEnd(widths[i]!))).join('  ');
  return [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function markdownTable(rows: Row[], titles: Record<string, string>): string {
  const body = rows.filter((r) => !r.diagnostic).map((r) => cells(r, titles));
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  return [
    `| ${HEADERS.join(' | ')} |`,
    `| ${HEADERS.map((_, i) => (i >= 3 && i <= 7 ? '---:' : '---')).join(' | ')} |`,
    ...body.map((c) => `| ${c.map((x, i) => (i === 9 ? x.replace(/NO/g, '**NO**') : esc(x))).join(' | ')} |`),
  ].join('\n');
}

const VARIANT_LABEL: Record<JanusVariant, string> = {
  'janus-mw': 'empty middleware',
  'janus-otel': 'OpenTelemetry on',
  'janus-tasks': 'tasks extension on',
  'janus-auth': 'bearer JWT (cached JWKS)',
};

function overheadRows(rows: Row[], titles: Record<string, string>, impls: readonly Impl[]): string[][] | undefined {
  const variants = VARIANTS.filter((v) => impls.includes(v));
  if (!variants.length || !impls.includes('janus')) return undefined;
  return [
    ['Scenario', 'Step', 'Metric', 'janus', ...variants.map((v) => VARIANT_LABEL[v])],
    ...rows
      .filter((r) => !r.diagnostic)
      .map((r) => [
        titles[r.scenario] ?? r.scenario,
        r.step,
        `${r.metric} (${r.unit})`,
        fmt(r.values.janus),
        // A step only a variant has (scenario 6's task round trip): its own value, not a ratio.
        ...variants.map((v) => (r.values.janus == null && r.values[v] != null ? fmt(r.values[v]) : fmtRatio(r.vsJanus[v] ?? null))),
      ]),
  ];
}

/** Ratios of each Janus variant to plain Janus, when the run had any (`--impls janus,janus-mw,janus-otel,janus-tasks,janus-auth`). */
export function overheadText(rows: Row[], titles: Record<string, string>, impls: readonly Impl[]): string | undefined {
  const table = overheadRows(rows, titles, impls);
  if (!table) return undefined;
  const widths = table[0]!.map((_, i) => Math.max(...table.map((c) => c[i]!.length)));
  const line = (c: string[]): string => c.map((x, i) => (i >= 3 ? x.padStart(widths[i]!) : x.padEnd(widths[i]!))).join('  ');
  return [line(table[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...table.slice(1).map(line)].join('\n');
}

export function overheadMarkdown(rows: Row[], titles: Record<string, string>, impls: readonly Impl[]): string | undefined {
  const table = overheadRows(rows, titles, impls);
  if (!table) return undefined;
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  return [
    `| ${table[0]!.join(' | ')} |`,
    `| ${table[0]!.map((_, i) => (i >= 3 ? '---:' : '---')).join(' | ')} |`,
    ...table.slice(1).map((c) => `| ${c.map(esc).join(' | ')} |`),
  ].join('\n');
}
