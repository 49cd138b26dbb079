/** Prompt definitions. Arguments are strings on the wire (docs/…/server/prompts.mdx). */
import { JanusError, McpError, ErrorCode } from '../../protocol/errors.js';
import type { ContentBlock, GetPromptResult, Icon, Meta, Prompt, PromptArgument, PromptMessage } from '../../protocol/types.js';
import { compileSchema, type CompiledSchema } from '../schema/convert.js';
import type { Parsed, RawShape, SchemaInput, StandardSchema } from '../schema/types.js';
import type { RequestContext } from '../context.js';
import type { Completer } from './completion.js';
import { isObject } from '../guards.js';
import { contentProblem } from './content.js';
import { jsonProblem } from './json-value.js';
import { wireDefinition } from './wire-object.js';

/**
 * What a prompt handler returns: a string (one user message), the messages, or the whole
 * `GetPromptResult`.
 */
export type PromptReturn = string | PromptMessage[] | GetPromptResult;

/** A prompt's arguments: a list of argument descriptions, or an object schema. */
export type PromptArguments = readonly PromptArgument[] | SchemaInput;

/**
 * How a prompt is described: its presentation, its arguments (a list, or an object schema that
 * validates them), completions for them and the OAuth scopes it needs.
 */
export interface PromptConfig<A extends PromptArguments | undefined = PromptArguments | undefined> {
  /** A human-readable name for display. */
  title?: string;
  /** What the prompt is for. */
  description?: string;
  /**
   * Either a list of argument descriptions (`[{ name, description?, required? }]`), or an
   * object schema (Standard Schema or JSON Schema) whose properties become the arguments and
   * which validates them. The handler's arguments are typed from either.
   */
  arguments?: A;
  /** Completion of argument values, by argument name. */
  complete?: Record<string, Completer>;
  /** Icons for display. */
  icons?: Icon[];
  /** Sent as the prompt's `_meta` in `prompts/list`. */
  _meta?: Meta;
  /**
   * OAuth scopes a caller needs for this prompt (`prompts/get`), on top of the HTTP resource server's own
   * (`janus-mcp/http` option `auth`): a token without them gets 403 `insufficient_scope`
   * naming them. Ignored where the transport authenticates nobody (stdio, HTTP without `auth`).
   */
  scopes?: string[];
}

/**
 * The arguments a prompt handler gets: the schema's output type; for a list, the named
 * arguments as strings (optional unless `required: true`); otherwise `Record<string, string>`.
 */
export type PromptArgs<A> = A extends StandardSchema
  ? Parsed<A>
  : A extends readonly PromptArgument[]
    ? string extends A[number]['name']
      ? Record<string, string | undefined>
      : NamedArgs<A[number]>
    : A extends RawShape
      ? Parsed<A>
      : Record<string, string>;

type NamedArgs<P extends PromptArgument> = Flat<
  { [K in P as K extends { required: true } ? K['name'] : never]: string } & {
    [K in P as K extends { required: true } ? never : K['name']]?: string;
  }
>;
type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * The function that answers `prompts/get`: gets the arguments, typed from the config, and the
 * request's context.
 */
export type PromptHandler<A extends PromptArguments | undefined = undefined> = (
  args: PromptArgs<A>,
  ctx: RequestContext,
) => PromptReturn | Promise<PromptReturn>;

/** A handler as the registry holds it, its types erased. */
export type AnyPromptHandler = (args: never, ctx: RequestContext) => PromptReturn | Promise<PromptReturn>;

export interface PromptEntry {
  readonly name: string;
  readonly config: PromptConfig;
  readonly arguments: PromptArgument[];
  readonly schema: CompiledSchema | undefined;
  readonly handler: AnyPromptHandler;
  /** The newest wire shape; each revision picks the fields it defines. */
  readonly wire: Prompt;
}

export function definePrompt(name: string, config: PromptConfig, handler: AnyPromptHandler): PromptEntry {
  if (!name) throw new JanusError('REGISTRATION', 'a prompt needs a name');
  if (typeof handler !== 'function') throw new JanusError('REGISTRATION', `prompt "${name}" needs a handler function`);
  let args: PromptArgument[] = [];
  let schema: CompiledSchema | undefined;
  if (isArgumentList(config.arguments)) {
    args = [...config.arguments];
  } else if (config.arguments) {
    schema = compileSchema(config.arguments, `prompt "${name}" arguments`);
    args = argumentsFromSchema(schema.json);
  }
  const wire = wireDefinition<Prompt>(`prompt "${name}"`, {
    name,
    title: config.title,
    description: config.description,
    arguments: args.length ? args : undefined,
    icons: config.icons,
    _meta: config._meta,
  });
  return { name, config, arguments: args, schema, handler, wire };
}

function isArgumentList(a: PromptArguments | undefined): a is readonly PromptArgument[] {
  return Array.isArray(a);
}

function argumentsFromSchema(json: Record<string, unknown>): PromptArgument[] {
  const props = isObject(json.properties) ? json.properties : {};
  const required: unknown[] = Array.isArray(json.required) ? json.required : [];
  return Object.entries(props).map(([name, p]) => {
    const arg: PromptArgument = { name };
    if (isObject(p) && typeof p.title === 'string') arg.title = p.title;
    if (isObject(p) && typeof p.description === 'string') arg.description = p.description;
    if (required.includes(name)) arg.required = true;
    return arg;
  });
}

/** Checks arguments: required ones present, all strings, then the schema if one was given. */
export async function checkPromptArguments(prompt: PromptEntry, raw: unknown): Promise<unknown> {
  if (raw !== undefined && !isObject(raw)) {
    throw new McpError(ErrorCode.InvalidParams, 'arguments must be an object of strings');
  }
  const args = raw ?? {};
  for (const a of prompt.arguments) {
    // Own entries only: an argument named `constructor` is not "given" by Object.prototype.
    if (a.required && (!Object.hasOwn(args, a.name) || args[a.name] === undefined)) {
      throw new McpError(ErrorCode.InvalidParams, `prompt "${prompt.name}": missing required argument "${a.name}"`);
    }
  }
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string') throw new McpError(ErrorCode.InvalidParams, `prompt "${prompt.name}": argument "${k}" must be a string`);
  }
  if (!prompt.schema) return args; // every value was checked to be a string
  const checked = await prompt.schema.validate(args);
  if (!checked.ok) throw new McpError(ErrorCode.InvalidParams, `prompt "${prompt.name}": invalid arguments: ${checked.message}`);
  return checked.value;
}

/**
 * A prompt handler's return as a `GetPromptResult`: text is one user message; messages and
 * results must be JSON with well-formed content blocks, else the handler has a bug, thrown as
 * a `JanusError` (masked on the wire, reported to `onError`).
 */
export function toGetPromptResult(name: string, value: PromptReturn): GetPromptResult {
  if (typeof value === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  const result: unknown = Array.isArray(value) ? { messages: value } : value;
  const problem = resultProblem(result);
  if (problem) throw new JanusError('SCHEMA', `prompt "${name}" returned ${problem}`);
  return result as GetPromptResult;
}

function resultProblem(result: unknown): string | undefined {
  if (!isObject(result) || !Array.isArray(result.messages)) return 'neither text, messages nor a GetPromptResult';
  const messages: unknown[] = result.messages;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) return `messages[${i}] without role "user" or "assistant"`;
    const problem = contentProblem(m.content, `messages[${i}].content`);
    if (problem) return problem;
  }
  return jsonProblem(result);
}

export type { ContentBlock };
