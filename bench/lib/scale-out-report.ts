/**
 * Scenario 8's own table: its three configurations side by side with the ratios (b)/(a) and
 * (c)/(a) (medians of per-repetition ratios), and what Redis costs, derived per repetition.
 */
import type { Sample, ScaleOutConfig } from './context.js';
import { fmt } from './report.js';
import { median } from './stats.js';

export interface ScaleOutRow {
  step: string;
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  values: Partial<Record<ScaleOutConfig, number | null>>;
  /** Medians over repetitions of (b)/(a) and (c)/(a) of the same repetition. */
  redisToOne: number | null;
  workersToOne: number | null;
}

export interface ScaleOutCost {
  label: string;
  value: number | null;
  unit: string;
}

const CONFIGS: readonly ScaleOutConfig[] = ['one', 'one+redis', 'workers'];

function perRep(samples: Sample[], f: (at: (config: ScaleOutConfig, step: string, metric: string) => number | null) => number | null) {
  const reps = [...new Set(samples.map((s) => s.rep))];
  const out: number[] = [];
  for (const rep of reps) {
    const at = (config: ScaleOutConfig, step: string, metric: string): number | null =>
      samples.find((s) => s.rep === rep && s.impl === config && s.step === step && s.metric === metric)?.value ?? null;
    const v = f(at);
    if (v !== null && Number.isFinite(v)) out.push(v);
  }
  return out.length ? median(out) : null;
}

export function scaleOutRows(samples: Sample[]): ScaleOutRow[] {
  const groups = new Map<string, Sample[]>();
  for (const s of samples) {
    if (s.diagnostic) continue;
    const k = `${s.step}\u0000${s.metric}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(s);
  }
  return [...groups.values()].map((g) => {
    const { step, metric, unit, better } = g[0]!;
    const values: ScaleOutRow['values'] = {};
    for (const c of CONFIGS) {
      const vs = g.filter((s) => s.impl === c);
      if (vs.length) values[c] = vs.every((s) => s.value === null) ? null : median(vs.map((s) => s.value ?? NaN));
    }
    const ratio = (c: ScaleOutConfig) =>
      perRep(g, (at) => {
        const x = at(c, step, metric);
        const y = at('one', step, metric);
        return x !== null && y ? x / y : null;
      });
    return { step, metric, unit, better, values, redisToOne: ratio('one+redis'), workersToOne: ratio('workers') };
  });
}

/** What Redis costs, each a median over repetitions of a difference or product within one repetition. */
export function scaleOutCosts(samples: Sample[]): ScaleOutCost[] {
  const steps = [...new Set(samples.map((s) => s.step))];
  const load = steps.find((s) => s.startsWith('tools/call')) ?? 'tools/call';
  const clients = steps.find((s) => /^MRTR \d+ clients$/.test(s)) ?? 'MRTR clients';
  const listen = steps.find((s) => s.startsWith('listen')) ?? 'listen';
  const legacy = steps.find((s) => /^legacy tools\/call \d+ sessions$/.test(s)) ?? 'legacy tools/call sessions';
  const legacySeq = 'legacy tools/call sequential';
  const d = (f: Parameters<typeof perRep>[1]) => perRep(samples, f);
  const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
  const serverAndRedis = (
    at: (c: ScaleOutConfig, s: string, m: string) => number | null,
    c: ScaleOutConfig,
    step: string,
    per: 'round trip' | 'request' = 'round trip',
  ) => {
    const s = at(c, step, `server CPU/${per}`);
    return s === null ? null : s + (at(c, step, `Redis CPU/${per}`) ?? 0);
  };
  return [
    {
      label: 'Redis round trip per MRTR retry, latency: (b) − (a), p50, sequential',
      unit: 'µs',
      value: d((at) => {
        const v = diff(at('one+redis', 'MRTR sequential', 'p50 latency'), at('one', 'MRTR sequential', 'p50 latency'));
        return v === null ? null : v * 1000;
      }),
    },
    {
      label: 'Redis round trip per MRTR retry, CPU (server + Redis): (b) − (a), sequential',
      unit: 'µs',
      value: d((at) => diff(serverAndRedis(at, 'one+redis', 'MRTR sequential'), serverAndRedis(at, 'one', 'MRTR sequential'))),
    },
    {
      label: `Redis round trip per MRTR retry, CPU (server + Redis): (b) − (a), ${clients}`,
      unit: 'µs',
      value: d((at) => diff(serverAndRedis(at, 'one+redis', clients), serverAndRedis(at, 'one', clients))),
    },
    {
      label: `Redis CPU per 1,000 MRTR round trips, (b), ${clients}`,
      unit: 'ms',
      value: d((at) => at('one+redis', clients, 'Redis CPU/round trip')),
    },
    {
      label: `Legacy session reload per request, latency: (b) − (a), p50, ${legacySeq}`,
      unit: 'µs',
      value: d((at) => {
        const v = diff(at('one+redis', legacySeq, 'p50 latency'), at('one', legacySeq, 'p50 latency'));
        return v === null ? null : v * 1000;
      }),
    },
    {
      label: `Legacy session reload per request, CPU (server + Redis): (b) − (a), ${legacySeq}`,
      unit: 'µs',
      value: d((at) => diff(serverAndRedis(at, 'one+redis', legacySeq, 'request'), serverAndRedis(at, 'one', legacySeq, 'request'))),
    },
    {
      label: `Legacy session reload per request, CPU (server + Redis): (b) − (a), ${legacy}`,
      unit: 'µs',
      value: d((at) => diff(serverAndRedis(at, 'one+redis', legacy, 'request'), serverAndRedis(at, 'one', legacy, 'request'))),
    },
    {
      label: `Redis CPU per 1,000 legacy tools/call, (b), ${legacy}`,
      unit: 'ms',
      value: d((at) => at('one+redis', legacy, 'Redis CPU/request')),
    },
    {
      label: `Redis CPU per 1,000 legacy tools/call, (c), ${legacy}`,
      unit: 'ms',
      value: d((at) => at('workers', legacy, 'Redis CPU/request')),
    },
    {
      label: `Redis CPU per 1,000 tools/call, (c), ${load}`,
      unit: 'ms',
      value: d((at) => at('workers', load, 'Redis CPU/request')),
    },
    {
      label: `Fan-out through Redis: (c) − (a), time to reach all, p50, ${listen}`,
      unit: 'ms',
      value: d((at) => diff(at('workers', listen, 'time to reach all, p50'), at('one', listen, 'time to reach all, p50'))),
    },
  ];
}

const ratio = (r: number | null): string => (r === null || Number.isNaN(r) ? '–' : `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`);

function table(rows: ScaleOutRow[], workers: number): string[][] {
  return [
    ['Step', 'Metric', '(a) 1 process', '(b) 1 process + Redis', `(c) ${workers} workers + Redis`, '(b)/(a)', '(c)/(a)'],
    ...rows.map((r) => [
      r.step,
      `${r.metric} (${r.unit})`,
      fmt(r.values.one),
      fmt(r.values['one+redis']),
      fmt(r.values.workers),
      ratio(r.redisToOne),
      ratio(r.workersToOne),
    ]),
  ];
}

export function scaleOutText(rows: ScaleOutRow[], costs: ScaleOutCost[], workers: number): string {
  const t = table(rows, workers);
  const widths = t[0]!.map((_, i) => Math.max(...t.map((c) => c[i]!.length)));
  const line = (c: string[]): string => c.map((x, i) => (i >= 2 ? x.padStart(widths[i]!) : x.padEnd(widths[i]!))).join('  ');
  const w = Math.max(...costs.map((c) => c.label.length));
  return [
    line(t[0]!),
    widths.map((n) => '-'.repeat(n)).join('  '),
    ...t.slice(1).map(line),
    '',
    ...costs.map((c) => `${c.label.padEnd(w)}  ${fmt(c.value, c.unit)}`),
  ].join('\n');
}

export function scaleOutMarkdown(rows: ScaleOutRow[], costs: ScaleOutCost[], workers: number): string {
  const t = table(rows, workers);
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  return [
    `| ${t[0]!.join(' | ')} |`,
    `| ${t[0]!.map((_, i) => (i >= 2 ? '---:' : '---')).join(' | ')} |`,
    ...t.slice(1).map((c) => `| ${c.map(esc).join(' | ')} |`),
    '',
    '| What Redis costs | |',
    '| --- | ---: |',
    ...costs.map((c) => `| ${esc(c.label)} | ${fmt(c.value, c.unit)} |`),
  ].join('\n');
}
