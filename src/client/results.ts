/**
 * What each request the client sends resolves with: the schema's result types
 * (src/protocol/types.ts), by method. A method not listed resolves with a plain `Result`.
 */
import type {
  CallToolResult,
  CompleteResult,
  DiscoverResult,
  GetPromptResult,
  InitializeResult,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListToolsResult,
  ReadResourceResult,
  Result,
  Tool,
} from '../protocol/types.js';

export interface ResultOf {
  initialize: InitializeResult;
  'server/discover': DiscoverResult;
  'tools/list': ListToolsResult;
  'tools/call': CallToolResult;
  'prompts/list': ListPromptsResult;
  'prompts/get': GetPromptResult;
  'resources/list': ListResourcesResult;
  'resources/templates/list': ListResourceTemplatesResult;
  'resources/read': ReadResourceResult;
  'completion/complete': CompleteResult;
}

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
