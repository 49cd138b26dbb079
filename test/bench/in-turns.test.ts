/**
 * The benchmark's turns (bench/lib/context.ts `inTurns`): every implementation gets the whole
 * measured window in slices, after at least the warm-up, in rounds of one slice each, and none
 * waits more than 3 s for its next turn (Node closes a keep-alive connection idle for 5 s). Run on a
 * virtual clock: a slice takes its warm-up plus its window.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inTurns } from '../../bench/lib/context.js';

interface Turn {
  lane: string;
  start: number;
  end: number;
  warmupMs: number;
  durationMs: number;
  measured: boolean;
}

async function play(lanes: string[], o: { durationMs: number; warmupMs: number; rewarmMs: number }): Promise<Turn[]> {
  const turns: Turn[] = [];
  let now = 0;
  await inTurns(lanes, o, async (lane, warmupMs, durationMs, measured) => {
    turns.push({ lane, start: now, end: now + warmupMs + durationMs, warmupMs, durationMs, measured });
    now += warmupMs + durationMs;
  });
  return turns;
}

// The HTTP load steps' window, warm-up and re-warm-up, and stdio's sequential round trips'.
const STEPS = [
  { durationMs: 5000, warmupMs: 1000, rewarmMs: 200 },
  { durationMs: 3000, warmupMs: 500, rewarmMs: 100 },
];

for (const count of [2, 3, 4, 6])
  for (const o of STEPS)
    test(`${count} implementations share a ${o.durationMs} ms window in turns`, async () => {
      const lanes = Array.from({ length: count }, (_, i) => `impl${i}`);
      const turns = await play(lanes, o);
      for (const lane of lanes) {
        const own = turns.filter((t) => t.lane === lane);
        const measured = own.filter((t) => t.measured);
        assert.ok(
          Math.abs(measured.reduce((n, t) => n + t.durationMs, 0) - o.durationMs) < 1e-6,
          `${lane} is measured for the whole window`,
        );
        assert.ok(
          measured.every((t) => t.durationMs <= 1000),
          'slices of at most a second',
        );
        const firstMeasured = own.indexOf(measured[0]!);
        const warm = own.slice(0, firstMeasured).reduce((n, t) => n + t.warmupMs + t.durationMs, 0) + measured[0]!.warmupMs;
        assert.ok(warm >= o.warmupMs, `${lane} warms up for at least ${o.warmupMs} ms before its first measured slice (${warm})`);
        assert.ok(
          own.slice(firstMeasured).every((t) => t.measured),
          'no unmeasured slice after the warm-up',
        );
        for (let i = 1; i < own.length; i++) assert.ok(own[i]!.start - own[i - 1]!.end <= 3000, `${lane} waits at most 3 s for its turn`);
      }
      // Every round holds each implementation once, in the order given, so they all see the same stretch of time.
      for (let r = 0; r < turns.length / count; r++)
        assert.deepEqual(
          turns.slice(r * count, (r + 1) * count).map((t) => t.lane),
          lanes,
        );
    });

test('one implementation: its warm-up and the whole window in one go', async () => {
  const turns = await play(['janus'], { durationMs: 5000, warmupMs: 1000, rewarmMs: 200 });
  assert.deepEqual(
    turns.map(({ warmupMs, durationMs, measured }) => ({ warmupMs, durationMs, measured })),
    [{ warmupMs: 1000, durationMs: 5000, measured: true }],
  );
});
