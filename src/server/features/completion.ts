/** Argument completion (docs/2025-11-25/server/utilities/completion.mdx). */
import type { Completion } from '../../protocol/types.js';
import type { RequestContext } from '../context.js';

export interface CompletionRequest {
  /** The partial value typed so far. */
  value: string;
  /** Values of arguments already resolved (2025-06-18+ `context.arguments`). */
  arguments: Record<string, string>;
}

/** Returns candidate values, or a full `Completion` when the server knows the total. */
export type Completer = (request: CompletionRequest, ctx: RequestContext) => string[] | Completion | Promise<string[] | Completion>;

/** The spec caps a completion at 100 values. */
export function toCompletion(out: string[] | Completion): Completion {
  const c: Completion = Array.isArray(out) ? { values: out } : out;
  if (c.values.length <= 100) return Array.isArray(out) ? { values: c.values, total: c.values.length, hasMore: false } : c;
  return { values: c.values.slice(0, 100), total: c.total ?? c.values.length, hasMore: true };
}
