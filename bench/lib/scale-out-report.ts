/**
 * Scenario 8's own report: every configuration side by side with its ratio to `one` (one
 * process, no Redis; medians of per-repetition ratios, so each comes from the same run), what
 * Redis adds per request (medians of per-repetition differences), and the sizing table: per
 * kind of Redis and kind of request, the Redis CPU per 1,000 requests and what one Redis core
 * carries per second.
 */
import { REDIS_KINDS, REDIS_PRIMARIES, type RedisKind, type Sample, type ScaleOutConfig } from './context.js';
import { fmt, fmtRatio } from './report.js';
import { median } from './stats.js';

export interface ScaleOutRow {
  step: string;
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  /** Medians over repetitions, per configuration. */
  values: Partial<Record<ScaleOutConfig, number | null>>;
  /** Medians over repetitions of config/one within the same repetition (none for `one`). */
  ratios: Partial<Record<ScaleOutConfig, number | null>>;
}

export interface ScaleOutCost {
  label: string;
  value: number | null;
  unit: string;
}

/** One line of the sizing table: one kind of request on one kind of Redis. */
export interface SizingRow {
  kind: RedisKind;
  request: string;
  /** The configuration the figures come from (N workers when measured, else one process). */
  config: ScaleOutConfig;
  /**
   * Redis CPU per 1,000 requests, ms (= µs per request): every process of the kind, and by role,
   * net of the kind's idle housekeeping (see {@link RedisIdle}) for a request that sends Redis
   * commands; as measured (the idle spread over the requests) for one that sends none.
   */
  all: number | null;
  primaries: number | null;
  replicas: number | null;
  sentinels: number | null;
  busiestPrimary: number | null;
  /** False for a request that sends Redis no command (its figure is Redis's idle housekeeping). */
  touchesRedis: boolean;
  /**
   * Requests/s one Redis core (one primary; on a cluster one shard) has the CPU for:
   * 1,000,000 / the primaries' µs per request. Null when the request touches no Redis.
   */
  perCore: number | null;
  /**
   * Cluster only: requests/s the whole cluster carries before its busiest shard's core is full,
   * 1,000,000 / the busiest primary's µs per request (about `perCore` when the keys sit on one
   * shard, about 3× it when they spread over 3).
   */
  wholeCluster: number | null;
}

/**
 * What a kind's processes spend with no Redis command to serve (cluster bus and replication
 * pings, sentinels' checks, cron): measured during the plain 2026-07-28 calls, which send
 * none, as the CPU per call times the calls per second, and subtracted from the sizing figures
 * at the rate of each step (the slower the requests, the more idle CPU falls on each).
 */
export interface RedisIdle {
  kind: RedisKind;
  config: ScaleOutConfig;
  /** ms of CPU per second, over every process of the kind. */
  msPerSecond: number | null;
}

export interface ScaleOutReport {
  configs: ScaleOutConfig[];
  rows: ScaleOutRow[];
  costs: ScaleOutCost[];
  sizing: SizingRow[];
  idle: RedisIdle[];
}

/** The kinds of request the sizing table has, and the step and metric each is measured by. */
export const SIZED_REQUESTS: ReadonlyArray<{ request: string; step: RegExp; metric: string; rate: string; touchesRedis: boolean }> = [
  {
    request: '2026-07-28 tools/call (no MRTR)',
    step: /^tools\/call \d+ conn$/,
    metric: 'Redis CPU/request',
    rate: 'requests/s',
    touchesRedis: false,
  },
  {
    request: 'MRTR retry (one claim)',
    step: /^MRTR \d+ clients$/,
    metric: 'Redis CPU/round trip',
    rate: 'round trips/s',
    touchesRedis: true,
  },
  {
    request: '2025-11-25 session request',
    step: /^legacy tools\/call \d+ sessions$/,
    metric: 'Redis CPU/request',
    rate: 'requests/s',
    touchesRedis: true,
  },
  {
    request: 'list change (to any number of streams)',
    step: /^list changes on \d+ streams$/,
    metric: 'Redis CPU/change',
    rate: 'changes/s',
    touchesRedis: true,
  },
];

const ROLES = ['primaries', 'replicas', 'sentinels', 'busiest primary'] as const;

const KIND_NAMES: Record<RedisKind, string> = { single: 'one Redis', cluster: 'Redis Cluster', sentinel: 'Sentinel' };

/** The configurations the samples have: `one` first, then each kind's one process and N workers. */
export function configsOf(samples: readonly Sample[]): ScaleOutConfig[] {
  const all: ScaleOutConfig[] = ['one', ...REDIS_KINDS.flatMap((k): ScaleOutConfig[] => [`${k}:1`, `${k}:N`])];
  const seen = new Set(samples.map((s) => s.impl));
  return all.filter((c) => seen.has(c));
}

/** A column's heading: `1 process, no Redis`, `2 workers, Redis Cluster`, … */
export function configLabel(c: ScaleOutConfig, workers: number): string {
  if (c === 'one') return '1 process, no Redis';
  const [kind, n] = c.split(':') as [RedisKind, '1' | 'N'];
  return `${n === '1' ? '1 process' : `${workers} workers`}, ${KIND_NAMES[kind]}`;
}

type At = (config: ScaleOutConfig, step: string, metric: string) => number | null;

/** The median over repetitions of `f`, each evaluated within one repetition. */
function perRep(samples: readonly Sample[], f: (at: At) => number | null): number | null {
  const reps = [...new Set(samples.map((s) => s.rep))];
  const out: number[] = [];
  for (const rep of reps) {
    const at: At = (config, step, metric) =>
      samples.find((s) => s.rep === rep && s.impl === config && s.step === step && s.metric === metric)?.value ?? null;
    const v = f(at);
    if (v !== null && Number.isFinite(v)) out.push(v);
  }
  return out.length ? median(out) : null;
}

/** Median over repetitions of one configuration's value (null when it has none: n/a). */
function medianOf(samples: readonly Sample[], config: ScaleOutConfig, step: string, metric: string): number | null | undefined {
  const vs = samples.filter((s) => s.impl === config && s.step === step && s.metric === metric);
  if (vs.length === 0) return undefined;
  return vs.every((s) => s.value === null) ? null : median(vs.map((s) => s.value ?? NaN));
}

export function scaleOutRows(samples: readonly Sample[]): ScaleOutRow[] {
  const configs = configsOf(samples);
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
    const ratios: ScaleOutRow['ratios'] = {};
    for (const c of configs) {
      const v = medianOf(g, c, step, metric);
      if (v === undefined) continue;
      values[c] = v;
      if (c !== 'one')
        ratios[c] = perRep(g, (at) => {
          const x = at(c, step, metric);
          const y = at('one', step, metric);
          return x !== null && y ? x / y : null;
        });
    }
    return { step, metric, unit, better, values, ratios };
  });
}

/** What Redis adds, per kind: each a median over repetitions of a difference within one repetition. */
export function scaleOutCosts(samples: readonly Sample[]): ScaleOutCost[] {
  const steps = [...new Set(samples.map((s) => s.step))];
  const clients = steps.find((s) => /^MRTR \d+ clients$/.test(s)) ?? 'MRTR clients';
  const listen = steps.find((s) => s.startsWith('listen')) ?? 'listen';
  const legacy = steps.find((s) => /^legacy tools\/call \d+ sessions$/.test(s)) ?? 'legacy tools/call sessions';
  const legacySeq = 'legacy tools/call sequential';
  const mrtrSeq = 'MRTR sequential';
  const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
  const serverAndRedis = (at: At, c: ScaleOutConfig, step: string, per: 'round trip' | 'request') => {
    const s = at(c, step, `server CPU/${per}`);
    return s === null ? null : s + (at(c, step, `Redis CPU/${per}`) ?? 0);
  };
  const configs = configsOf(samples);
  const out: ScaleOutCost[] = [];
  for (const kind of REDIS_KINDS) {
    const one: ScaleOutConfig = `${kind}:1`;
    const many: ScaleOutConfig = `${kind}:N`;
    const name = KIND_NAMES[kind];
    if (configs.includes(one)) {
      const d = (f: (at: At) => number | null) => perRep(samples, f);
      const latency = (step: string) =>
        d((at) => {
          const v = diff(at(one, step, 'p50 latency'), at('one', step, 'p50 latency'));
          return v === null ? null : v * 1000;
        });
      out.push(
        { label: `${name}: MRTR retry, latency, 1 process on it − without, p50, sequential`, unit: 'µs', value: latency(mrtrSeq) },
        {
          label: `${name}: MRTR retry, CPU (server + Redis), 1 process on it − without, ${clients}`,
          unit: 'µs',
          value: d((at) => diff(serverAndRedis(at, one, clients, 'round trip'), serverAndRedis(at, 'one', clients, 'round trip'))),
        },
        {
          label: `${name}: 2025-11-25 session request, latency, 1 process on it − without, p50, sequential`,
          unit: 'µs',
          value: latency(legacySeq),
        },
        {
          label: `${name}: 2025-11-25 session request, CPU (server + Redis), 1 process on it − without, ${legacy}`,
          unit: 'µs',
          value: d((at) => diff(serverAndRedis(at, one, legacy, 'request'), serverAndRedis(at, 'one', legacy, 'request'))),
        },
      );
    }
    if (configs.includes(many))
      out.push({
        label: `${name}: fan-out, time to reach all, N workers on it − 1 process without, p50, ${listen}`,
        unit: 'ms',
        value: perRep(samples, (at) => diff(at(many, listen, 'time to reach all, p50'), at('one', listen, 'time to reach all, p50'))),
      });
  }
  return out;
}

/** The configuration a kind is sized from: N workers when measured, else one process. */
function sizedConfig(configs: readonly ScaleOutConfig[], kind: RedisKind): ScaleOutConfig | undefined {
  return ([`${kind}:N`, `${kind}:1`] as const).find((c) => configs.includes(c));
}

const plainStepOf = (steps: readonly string[]): string | undefined => steps.find((s) => SIZED_REQUESTS[0]!.step.test(s));

/** Each kind's idle CPU (see {@link RedisIdle}), median over repetitions. */
export function scaleOutIdle(samples: readonly Sample[]): RedisIdle[] {
  const configs = configsOf(samples);
  const plain = plainStepOf([...new Set(samples.map((s) => s.step))]);
  return REDIS_KINDS.flatMap((kind): RedisIdle[] => {
    const config = sizedConfig(configs, kind);
    if (!config || !plain) return [];
    const msPerSecond = perRep(samples, (at) => {
      const perCall = at(config, plain, 'Redis CPU/request');
      const calls = at(config, plain, 'requests/s');
      return perCall === null || calls === null ? null : (perCall * calls) / 1000;
    });
    return [{ kind, config, msPerSecond }];
  });
}

/**
 * The sizing table: per kind of Redis measured and kind of request, medians over repetitions of
 * the Redis CPU per request net of the idle CPU of the same configuration and repetition.
 */
export function scaleOutSizing(samples: readonly Sample[]): SizingRow[] {
  const configs = configsOf(samples);
  const steps = [...new Set(samples.map((s) => s.step))];
  const plain = plainStepOf(steps);
  const rows: SizingRow[] = [];
  for (const kind of REDIS_KINDS) {
    const config = sizedConfig(configs, kind);
    if (!config) continue;
    for (const r of SIZED_REQUESTS) {
      const step = steps.find((s) => r.step.test(s));
      if (!step || medianOf(samples, config, step, r.metric) === undefined) continue;
      const figure = (role: (typeof ROLES)[number] | 'all'): number | null =>
        perRep(samples, (at) => {
          const raw = at(config, step, role === 'all' ? r.metric : `${r.metric}: ${role}`);
          if (!r.touchesRedis || raw === null || plain === undefined) return raw;
          // The idle CPU of the same role (the busiest primary: one primary's share) in µs per second,
          // spread over this step's requests per second.
          const idleRole = role === 'busiest primary' ? 'primaries' : role;
          const idlePerCall = at(config, plain, idleRole === 'all' ? 'Redis CPU/request' : `Redis CPU/request: ${idleRole}`);
          const calls = at(config, plain, 'requests/s');
          const rate = at(config, step, r.rate);
          if (idlePerCall === null || calls === null || !rate) return raw;
          const idle = (idlePerCall * calls) / (role === 'busiest primary' ? REDIS_PRIMARIES[kind] : 1);
          return Math.max(0, raw - idle / rate);
        });
      const [primaries, replicas, sentinels, busiest] = ROLES.map(figure);
      // One primary never spends more than all of them: the two are medians net of estimated idle, so clamp.
      const busiestPrimary = busiest === null || primaries === null ? busiest : Math.min(busiest, primaries);
      const capacity = (us: number | null | undefined): number | null =>
        r.touchesRedis && us !== null && us !== undefined && us > 0 ? 1e6 / us : null;
      rows.push({
        kind,
        request: r.request,
        config,
        // The sum of the roles' medians, so that the columns add up.
        all: primaries === null || replicas === null || sentinels === null ? figure('all') : primaries + replicas + sentinels,
        primaries: primaries!,
        replicas: replicas!,
        sentinels: sentinels!,
        busiestPrimary: busiestPrimary!,
        touchesRedis: r.touchesRedis,
        perCore: capacity(primaries),
        wholeCluster: kind === 'cluster' ? capacity(busiestPrimary) : null,
      });
    }
  }
  return rows;
}

export function scaleOutReport(samples: readonly Sample[]): ScaleOutReport {
  return {
    configs: configsOf(samples),
    rows: scaleOutRows(samples),
    costs: scaleOutCosts(samples),
    sizing: scaleOutSizing(samples),
    idle: scaleOutIdle(samples),
  };
}

/** Where a cluster's keys sit, and what the sizing figures leave out: printed under the sizing table. */
export const SIZING_NOTES: readonly string[] = [
  'Redis CPU per 1,000 requests is in ms (= µs per request), summed over the processes of each role; "all" adds primaries, replicas and sentinels.',
  "One core carries: 1,000,000 / the primaries' µs per request, what one primary (one shard) has the CPU for when it does nothing else; a replica and each sentinel run on cores of their own.",
  "On a Redis Cluster the MRTR claims ({<prefix>mrtr}) and the list changes ({<prefix>registry}) are each on ONE shard: the whole cluster carries what that one shard does. 2025-11-25 sessions spread over the shards (each its own hash tag): the whole cluster carries about one shard's figure times the shards.",
  "A 2026-07-28 call that is not an MRTR retry sends Redis nothing: its figure is Redis's idle housekeeping spread over the requests, as measured, and it does not bound the rate. The other rows are net of that idle CPU (per second, below), spread over each step's own requests per second.",
];

function idleLines(idle: readonly RedisIdle[]): string[] {
  return idle.map((i) => `${KIND_NAMES[i.kind]}: ${fmt(i.msPerSecond, 'ms')} of CPU per second over all its processes`);
}

function sizingTable(sizing: readonly SizingRow[], workers: number): string[][] {
  const carry = (r: SizingRow, v: number | null): string => (!r.touchesRedis ? 'no Redis command' : fmt(v));
  return [
    [
      'Redis',
      'Request',
      'Measured on',
      'all (ms/1,000)',
      'primaries',
      'replicas',
      'sentinels',
      'busiest primary',
      'one core carries (/s)',
      'whole cluster (/s)',
    ],
    ...sizing.map((r) => [
      KIND_NAMES[r.kind],
      r.request,
      configLabel(r.config, workers),
      fmt(r.all),
      fmt(r.primaries),
      fmt(r.replicas),
      fmt(r.sentinels),
      fmt(r.busiestPrimary),
      carry(r, r.perCore),
      r.kind === 'cluster' ? carry(r, r.wholeCluster) : '–',
    ]),
  ];
}

function mainTable(report: ScaleOutReport, workers: number): string[][] {
  return [
    ['Step', 'Metric', ...report.configs.map((c) => configLabel(c, workers))],
    ...report.rows.map((r) => [
      r.step,
      `${r.metric} (${r.unit})`,
      ...report.configs.map((c) => {
        const v = fmt(r.values[c]);
        const ratio = r.ratios[c];
        return c === 'one' || ratio === undefined || ratio === null ? v : `${v} (${fmtRatio(ratio)})`;
      }),
    ]),
  ];
}

function textOf(t: string[][], numericFrom: number): string[] {
  const widths = t[0]!.map((_, i) => Math.max(...t.map((c) => c[i]!.length)));
  const line = (c: string[]): string =>
    c
      .map((x, i) => (i >= numericFrom ? x.padStart(widths[i]!) : x.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(t[0]!), widths.map((n) => '-'.repeat(n)).join('  '), ...t.slice(1).map(line)];
}

function markdownOf(t: string[][], numericFrom: number): string[] {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  return [
    `| ${t[0]!.map(esc).join(' | ')} |`,
    `| ${t[0]!.map((_, i) => (i >= numericFrom ? '---:' : '---')).join(' | ')} |`,
    ...t.slice(1).map((c) => `| ${c.map(esc).join(' | ')} |`),
  ];
}

const RATIO_NOTE =
  'Each value of a configuration on Redis is followed by its ratio to 1 process without Redis (median of per-repetition ratios).';

export function scaleOutText(report: ScaleOutReport, workers: number): string {
  const w = Math.max(0, ...report.costs.map((c) => c.label.length));
  return [
    RATIO_NOTE,
    '',
    ...textOf(mainTable(report, workers), 2),
    '',
    'What Redis adds (medians of per-repetition differences):',
    ...report.costs.map((c) => `  ${c.label.padEnd(w)}  ${fmt(c.value, c.unit)}`),
    '',
    'Sizing: Redis CPU per 1,000 requests (ms) and what one Redis core carries:',
    '',
    ...textOf(sizingTable(report.sizing, workers), 3),
    '',
    ...SIZING_NOTES.map((n) => `- ${n}`),
    '',
    'Idle Redis CPU (during the plain 2026-07-28 calls):',
    ...idleLines(report.idle).map((l) => `  ${l}`),
  ].join('\n');
}

export function scaleOutMarkdown(report: ScaleOutReport, workers: number): string {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  return [
    RATIO_NOTE,
    '',
    ...markdownOf(mainTable(report, workers), 2),
    '',
    '| What Redis adds (medians of per-repetition differences) | |',
    '| --- | ---: |',
    ...report.costs.map((c) => `| ${esc(c.label)} | ${fmt(c.value, c.unit)} |`),
    '',
    'Sizing: Redis CPU per 1,000 requests (ms) and what one Redis core carries:',
    '',
    ...markdownOf(sizingTable(report.sizing, workers), 3),
    '',
    ...SIZING_NOTES.map((n) => `- ${n}`),
    '',
    'Idle Redis CPU (during the plain 2026-07-28 calls):',
    '',
    ...idleLines(report.idle).map((l) => `- ${l}`),
  ].join('\n');
}
