/**
 * What each request the client sends resolves with: the schema's result types, by method,
 * from the method catalogue. A method not listed (an extension's) resolves with a plain `Result`.
 */
import type { ClientRequestTypes } from '../protocol/methods.js';
import type { Result, Tool } from '../protocol/types.js';

/** Each request's result type, as the method catalogue (src/protocol/methods.ts) has it. */
export type ResultOf = { [M in keyof ClientRequestTypes]: ClientRequestTypes[M]['result'] };

export type ResultFor<M extends string> = M extends keyof ResultOf ? ResultOf[M] : Result;

/**
 * The one seam where a JSON-RPC result becomes its method's wire type. The server is trusted
 * to answer in its revision's schema (the client checks what decides its course: versions,
 * `resultType`, `requestState`), as every MCP client does; nothing is copied.
 */
export function resultFor<M extends string>(_method: M, result: Result): ResultFor<M> {
  return result as ResultFor<M>;
}

/** `listTools()`'s answer: the page's tools and, when there is one, the next cursor. */
export interface ToolsPage {
  tools: Tool[];
  nextCursor?: string;
}

export function toolsPage(tools: Tool[], nextCursor: unknown): ToolsPage {
  return nextCursor === undefined ? { tools } : { tools, nextCursor: String(nextCursor) };
}
