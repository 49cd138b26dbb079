/** Prompt definitions. Arguments are strings on the wire (docs/…/server/prompts.mdx). */
import { JanusError, McpError, ErrorCode } from '../../protocol/errors.js';
import type { ContentBlock, GetPromptResult, Icon, Meta, PromptArgument, PromptMessage } from '../../protocol/types.js';
import { compileSchema, type CompiledSchema, type SchemaInput } from '../schema/convert.js';
import type { RequestContext } from '../context.js';
import type { Completer } from './completion.js';

export type PromptReturn = string | PromptMessage[] | GetPromptResult;

export interface PromptConfig {
  title?: string;
  description?: string;
  /**
   * Either a list of argument descriptions, or an object schema (Standard Schema or JSON
   * Schema) whose properties become the arguments and which validates them.
   */
  arguments?: PromptArgument[] | SchemaInput;
  /** Completion of argument values, by argument name. */
  complete?: Record<string, Completer>;
  icons?: Icon[];
  _meta?: Meta;
}

export type PromptHandler = (args: Record<string, string>, ctx: RequestContext) => PromptReturn | Promise<PromptReturn>;

export interface PromptEntry {
  readonly name: string;
  readonly config: PromptConfig;
  readonly arguments: PromptArgument[];
  readonly schema: CompiledSchema | undefined;
  readonly handler: PromptHandler;
  readonly wire: Record<string, unknown>;
}

export function definePrompt(name: string, config: PromptConfig, handler: PromptHandler): PromptEntry {
  if (!name) throw new JanusError('REGISTRATION', 'a prompt needs a name');
  if (typeof handler !== 'function') throw new JanusError('REGISTRATION', `prompt "${name}" needs a handler function`);
  let args: PromptArgument[] = [];
  let schema: CompiledSchema | undefined;
  if (Array.isArray(config.arguments)) {
    args = config.arguments;
  } else if (config.arguments) {
    schema = compileSchema(config.arguments, `prompt "${name}" arguments`);
    args = argumentsFromSchema(schema.json);
  }
  const wire: Record<string, unknown> = { name };
  if (config.title !== undefined) wire.title = config.title;
  if (config.description !== undefined) wire.description = config.description;
  if (args.length) wire.arguments = args;
  if (config.icons !== undefined) wire.icons = config.icons;
  if (config._meta !== undefined) wire._meta = config._meta;
  return { name, config, arguments: args, schema, handler, wire };
}

function argumentsFromSchema(json: Record<string, unknown>): PromptArgument[] {
  const props = (json.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
  return Object.entries(props).map(([name, p]) => {
    const arg: PromptArgument = { name };
    if (typeof p.title === 'string') arg.title = p.title;
    if (typeof p.description === 'string') arg.description = p.description;
    if (required.has(name)) arg.required = true;
    return arg;
  });
}

/** Checks arguments: required ones present, all strings, then the schema if one was given. */
export async function checkPromptArguments(prompt: PromptEntry, raw: unknown): Promise<Record<string, string>> {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw new McpError(ErrorCode.InvalidParams, 'arguments must be an object of strings');
  }
  const args = (raw ?? {}) as Record<string, unknown>;
  for (const a of prompt.arguments) {
    if (a.required && args[a.name] === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `prompt "${prompt.name}": missing required argument "${a.name}"`);
    }
  }
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string') throw new McpError(ErrorCode.InvalidParams, `prompt "${prompt.name}": argument "${k}" must be a string`);
  }
  if (!prompt.schema) return args as Record<string, string>;
  const checked = await prompt.schema.validate(args);
  if (!checked.ok) throw new McpError(ErrorCode.InvalidParams, `prompt "${prompt.name}": invalid arguments: ${checked.message}`);
  return checked.value as Record<string, string>;
}

export function toGetPromptResult(value: PromptReturn): GetPromptResult {
  if (typeof value === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  if (Array.isArray(value)) return { messages: value };
  if (value && Array.isArray(value.messages)) return value;
  throw new McpError(ErrorCode.InternalError, 'prompt handler returned neither text, messages nor a GetPromptResult');
}

export type { ContentBlock };
