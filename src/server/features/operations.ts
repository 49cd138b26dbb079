/**
 * The era-neutral work behind each feature method. Results come back in the newest wire
 * shape, as the protocol types describe them; each era's dispatcher shapes them for the
 * revision in use (src/server/shape.ts) and adds its own envelope fields (resultType, cache
 * hints, serverInfo). Nothing here knows eras or revisions: where an answer differs per
 * revision beyond its shape (the code of an unknown resource), a feature throws an
 * era-neutral error (`ResourceNotFoundError`) that the dispatcher maps.
 */
import { ErrorCode, JanusError, McpError, ResourceNotFoundError } from '../../protocol/errors.js';
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from '../../protocol/types.js';
import type { RequestContext } from '../context.js';
import type { Registry } from '../registry.js';
import type { Validation } from '../schema/convert.js';
import { toCompletion, type Completer } from './completion.js';
import { checkPromptArguments, toGetPromptResult } from './prompts.js';
import { toReadResult, type CacheHint } from './resources.js';
import { isObject, isThenable, isUri, quoted, setOwn } from '../guards.js';
import { jsonProblem } from './json-value.js';
import { isForModel, TOOL_FAILED } from './tool-error.js';
import { toCallToolResult } from './tool-result.js';
import { toolError, type ToolEntry } from './tools.js';

/** A request's params as they came off the wire: read and checked here. */
type Params = Record<string, unknown>;

export interface OperationsOptions {
  /** Page size of list results; undefined = one page. */
  pageSize: number | undefined;
  /** Where a handler's unexpected failure is reported in full (the server's `onError`); the wire gets a masked one. */
  reportError(error: unknown): void;
  /** Extensions' hook around tool calls (extension.ts), consulted only while one is `active`. */
  toolCall?: ToolCallSeam;
}

/**
 * Runs a tool call an extension's way (as a task) or returns undefined. `run` is the plain
 * call with another context. `active` is false while no extension hooks tool calls, so a
 * plain server pays nothing for the seam.
 */
export interface ToolCallSeam {
  readonly active: boolean;
  call(
    tool: ToolEntry,
    params: Params,
    ctx: RequestContext,
    run: (ctx: RequestContext) => Promise<object>,
  ): object | Promise<object> | undefined;
}

/**
 * The cache hint of the resource that gave a `resources/read` answer, kept beside the answer
 * rather than in it: middleware sees (and may return) the plain result. A result a middleware
 * builds anew has no hint here and gets the configured default.
 */
const readHints = new WeakMap<ReadResourceResult, CacheHint>();

export function cacheHintOf(result: object): CacheHint | undefined {
  return readHints.get(result as ReadResourceResult);
}

function hinted(result: ReadResourceResult, hint: CacheHint | undefined): ReadResourceResult {
  if (hint !== undefined) readHints.set(result, hint);
  return result;
}

/**
 * The registry's entries as wire lists, in registration order, rebuilt only when the registry
 * changes: a list request pages (and the dispatcher shapes) the same array until then.
 */
class WireLists {
  private version = -1;
  private toolList: Tool[] | undefined;
  private promptList: Prompt[] | undefined;
  private resourceList: Resource[] | undefined;
  private templateList: ResourceTemplate[] | undefined;

  constructor(private readonly registry: Registry) {}

  private current(): void {
    if (this.version === this.registry.version) return;
    this.version = this.registry.version;
    this.toolList = this.promptList = this.resourceList = this.templateList = undefined;
  }

  tools(): Tool[] {
    this.current();
    return (this.toolList ??= [...this.registry.tools.values()].map((t) => t.wire));
  }

  prompts(): Prompt[] {
    this.current();
    return (this.promptList ??= [...this.registry.prompts.values()].map((p) => p.wire));
  }

  resources(): Resource[] {
    this.current();
    return (this.resourceList ??= [...this.registry.resources.values()].map((r) => r.wire));
  }

  templates(): ResourceTemplate[] {
    this.current();
    return (this.templateList ??= [...this.registry.templates.values()].map((t) => t.wire));
  }
}

// One page of each kind of list (pagination.mdx): `nextCursor` only when more follow.
const toolPage = (tools: Tool[], nextCursor: string | undefined): ListToolsResult =>
  nextCursor === undefined ? { tools } : { tools, nextCursor };
const promptPage = (prompts: Prompt[], nextCursor: string | undefined): ListPromptsResult =>
  nextCursor === undefined ? { prompts } : { prompts, nextCursor };
const resourcePage = (resources: Resource[], nextCursor: string | undefined): ListResourcesResult =>
  nextCursor === undefined ? { resources } : { resources, nextCursor };
const templatePage = (resourceTemplates: ResourceTemplate[], nextCursor: string | undefined): ListResourceTemplatesResult =>
  nextCursor === undefined ? { resourceTemplates } : { resourceTemplates, nextCursor };

export class Operations {
  private readonly lists: WireLists;
  constructor(
    private readonly registry: Registry,
    private readonly options: OperationsOptions,
  ) {
    this.lists = new WireLists(registry);
  }

  /** The page of `items` that `params.cursor` names: the whole list (the same array) when no page size is set. */
  private page<T, R>(items: T[], params: Params, result: (page: T[], nextCursor: string | undefined) => R): R {
    const size = this.options.pageSize;
    const cursor = params.cursor;
    let start = 0;
    if (cursor !== undefined) {
      start = decodeCursor(cursor);
      if (start > items.length) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
    }
    if (size === undefined && start === 0) return result(items, undefined);
    const end = size === undefined ? items.length : Math.min(items.length, start + size);
    return result(items.slice(start, end), end < items.length ? encodeCursor(end) : undefined);
  }

  listTools(params: Params): ListToolsResult {
    return this.page(this.lists.tools(), params, toolPage);
  }

  /**
   * Runs a tool. Stays synchronous while the validator and the handler are: a plain
   * value comes back, and the modern dispatcher then skips its input-required machinery.
   */
  callTool(params: Params, ctx: RequestContext): CallToolResult | Promise<CallToolResult> {
    const hook = this.options.toolCall;
    if (hook === undefined || !hook.active) return this.plainCall(params, ctx);
    const name = params.name;
    const tool = typeof name === 'string' ? this.registry.tools.get(name) : undefined;
    if (tool === undefined) return this.plainCall(params, ctx);
    const taken = hook.call(tool, params, ctx, async (other) => this.plainCall(params, other));
    // A task's CreateTaskResult stands where the tool's result would (extension.ts `verbatim`).
    return (taken ?? this.plainCall(params, ctx)) as CallToolResult | Promise<CallToolResult>;
  }

  /** A tool call past the extensions' hook (`ExtensionHost.callTool`). */
  plainCall(params: Params, ctx: RequestContext): CallToolResult | Promise<CallToolResult> {
    const name = params.name;
    if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'tools/call needs a tool name');
    const tool = this.registry.tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, { name });
    const raw = params.arguments ?? {};
    // Input validation failures are tool execution errors the model can correct
    // (2025-11-25 server/tools.mdx §Error Handling), not protocol errors.
    if (!isObject(raw)) return toolError(`Invalid arguments for tool ${name}: arguments must be an object`);
    const checked = tool.input.validate(raw);
    if (!(checked instanceof Promise)) return runTool(tool, checked, ctx, this.options.reportError);
    // A request cancelled while its arguments were being validated never starts its handler
    // (cancellation.mdx: the receiver SHOULD stop processing); nobody gets this answer.
    return checked.then((c) => (ctx.signal.aborted ? NOT_STARTED : runTool(tool, c, ctx, this.options.reportError)));
  }

  listPrompts(params: Params): ListPromptsResult {
    return this.page(this.lists.prompts(), params, promptPage);
  }

  async getPrompt(params: Params, ctx: RequestContext): Promise<GetPromptResult> {
    const name = params.name;
    if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'prompts/get needs a prompt name');
    const prompt = this.registry.prompts.get(name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`, { name });
    const args = await checkPromptArguments(prompt, params.arguments);
    // The registry erased the handler's argument type; checkPromptArguments produced it.
    return toGetPromptResult(prompt.name, await prompt.handler(args as never, ctx));
  }

  /** Registered resources, then those the templates' `list` offer now. */
  async listResources(params: Params): Promise<ListResourcesResult> {
    const direct = this.lists.resources();
    const listers = [...this.registry.templates.values()].filter((t) => t.config.list);
    if (!listers.length) return this.page(direct, params, resourcePage);
    const all = [...direct];
    for (const t of listers) {
      const listed: unknown = t.config.list ? await t.config.list() : [];
      const problem = Array.isArray(listed) ? jsonProblem(listed) : 'not an array';
      if (problem) throw new JanusError('SCHEMA', `the list() of resource template "${t.uriTemplate}" returned ${problem}`);
      all.push(...(listed as Resource[]));
    }
    return this.page(all, params, resourcePage);
  }

  listTemplates(params: Params): ListResourceTemplatesResult {
    return this.page(this.lists.templates(), params, templatePage);
  }

  /** Returns the result and the cache hint of the resource that answered. */
  async readResource(params: Params, ctx: RequestContext): Promise<ReadResourceResult> {
    const uri = params.uri;
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'resources/read needs a uri');
    if (!isUri(uri)) throw new McpError(ErrorCode.InvalidParams, 'resources/read: uri is not a URI (RFC 3986)');
    const direct = this.registry.resources.get(uri);
    if (direct) return hinted(toReadResult(uri, direct.config.mimeType, await direct.read(uri, ctx)), direct.config.cache);
    for (const t of this.registry.templates.values()) {
      const vars = t.match(uri);
      if (!vars) continue;
      return hinted(toReadResult(uri, t.config.mimeType, await t.read(uri, vars, ctx)), t.config.cache);
    }
    throw new ResourceNotFoundError(uri);
  }

  async complete(params: Params, ctx: RequestContext): Promise<CompleteResult> {
    const { ref, argument } = params;
    if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'completion/complete needs ref and argument {name, value}');
    }
    let completer: Completer | undefined;
    if (ref.type === 'ref/prompt') {
      const prompt = typeof ref.name === 'string' ? this.registry.prompts.get(ref.name) : undefined;
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${quoted(ref.name)}`);
      completer = ownEntry(prompt.config.complete, argument.name);
    } else if (ref.type === 'ref/resource') {
      const uri = typeof ref.uri === 'string' ? ref.uri : undefined;
      const template = uri === undefined ? undefined : this.registry.templates.get(uri);
      if (!template && (uri === undefined || !this.registry.resources.has(uri))) {
        throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${quoted(ref.uri)}`);
      }
      completer = ownEntry(template?.config.complete, argument.name);
    } else {
      throw new McpError(ErrorCode.InvalidParams, 'ref.type must be ref/prompt or ref/resource');
    }
    const completion = completer
      ? toCompletion(argument.name, await completer({ value: argument.value, arguments: contextArguments(params.context) }, ctx))
      : { values: [], total: 0, hasMore: false };
    return { completion };
  }

  hasCompletions(): boolean {
    return this.registry.prompts.size > 0 || this.registry.templates.size > 0;
  }
}

/** `context.arguments` of a completion request (2025-06-18 and later): the values resolved so far. */
function contextArguments(context: unknown): Record<string, string> {
  const args = isObject(context) ? context.arguments : undefined;
  if (!isObject(args)) return {};
  const out: Record<string, string> = {};
  // Keys are the client's: a key such as `__proto__` stays a plain entry.
  for (const [k, v] of Object.entries(args)) if (typeof v === 'string') setOwn(out, k, v);
  return out;
}

/** A completer registered under exactly this name, never one inherited from Object.prototype (`constructor`, `toString`). */
function ownEntry<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** What a tool cancelled before its handler started answers: nothing is sent for a cancelled request. */
const NOT_STARTED: CallToolResult = Object.freeze(toolError('cancelled before the tool started'));

/**
 * A tool handler's failure (2025-11-25 server/tools.mdx §Error Handling; safe by default). An
 * `McpError` is a protocol error the handler chose: it goes on the wire as it
 * is. A `ToolError`, or a failed `ctx` call to the client, is an error for the model: its
 * message is the tool result's text. Anything else is a bug or an outage whose message may
 * hold secrets (a host name, a query): the model reads only that the tool failed, and the
 * error goes, with its stack, to `onError` (unless the request was cancelled, which is what
 * made it fail).
 */
function failed(e: unknown, ctx: RequestContext, report: (error: unknown) => void): CallToolResult {
  if (e instanceof McpError) throw e;
  if (isForModel(e)) return toolError(e.message);
  if (!ctx.signal.aborted) report(e);
  return toolError(TOOL_FAILED);
}

function runTool(
  tool: ToolEntry,
  checked: Validation,
  ctx: RequestContext,
  report: (error: unknown) => void,
): CallToolResult | Promise<CallToolResult> {
  if (!checked.ok) return toolError(`Invalid arguments for tool ${tool.name}: ${checked.message}`);
  let out: unknown;
  try {
    // The registry erased the handler's argument type; the validator produced that type.
    out = tool.handler(checked.value as never, ctx);
    if (!isThenable(out)) {
      const r = toCallToolResult(tool, out);
      return r instanceof Promise ? r.catch((e: unknown) => failed(e, ctx, report)) : r;
    }
  } catch (e) {
    return failed(e, ctx, report);
  }
  return settle(tool, out, ctx, report);
}

/** The rest of a tool call whose handler returned a promise. */
async function settle(
  tool: ToolEntry,
  pending: PromiseLike<unknown>,
  ctx: RequestContext,
  report: (error: unknown) => void,
): Promise<CallToolResult> {
  try {
    return await toCallToolResult(tool, await pending);
  } catch (e) {
    return failed(e, ctx, report);
  }
}

function encodeCursor(offset: number): string {
  return btoa(JSON.stringify({ o: offset }));
}

function decodeCursor(cursor: unknown): number {
  try {
    const decoded: unknown = JSON.parse(atob(String(cursor)));
    const o = isObject(decoded) ? decoded.o : undefined;
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
}
