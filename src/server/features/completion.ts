/** Argument completion (docs/2025-11-25/server/utilities/completion.mdx). */
import { JanusError } from '../../protocol/errors.js';
import type { Completion } from '../../protocol/types.js';
import { isObject } from '../guards.js';
import { jsonProblem } from './json-value.js';
import type { RequestContext } from '../context.js';

/**
 * What a {@link Completer} is asked to complete: the value typed so far and the arguments already
 * chosen.
 */
export interface CompletionRequest {
  /** The partial value typed so far. */
  value: string;
  /** Values of arguments already resolved (2025-06-18+ `context.arguments`). */
  arguments: Record<string, string>;
}

/** Returns candidate values, or a full `Completion` when the server knows the total. */
export type Completer = (request: CompletionRequest, ctx: RequestContext) => string[] | Completion | Promise<string[] | Completion>;

/**
 * A completer's return as a `Completion`; the spec caps one at 100 values. Anything but
 * strings (or a `Completion` of strings) is a bug in the completer, thrown as a `JanusError`.
 */
export function toCompletion(name: string, out: string[] | Completion): Completion {
  const c: Completion = Array.isArray(out) ? { values: out } : out;
  const problem = completionProblem(c);
  if (problem) throw new JanusError('SCHEMA', `the completer of "${name}" returned ${problem}`);
  if (c.values.length <= 100) return Array.isArray(out) ? { values: c.values, total: c.values.length, hasMore: false } : c;
  return { values: c.values.slice(0, 100), total: c.total ?? c.values.length, hasMore: true };
}

function completionProblem(c: unknown): string | undefined {
  if (!isObject(c) || !Array.isArray(c.values)) return 'neither a list of strings nor a Completion';
  if (!c.values.every((v) => typeof v === 'string')) return 'values that are not all strings';
  if (c.total !== undefined && !Number.isInteger(c.total)) return 'a total that is not an integer';
  if (c.hasMore !== undefined && typeof c.hasMore !== 'boolean') return 'a hasMore that is not a boolean';
  return jsonProblem(c);
}
