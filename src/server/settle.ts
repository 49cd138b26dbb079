/**
 * How the dispatchers answer without making a promise when they need none: the work's outcome
 * (`work(request)`, a function made once rather than a closure per request)
 * goes to `conclude` at once when it returned a value or threw, and when it settles when it
 * returned a promise (or any thenable, as `await` would take). `hold` hears of the second case
 * before the outcome can come: only a request still running past this call needs to be found
 * by a cancellation or counted against a limit, and the dispatchers register it there.
 */
import { isThenable } from './guards.js';

export function settle<R, T>(
  request: R,
  work: (request: R) => T | PromiseLike<T>,
  conclude: (request: R, value: T | undefined, error: unknown) => void,
  hold?: (request: R) => void,
): void | Promise<void> {
  let outcome: T | PromiseLike<T>;
  try {
    outcome = work(request);
  } catch (e) {
    return conclude(request, undefined, e);
  }
  if (!isThenable(outcome)) return conclude(request, outcome, undefined);
  hold?.(request);
  return Promise.resolve(outcome).then(
    (value) => conclude(request, value, undefined),
    (e: unknown) => conclude(request, undefined, e),
  );
}
