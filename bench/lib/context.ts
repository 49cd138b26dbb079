/** What every scenario gets: options, the pinning, and a place to record measurements. */
import { IMPLS, type Impl, type Pinning } from './proc.js';

export interface Options {
  quick: boolean;
  reps: number;
  only: Set<string> | undefined;
  /** Load step length and warm-up, ms. */
  durationMs: number;
  warmupMs: number;
  impls: readonly Impl[];
  /** `--impls` was given (scenario 9 leaves the SDK out unless it is named). */
  implsGiven?: boolean;
  /** Override of scenario 1/2's connection counts (profiling). */
  connections?: number[];
  /** Extra node flags for the servers under test (profiling: --cpu-prof). */
  nodeFlags?: string[];
  /** Scenario 8 (scale-out): worker processes of the `:N` configurations (`--workers`). */
  workers?: number;
  /** Scenario 8: the kinds of Redis to measure on (`--redis single,cluster,sentinel`; default all). */
  redisKinds?: readonly RedisKind[];
}

/** Scenario 8's kinds of Redis: one redis-server, a Redis Cluster (3 primaries + 3 replicas), Sentinel (primary + replica + 3 sentinels). */
export type RedisKind = 'single' | 'cluster' | 'sentinel';
export const REDIS_KINDS: readonly RedisKind[] = ['single', 'cluster', 'sentinel'];
/** How many primaries scenario 8 gives each kind (bench/lib/redis-kinds.ts starts them so). */
export const REDIS_PRIMARIES: Readonly<Record<RedisKind, number>> = { single: 1, cluster: 3, sentinel: 1 };

/**
 * Scenario 8's configurations: `one`, one process without Redis; `<kind>:1`, one process on
 * that kind of Redis; `<kind>:N`, N `node:cluster` workers on it.
 */
export type ScaleOutConfig = 'one' | `${RedisKind}:1` | `${RedisKind}:N`;

export interface Sample {
  scenario: string;
  /** e.g. "64 connections", "modern sequential". */
  step: string;
  metric: string;
  unit: string;
  /** Which direction is better (for ratios read as "how many times as good"). */
  better: 'higher' | 'lower';
  impl: Impl | ScaleOutConfig;
  rep: number;
  /** null: the implementation cannot do this (reported as n/a). */
  value: number | null;
  /** Shown in the JSON only (e.g. the load generator's own CPU). */
  diagnostic?: boolean;
}

export interface Ctx {
  opts: Options;
  pinning: Pinning;
  samples: Sample[];
  log: (msg: string) => void;
}

export function record(ctx: Ctx, s: Omit<Sample, 'value'> & { value: number | null }): void {
  ctx.samples.push(s);
}

/** Implementations in a different order each repetition, so none always runs first. */
export function orderFor<T extends string = Impl>(rep: number, impls: readonly T[] = IMPLS as readonly T[]): T[] {
  const k = rep % impls.length;
  return [...impls.slice(k), ...impls.slice(0, k)];
}

export const MB = 1024 * 1024;
export const KB = 1024;

/**
 * Runs a step on several implementations at once, in turns. This machine's speed drifts over
 * tens of seconds (in one run bare made 19,630, 23,887 and 19,143 stdio round trips/s in its
 * three repetitions), by more than the differences measured, so measuring one implementation
 * after another compared moments as much as code. Here the window (`durationMs` each) is cut
 * into slices of at most a second that the implementations take in turn, in the order given
 * (the repetition's, rotated from one repetition to the next); warm-up rounds come first (at
 * least `warmupMs` each, results dropped), and every later slice starts with `rewarmMs`
 * unmeasured. No implementation waits more than 3 s for its next turn, so idle keep-alive
 * connections outlive it (Node closes them after 5 s).
 */
export async function inTurns<T>(
  lanes: readonly T[],
  o: { durationMs: number; warmupMs: number; rewarmMs: number },
  slice: (lane: T, warmupMs: number, durationMs: number, measured: boolean) => Promise<void>,
): Promise<void> {
  if (lanes.length === 1) return slice(lanes[0]!, o.warmupMs, o.durationMs, true);
  const others = lanes.length - 1;
  const longest = Math.max(100, Math.min(1000, Math.floor(3000 / others) - o.rewarmMs));
  const slices = Math.ceil(o.durationMs / longest);
  const sliceMs = o.durationMs / slices;
  const warmRounds = Math.ceil(o.warmupMs / (sliceMs + o.rewarmMs));
  for (let r = 0; r < warmRounds + slices; r++) for (const lane of lanes) await slice(lane, o.rewarmMs, sliceMs, r >= warmRounds);
}
