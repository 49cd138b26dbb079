/**
 * One fuzz run: a handful of frames sent together (a burst, as a busy client writes them),
 * rendered with channel-unique ids, each with the answer model.ts says it is owed. A
 * `notifications/cancelled` in the run makes the answer of the request it names optional
 * (cancellation.mdx: the receiver may already have answered, and a cancelled request gets none).
 */
import fc from 'fast-check';
import type { Id } from '../support/common.js';
import type { Frame } from './arbitraries.js';
import type { Sent } from './judge.js';
import { type Context, type Expectation, expectationFor } from './model.js';
import { abbreviate, IdAllocator, render } from './wire-text.js';

/** The weight of each family in a run; a family missing here is not generated. */
export type Weights = Readonly<Record<string, number>>;

/** Frames drawn from the weighted families, `maxFrames` at most per run. */
export function framesArbitrary(all: Record<string, fc.Arbitrary<Frame>>, weights: Weights, maxFrames: number): fc.Arbitrary<Frame[]> {
  const chosen = Object.entries(weights)
    .filter(([family, weight]) => weight > 0 && all[family] !== undefined)
    .map(([family, weight]) => ({ weight, arbitrary: all[family]! }));
  if (chosen.length === 0) throw new Error('no family left to fuzz');
  return fc.array(fc.oneof(...chosen), { minLength: 1, maxLength: maxFrames });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function cancelledIds(value: unknown, into: Set<Id>): void {
  for (const m of Array.isArray(value) ? value : [value]) {
    if (typeof m !== 'object' || m === null || m.method !== 'notifications/cancelled') continue;
    const id: unknown = m.params?.requestId;
    if (typeof id === 'string' || typeof id === 'number') into.add(id);
  }
}

function optionalIfCancelled(e: Expectation, cancelled: ReadonlySet<Id>): Expectation {
  if (e.kind === 'batch') {
    const items = e.items.map((item) => optionalIfCancelled(item, cancelled));
    const allOptional = items.every((item) => item.kind === 'none' || item.optional);
    return { ...e, items, ...(allOptional ? { optional: true } : {}) };
  }
  if ((e.kind === 'response' || e.kind === 'listen') && cancelled.has(e.id)) return { ...e, optional: true };
  return e;
}

/** Renders the frames of one run and says what each is owed on `ctx`. */
export function plan(frames: readonly Frame[], ctx: Context, ids: IdAllocator): Sent[] {
  ids.startRun();
  const sent = frames.map((f) => {
    const text = f.text ?? render(f.value ?? null, ids);
    return { family: f.family, text, expect: expectationFor(text, ctx) };
  });
  const cancelled = new Set<Id>();
  for (const s of sent) cancelledIds(parse(s.text), cancelled);
  return cancelled.size === 0 ? sent : sent.map((s) => ({ ...s, expect: optionalIfCancelled(s.expect, cancelled) }));
}

/** The frames of a run as they go on the wire (ids numbered from 1), for failure reports. */
export function renderFrames(frames: readonly Frame[]): string {
  const ids = new IdAllocator();
  ids.startRun();
  return frames.map((f) => `[${f.family}] ${abbreviate(f.text ?? render(f.value ?? null, ids), 600)}`).join('\n');
}
