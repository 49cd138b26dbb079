/**
 * Which failures of a handler the model may read (safe by default: nothing internal leaks).
 * A tool's unexpected errors are masked on the wire and reported in full to `onError`; only a
 * `ToolError`, and the failures of the handler's own `ctx` calls to the client (a refused,
 * unanswered or mismatched `ctx.elicit`, `ctx.sample`, `ctx.roots`, whose messages Janus
 * writes), reach the model as they are.
 */

import { ToolError } from '../../protocol/errors.js';

export { ToolError };

/** The message a tool's unexpected failure shows the model instead of its own. */
export const TOOL_FAILED = 'The tool failed because of an internal error.';

const fromContext = new WeakSet<object>();

/** Marks an error thrown by a `ctx` call to the client as one whose message the model may read. */
export function contextFailure(error: unknown): unknown {
  if (typeof error === 'object' && error !== null) fromContext.add(error);
  return error;
}

/** A ToolError, or the failure of a `ctx` call to the client: the model may read its message. */
export function isForModel(error: unknown): error is Error {
  return error instanceof ToolError || (error instanceof Error && fromContext.has(error));
}
