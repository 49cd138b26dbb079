/** Tool definitions: declared once, validated at registration, era-neutral. */
import { JanusError } from '../../protocol/errors.js';
import type { CallToolResult, ContentBlock, Icon, Meta, Tool, ToolAnnotations } from '../../protocol/types.js';
import { readHeaderParams, type HeaderParam } from '../../protocol/x-mcp-header.js';
import { compileSchema, NO_ARGUMENTS, type CompiledSchema } from '../schema/convert.js';
import type { Accepted, Parsed, RawShape, SchemaInput, StandardSchema } from '../schema/types.js';
import type { RequestContext } from '../context.js';
import { wireDefinition } from './wire-object.js';

/** What a tool handler may return when the tool has no typed `output` schema; see `toCallToolResult` (tool-result.ts). */
export type ToolReturn =
  | string
  | CallToolResult
  | ContentBlock[]
  | Record<string, unknown>
  | unknown[]
  | number
  | boolean
  | null
  | undefined;

/** A tool error, as `toolError(message)` makes: shown to the model, exempt from the output schema. */
export type ToolErrorResult = CallToolResult & { isError: true };

/**
 * What a handler returns when its `output` is a typed schema: the structured content itself
 * (sent as `structuredContent`, with its JSON as text), a `CallToolResult` whose
 * `structuredContent` has that type (to choose the content blocks), or a tool error.
 */
export type StructuredReturn<T> = T | (CallToolResult & { structuredContent: T }) | ToolErrorResult;

/**
 * What a tool's handler must produce for `output`: the schema's input type for a Standard
 * Schema; anything (`ToolReturn`) for a raw JSON Schema or none. (Kept inside
 * `StructuredReturn` rather than choosing between it and `ToolReturn` outside, so literals
 * in a handler's result keep their types while the call is being inferred.)
 */
export type ToolOutput<O> = O extends StandardSchema | RawShape ? Accepted<O> : ToolReturn;

/**
 * How a tool is described and checked: its presentation (`title`, `description`, `annotations`,
 * `icons`), its input and output schemas, the OAuth scopes it needs and its extension settings.
 *
 * @example
 * ```ts
 * server.tool('add', { description: 'Adds two numbers', input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
 * ```
 */
export interface ToolConfig<
  I extends SchemaInput | undefined = SchemaInput | undefined,
  O extends SchemaInput | undefined = SchemaInput | undefined,
> {
  /** A human-readable name for display. */
  title?: string;
  /** What the tool does and when to use it: what the model reads to choose it. */
  description?: string;
  /**
   * Arguments: a Standard Schema that can produce JSON Schema (Zod 4 or Zod 3.25's `zod/v4`,
   * ArkType, Valibot wrapped with `toStandardJsonSchema()`) or a raw JSON Schema 2020-12
   * object, with an object root. The handler's arguments are typed from it.
   */
  input?: I;
  /**
   * Structured output: every result's `structuredContent` is validated against it and sent
   * as validated. A Standard Schema also types what the handler may return (`StructuredReturn`).
   */
  output?: O;
  /** Hints about the tool's behaviour (read-only, destructive, idempotent, open world). */
  annotations?: ToolAnnotations;
  /** Icons for display. */
  icons?: Icon[];
  /** Sent as the tool's `_meta` in `tools/list`. */
  _meta?: Meta;
  /**
   * OAuth scopes a caller needs for this tool (`tools/call`), on top of the HTTP resource server's own
   * (`janus-mcp/http` option `auth`): a token without them gets 403 `insufficient_scope`
   * naming them. Ignored where the transport authenticates nobody (stdio, HTTP without `auth`).
   */
  scopes?: string[];
  /**
   * Settings for the server's extensions, by extension id, each checked by its extension when
   * the tool is registered (the tasks extension's `task('optional')` from `janus-mcp/tasks`
   * makes the tool run as a task). The server must have the extension.
   */
  extensions?: Readonly<Record<string, unknown>>;
}

/**
 * A tool handler: gets the validated arguments (typed from `input`; `Record<string, unknown>`
 * for raw JSON Schema or no schema) and the request context.
 */
export type ToolHandler<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined> = (
  args: Parsed<I>,
  ctx: RequestContext,
) => StructuredReturn<ToolOutput<O>> | Promise<StructuredReturn<ToolOutput<O>>>;

/** A handler as the registry holds it, its types erased. */
export type AnyToolHandler = (args: never, ctx: RequestContext) => unknown;

/**
 * A registered tool as the server holds it: its config, compiled schemas and handler, and its
 * newest wire shape. What an extension's tool-call hook is given.
 */
export interface ToolEntry {
  /** The tool's name. */
  readonly name: string;
  /** The config it was registered with. */
  readonly config: ToolConfig;
  /** Its input schema, compiled: the JSON Schema sent and the validator of arguments. */
  readonly input: CompiledSchema;
  /** Its output schema, compiled, when it has one. */
  readonly output: CompiledSchema | undefined;
  /** The arguments its input schema marks for `Mcp-Param-*` headers (`x-mcp-header`). */
  readonly headerParams: readonly HeaderParam[];
  /** Its handler. */
  readonly handler: AnyToolHandler;
  /** The newest wire shape; each revision picks the fields it defines. */
  readonly wire: Tool;
}

/** Tool names per docs/2025-11-25/server/tools.mdx §Tool Names. */
const TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

/** A tool's definition; `extra`: the wire fields its extension settings add (`ServerExtension.tool`). */
export function defineTool(name: string, config: ToolConfig, handler: AnyToolHandler, extra?: Partial<Tool>): ToolEntry {
  if (!TOOL_NAME.test(name)) {
    throw new JanusError('REGISTRATION', `tool name "${name}" must be 1-128 characters of A-Z a-z 0-9 _ - . /`);
  }
  if (typeof handler !== 'function') throw new JanusError('REGISTRATION', `tool "${name}" needs a handler function`);
  const input = config.input ? compileSchema(config.input, `tool "${name}" input`) : NO_ARGUMENTS;
  const output = config.output ? compileSchema(config.output, `tool "${name}" output`, 'output') : undefined;
  const headers = readHeaderParams(input.json);
  if (!headers.ok) throw new JanusError('REGISTRATION', `tool "${name}": ${headers.reason}`);
  const wire = wireDefinition<Tool>(`tool "${name}"`, {
    name,
    title: config.title,
    description: config.description,
    inputSchema: input.json,
    outputSchema: output?.json,
    annotations: config.annotations,
    icons: config.icons,
    ...extra,
    _meta: config._meta,
  });
  return { name, config, input, output, headerParams: headers.params, handler, wire };
}

/** A tool-level error: reported to the model as `isError: true`, not as a protocol error. */
export function toolError(message: string): ToolErrorResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
