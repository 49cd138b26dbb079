/**
 * Runs a fuzz property with fast-check and reports a failure so that it can be replayed: the
 * seed and path, the command that replays it, and the shrunk frames as they went on the wire.
 *
 * Sizes come from the environment, so the same tests serve `npm test` (a few thousand frames,
 * seconds of CPU) and `npm run fuzz` (scripts/fuzz.ts: 100,000 frames per transport):
 *   JANUS_FUZZ_FRAMES    frames per property (default: the test's own)
 *   JANUS_FUZZ_SEED      replay a seed (with JANUS_FUZZ_PATH, the failing case's path)
 *   JANUS_FUZZ_FAMILIES  only these families (known-failures.ts, activeWeights)
 */
import { AssertionError } from 'node:assert';
import fc from 'fast-check';

/** How long a request may go unanswered before the run counts it as a hang (the machine is shared: generous). */
export const ANSWER_BOUND_MS = 10_000;

/** The frames one property should send: JANUS_FUZZ_FRAMES or the test's default. */
export function frameBudget(fallback: number): number {
  const n = Number(process.env.JANUS_FUZZ_FRAMES);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export interface FuzzReport {
  /** Frames sent over all runs (shrinking included). */
  readonly frames: number;
  readonly runs: number;
  readonly seed: number;
}

/**
 * Checks `property` on `numRuns` runs of `arbitrary`. The property resolves with the problems
 * of one run (empty when it held); any problem fails the run, which fast-check then shrinks.
 * On failure throws an AssertionError with everything needed to replay it.
 */
export async function fuzz<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  property: (value: T) => Promise<string[]>,
  options: { numRuns: number; render: (value: T) => string; replay: string },
): Promise<FuzzReport> {
  const envSeed = Number(process.env.JANUS_FUZZ_SEED);
  const seed = Number.isInteger(envSeed) ? envSeed : Date.now() ^ (Math.random() * 0x7fffffff);
  const path = process.env.JANUS_FUZZ_PATH;
  let runs = 0;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      runs++;
      const problems = await property(value);
      if (problems.length > 0) throw new Error(problems.join('\n'));
    }),
    {
      numRuns: options.numRuns,
      seed,
      ...(path ? { path } : {}),
      // Shrinking a hang waits ANSWER_BOUND_MS per attempt: stop shrinking after two minutes.
      skipAllAfterTimeLimit: 120_000,
    },
  );
  if (details.failed) {
    const families = process.env.JANUS_FUZZ_FAMILIES ? `JANUS_FUZZ_FAMILIES=${process.env.JANUS_FUZZ_FAMILIES} ` : '';
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    const example = details.counterexample ? options.render(details.counterexample[0]) : '(none)';
    throw new AssertionError({
      message: [
        `${name}: property failed after ${details.numRuns} run(s) and ${details.numShrinks} shrink(s)`,
        `replay: ${families}JANUS_FUZZ_SEED=${details.seed} JANUS_FUZZ_PATH=${details.counterexamplePath ?? ''} ${options.replay}`,
        'minimal frames:',
        example,
        'problems:',
        error,
      ].join('\n'),
    });
  }
  return { frames: 0, runs, seed };
}
