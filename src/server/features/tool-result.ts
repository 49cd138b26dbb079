/**
 * What a tool handler returned, as the `CallToolResult` the server sends (server/tools.mdx
 * §Tool Result, §Structured Content, §Output Schema):
 *
 * - a string is one text block; with an `output` schema it is the structured content as JSON
 *   text, parsed and checked like any structured value;
 * - content blocks (an array of objects whose `type` is a content block type) are the content;
 * - a `CallToolResult` (an object whose `content` is such an array) is taken as is;
 * - `undefined` is no content;
 * - any other JSON value is structured content, with its JSON text as the content.
 *
 * Nothing is coerced: a value that is not JSON (a function, a Date, NaN, a bigint, a cycle, a
 * class instance) or a content block without the fields its type requires is a bug in the
 * handler, thrown as a `JanusError` that the tool reports as its internal failure.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import type { CallToolResult, ContentBlock } from '../../protocol/types.js';
import { isObject } from '../guards.js';
import type { CompiledSchema } from '../schema/convert.js';
import { contentProblem, isContentBlockLike } from './content.js';
import { jsonProblem } from './json-value.js';
import type { ToolEntry } from './tools.js';
import { extend } from '../../protocol/extend.js';

export function toCallToolResult(tool: ToolEntry, value: unknown): CallToolResult | Promise<CallToolResult> {
  if (typeof value === 'string') {
    if (!tool.output) return { content: [{ type: 'text', text: value }] };
    return checkOutput(tool, tool.output, structured(tool, parseJsonText(tool, value)), true);
  }
  const derived = !isResultLike(value);
  const result = derived ? structured(tool, value) : normalize(tool, value);
  return tool.output && !result.isError ? checkOutput(tool, tool.output, result, derived) : result;
}

function isCallToolResult(v: unknown): v is CallToolResult {
  return isObject(v) && Array.isArray(v.content) && v.content.every(isContentBlockLike);
}

/** Content blocks, a `CallToolResult` or nothing; anything else is structured content. */
function isResultLike(value: unknown): value is CallToolResult | ContentBlock[] | undefined {
  return value === undefined || isCallToolResult(value) || (Array.isArray(value) && value.length > 0 && value.every(isContentBlockLike));
}

function normalize(tool: ToolEntry, value: CallToolResult | ContentBlock[] | undefined): CallToolResult {
  if (value === undefined) return { content: [] };
  const result = Array.isArray(value) ? { content: value } : value;
  const content: unknown[] = result.content;
  for (let i = 0; i < content.length; i++) {
    const problem = contentProblem(content[i], `content[${i}]`);
    if (problem) throw unsendable(tool, problem);
  }
  if (result.isError !== undefined && typeof result.isError !== 'boolean') throw unsendable(tool, 'isError that is not a boolean');
  const problem = jsonProblem(result);
  if (problem) throw unsendable(tool, problem);
  return result;
}

/** Structured content and its JSON text; the value must be JSON as it is. */
function structured(tool: ToolEntry, value: unknown): CallToolResult {
  const problem = jsonProblem(value);
  if (problem) throw unsendable(tool, problem);
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** A string from a tool with an output schema: its structured content, as JSON text. */
function parseJsonText(tool: ToolEntry, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new McpError(
      ErrorCode.InternalError,
      `tool "${tool.name}" declares an output schema but returned a string that is not JSON; return the structured value`,
    );
  }
}

function unsendable(tool: ToolEntry, problem: string): JanusError {
  return new JanusError('SCHEMA', `tool "${tool.name}" returned a result that cannot be sent as it is: ${problem}`);
}

/**
 * tools.mdx §Output Schema: structured results MUST conform. What is sent is the validated
 * value (defaults filled in, unknown keys stripped where the library does so), which the
 * published `outputSchema` (the schema's output side) describes.
 */
async function checkOutput(tool: ToolEntry, output: CompiledSchema, result: CallToolResult, derived: boolean): Promise<CallToolResult> {
  if (result.structuredContent === undefined) {
    throw new McpError(ErrorCode.InternalError, `tool "${tool.name}" declares an output schema but returned no structured content`);
  }
  const checked = await output.validate(result.structuredContent);
  if (!checked.ok) {
    throw new McpError(
      ErrorCode.InternalError,
      `tool "${tool.name}" returned structured content that does not match its output schema: ${checked.message}`,
    );
  }
  if (checked.value === result.structuredContent) return result;
  // Text derived from the value is derived again; content the handler chose is kept.
  if (derived) return structured(tool, checked.value);
  const problem = jsonProblem(checked.value);
  if (problem) throw unsendable(tool, `its output schema made ${problem}`);
  return extend(result, { structuredContent: checked.value });
}
