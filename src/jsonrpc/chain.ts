/**
 * The `(ctx, next)` chain both sides run around a message: the server's middleware around an
 * inbound one (src/server/middleware.ts), the client's around an outbound request
 * (src/client/middleware.ts). Each `next()` runs the rest of the chain again (so a middleware
 * may retry). A middleware that returns nothing passes on the outcome of its last `next()`,
 * result or error, waiting for it if the middleware did not.
 *
 * No step is an `async` function: a chain of middleware that hand back what `next()` gave them
 * costs one promise (the method's outcome), not two per link.
 */
import { isThenable } from '../protocol/thenable.js';

/** One link: what the server and client middleware types both are. */
export type Link<C> = (ctx: C, next: () => Promise<unknown>) => unknown;

/** How a side judges what its middleware did; one object per side, not per message. */
export interface ChainRules<C> {
  /** Checks a value a middleware returned itself (throws to refuse it). */
  returned?(out: unknown, ctx: C): void;
  /** A middleware returned nothing and never called `next()`: what the chain resolves to, or throw. */
  nothing(ctx: C): unknown;
}

/**
 * The chain's outcome: when every middleware handed back what `next()` gave it and the method
 * answered at once, the method's value itself, so that the caller may answer without waiting
 * a turn (`next()` still returned a promise of it); otherwise a promise.
 */
export function runLinks<C>(chain: readonly Link<C>[], ctx: C, terminal: () => unknown, rules: ChainRules<C>): unknown {
  // The promise the latest next() at the end of the chain made from a value the method returned at once.
  let known: Promise<unknown> | undefined;
  let knownValue: unknown;
  const step = (i: number): Promise<unknown> => {
    if (i === chain.length) {
      let value: unknown;
      try {
        value = terminal();
      } catch (e) {
        return Promise.reject(e);
      }
      if (isThenable(value)) return Promise.resolve(value);
      knownValue = value;
      return (known = Promise.resolve(value));
    }
    let last: Promise<unknown> | undefined;
    const next = () => (last = step(i + 1));
    let out: unknown;
    try {
      out = chain[i]!(ctx, next);
    } catch (e) {
      return Promise.reject(e);
    }
    // Handing back what next() gave is the commonest middleware: that promise is the outcome.
    if (out === last && last !== undefined) return last;
    // Anything else is judged once it settles, a turn later at the earliest, as an `await` would:
    // a middleware may still call next() in that turn.
    return Promise.resolve(out).then((value) => {
      if (value !== undefined) {
        rules.returned?.(value, ctx);
        return value;
      }
      return last ?? rules.nothing(ctx);
    });
  };
  const outcome = step(0);
  return outcome === known ? knownValue : outcome;
}
