/**
 * Waiting in tests: on an event where there is one (`deferred`, `aborted`), else by polling with a
 * deadline that only a failing test reaches (`until`), so a loaded machine slows a test down but
 * does not fail it. `withClock` replaces waiting for time to pass where the code reads Date.now().
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Polls `cond` every 5 ms and resolves with its first truthy value; fails after `timeoutMs`
 * naming `what`. Its clock is performance.now(), which `withClock` leaves alone.
 */
export async function until<T>(cond: () => T | Promise<T>, what = 'the condition', timeoutMs = 5000): Promise<Truthy<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await cond();
    if (value) return value as Truthy<T>;
    if (performance.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(5);
  }
}

/** A promise with its resolver, for handlers that report to the test. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves with the reason when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) =>
    signal.aborted ? resolve(signal.reason) : signal.addEventListener('abort', () => resolve(signal.reason), { once: true }),
  );
}

/**
 * Runs `fn` with `Date.now()` on a clock the test moves by hand (`clock.now += ms`), so a limit
 * measured in time is pinned to the millisecond without sleeping. Timers and performance.now()
 * keep real time; the real clock is back when `fn` settles.
 */
export async function withClock<T>(fn: (clock: { now: number }) => T | Promise<T>): Promise<T> {
  const realNow = Date.now;
  const clock = { now: realNow() };
  Date.now = () => clock.now;
  try {
    return await fn(clock);
  } finally {
    Date.now = realNow;
  }
}
