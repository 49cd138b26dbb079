/**
 * The `(ctx, next)` chain both sides run around a message: the server's middleware around an
 * inbound one (src/server/middleware.ts), the client's around an outbound request
 * (src/client/middleware.ts). Each `next()` runs the rest of the chain again (so a middleware
 * may retry). A middleware that returns nothing passes on the outcome of its last `next()`,
 * result or error, waiting for it if the middleware did not.
 */

/** One link: what the server and client middleware types both are. */
export type Link<C> = (ctx: C, next: () => Promise<unknown>) => unknown;

export interface ChainRules {
  /** Checks a value a middleware returned itself (throws to refuse it). */
  returned?(out: unknown): void;
  /** A middleware returned nothing and never called `next()`: what the chain resolves to, or throw. */
  nothing(): unknown;
}

export function runLinks<C>(chain: readonly Link<C>[], ctx: C, terminal: () => unknown, rules: ChainRules): Promise<unknown> {
  const step = async (i: number): Promise<unknown> => {
    if (i === chain.length) return terminal();
    let last: Promise<unknown> | undefined;
    const next = () => (last = step(i + 1));
    const out = await chain[i]!(ctx, next);
    if (out !== undefined) {
      rules.returned?.(out);
      return out;
    }
    if (last !== undefined) return last;
    return rules.nothing();
  };
  return step(0);
}
