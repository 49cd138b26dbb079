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
  /** Scenario 8 (scale-out): worker processes of configuration (c) (`--workers`). */
  workers?: number;
}

/** Scenario 8's configurations: one process, one process on Redis, N workers on Redis. */
export type ScaleOutConfig = 'one' | 'one+redis' | 'workers';

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
