/** Tool definitions: declared once, validated at registration, era-neutral. */
import { JanusError, McpError } from '../../protocol/errors.js';
import type { CallToolResult, ContentBlock, Icon, Meta, ToolAnnotations } from '../../protocol/types.js';
import { readHeaderParams, type HeaderParam } from '../../protocol/x-mcp-header.js';
import { compileSchema, NO_ARGUMENTS, type CompiledSchema, type SchemaInput, type StandardSchema } from '../schema/convert.js';
import type { RequestContext } from '../context.js';

/** What a tool handler may return; see `toCallToolResult`. */
export type ToolReturn = string | CallToolResult | ContentBlock[] | Record<string, unknown> | unknown[] | number | boolean | null | undefined;

type InferInput<S> = S extends StandardSchema<infer I, infer O> ? (unknown extends O ? I : O) : Record<string, unknown>;

export interface ToolConfig<S extends SchemaInput | undefined = SchemaInput | undefined> {
  title?: string;
  description?: string;
  /** Arguments: a Standard Schema with JSON Schema support (Zod 4) or a raw JSON Schema 2020-12 object. */
  input?: S;
  /** Structured output schema; results are validated against it. */
  output?: SchemaInput;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Meta;
}

export type ToolHandler<S extends SchemaInput | undefined> = (
  args: S extends SchemaInput ? InferInput<S> : Record<string, unknown>,
  ctx: RequestContext,
) => ToolReturn | Promise<ToolReturn>;

export interface ToolEntry {
  readonly name: string;
  readonly config: ToolConfig;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
  readonly headerParams: readonly HeaderParam[];
  readonly handler: ToolHandler<any>;
  /** The newest wire shape; each revision picks the fields it defines. */
  readonly wire: Record<string, unknown>;
}

/** Tool names per docs/2025-11-25/server/tools.mdx §Tool Names. */
const TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

export function defineTool(name: string, config: ToolConfig, handler: ToolHandler<any>): ToolEntry {
  if (!TOOL_NAME.test(name)) {
    throw new JanusError('REGISTRATION', `tool name "${name}" must be 1-128 characters of A-Z a-z 0-9 _ - . /`);
  }
  if (typeof handler !== 'function') throw new JanusError('REGISTRATION', `tool "${name}" needs a handler function`);
  const input = config.input ? compileSchema(config.input, `tool "${name}" input`) : NO_ARGUMENTS;
  const output = config.output ? compileSchema(config.output, `tool "${name}" output`, 'output') : undefined;
  const headers = readHeaderParams(input.json);
  if (!headers.ok) throw new JanusError('REGISTRATION', `tool "${name}": ${headers.reason}`);
  const wire: Record<string, unknown> = { name };
  if (config.title !== undefined) wire.title = config.title;
  if (config.description !== undefined) wire.description = config.description;
  wire.inputSchema = input.json;
  if (output) wire.outputSchema = output.json;
  if (config.annotations !== undefined) wire.annotations = config.annotations;
  if (config.icons !== undefined) wire.icons = config.icons;
  if (config._meta !== undefined) wire._meta = config._meta;
  return { name, config, input, output, headerParams: headers.params, handler, wire };
}

function isContentBlock(v: unknown): v is ContentBlock {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}

function isCallToolResult(v: unknown): v is CallToolResult {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) &&
    Array.isArray((v as CallToolResult).content) && (v as CallToolResult).content.every(isContentBlock)
  );
}

/**
 * Normalizes what a handler returned: a string is one text block; content blocks pass
 * through; a `CallToolResult` is taken as is; any other JSON value becomes
 * `structuredContent` with its JSON text as content (tools.mdx §Structured Content).
 */
export function toCallToolResult(tool: ToolEntry, value: ToolReturn): CallToolResult | Promise<CallToolResult> {
  const result = normalize(value);
  return tool.output && !result.isError ? checkOutput(tool, tool.output, result) : result;
}

function normalize(value: ToolReturn): CallToolResult {
  let result: CallToolResult;
  if (typeof value === 'string') {
    result = { content: [{ type: 'text', text: value }] };
  } else if (isCallToolResult(value)) {
    result = value;
  } else if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) {
    result = { content: value as ContentBlock[] };
  } else if (value === undefined) {
    result = { content: [] };
  } else {
    result = { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  }
  return result;
}

async function checkOutput(tool: ToolEntry, output: CompiledSchema, result: CallToolResult): Promise<CallToolResult> {
  {
    if (result.structuredContent === undefined) {
      throw new McpError(-32603, `tool "${tool.name}" declares an output schema but returned no structured content`);
    }
    const checked = await output.validate(result.structuredContent);
    if (!checked.ok) {
      throw new McpError(-32603, `tool "${tool.name}" returned structured content that does not match its output schema: ${checked.message}`);
    }
  }
  return result;
}

/** A tool-level error: reported to the model as `isError: true`, not as a protocol error. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
