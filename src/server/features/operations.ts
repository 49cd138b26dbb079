/**
 * The era-neutral work behind each feature method. Results come back in the wire shape
 * of the revision in use (newest shape for 2026-07-28); each era's dispatcher adds its own
 * envelope fields (resultType, cache hints, serverInfo).
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import type { Resource } from '../../protocol/types.js';
import type { RequestContext } from '../context.js';
import type { Registry } from '../registry.js';
import { revision } from '../../protocol/revisions.js';
import {
  shapeCallToolResult, shapeGetPromptResult, shapePrompt, shapeReadResourceResult, shapeResource, shapeResourceTemplate, shapeTool,
} from '../shape.js';
import { toCompletion } from './completion.js';
import { checkPromptArguments, toGetPromptResult } from './prompts.js';
import { toReadResult, type CacheHint } from './resources.js';
import { toCallToolResult, toolError, type ToolEntry } from './tools.js';
import type { CallToolResult } from '../../protocol/types.js';
import type { Validation } from '../schema/convert.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

export interface OperationsOptions {
  /** Page size of list results; undefined = one page. */
  pageSize: number | undefined;
}

/** Per-revision shaped lists, rebuilt only when the registry changes. */
class ShapedListCache {
  private version = -1;
  private readonly byRevision = new Map<string, readonly Result[]>();
  get(registry: Registry, key: string, build: () => readonly Result[]): readonly Result[] {
    if (this.version !== registry.version) {
      this.byRevision.clear();
      this.version = registry.version;
    }
    let list = this.byRevision.get(key);
    if (!list) this.byRevision.set(key, (list = build()));
    return list;
  }
}

export class Operations {
  private readonly lists = new ShapedListCache();
  constructor(private readonly registry: Registry, private readonly options: OperationsOptions) {}

  private page(items: readonly Result[], params: Params, field: string): Result {
    const size = this.options.pageSize;
    const cursor = params.cursor;
    let start = 0;
    if (cursor !== undefined) {
      start = decodeCursor(cursor);
      if (start > items.length) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
    }
    if (size === undefined && start === 0) return { [field]: items };
    const end = size === undefined ? items.length : Math.min(items.length, start + size);
    const out: Result = { [field]: items.slice(start, end) };
    if (end < items.length) out.nextCursor = encodeCursor(end);
    return out;
  }

  listTools(params: Params, v: ProtocolVersion): Result {
    const tools = this.lists.get(this.registry, `tools@${v}`, () => [...this.registry.tools.values()].map((t) => shapeTool(v, t.wire)));
    return this.page(tools, params, 'tools');
  }

  /**
   * Runs a tool. Stays synchronous while the validator and the handler are: a plain
   * value comes back, and the modern dispatcher then skips its input-required machinery.
   */
  callTool(params: Params, ctx: RequestContext, v: ProtocolVersion): Result | Promise<Result> {
    const name = params.name;
    if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'tools/call needs a tool name');
    const tool = this.registry.tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, { name });
    const raw = params.arguments ?? {};
    // Input validation failures are tool execution errors the model can correct
    // (2025-11-25 server/tools.mdx §Error Handling), not protocol errors.
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return shapeFor(v, toolError(`Invalid arguments for tool ${name}: arguments must be an object`));
    }
    const checked = tool.input.validate(raw);
    return checked instanceof Promise
      ? checked.then((c) => runTool(tool, c, ctx, v))
      : runTool(tool, checked, ctx, v);
  }

  listPrompts(params: Params, v: ProtocolVersion): Result {
    const prompts = this.lists.get(this.registry, `prompts@${v}`, () => [...this.registry.prompts.values()].map((p) => shapePrompt(v, p.wire)));
    return this.page(prompts, params, 'prompts');
  }

  async getPrompt(params: Params, ctx: RequestContext, v: ProtocolVersion): Promise<Result> {
    const name = params.name;
    if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'prompts/get needs a prompt name');
    const prompt = this.registry.prompts.get(name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`, { name });
    const args = await checkPromptArguments(prompt, params.arguments);
    // The registry erased the handler's argument type; checkPromptArguments produced it.
    const result = toGetPromptResult(await prompt.handler(args as never, ctx));
    return shapeGetPromptResult(v, result) as unknown as Result;
  }

  async listResources(params: Params, v: ProtocolVersion): Promise<Result> {
    const direct = this.lists.get(this.registry, `resources@${v}`, () => [...this.registry.resources.values()].map((r) => shapeResource(v, r.wire)));
    const listers = [...this.registry.templates.values()].filter((t) => t.config.list);
    if (!listers.length) return this.page(direct, params, 'resources');
    const extra: Resource[] = [];
    for (const t of listers) extra.push(...(await t.config.list!()));
    return this.page([...direct, ...extra.map((r) => shapeResource(v, r as unknown as Result))], params, 'resources');
  }

  listTemplates(params: Params, v: ProtocolVersion): Result {
    const templates = this.lists.get(this.registry, `templates@${v}`, () => [...this.registry.templates.values()].map((t) => shapeResourceTemplate(v, t.wire)));
    return this.page(templates, params, 'resourceTemplates');
  }

  /** Returns the result and the cache hint of the resource that answered. */
  async readResource(params: Params, ctx: RequestContext, v: ProtocolVersion): Promise<{ result: Result; cache: CacheHint | undefined }> {
    const uri = params.uri;
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'resources/read needs a uri');
    const direct = this.registry.resources.get(uri);
    let result;
    let cache: CacheHint | undefined;
    if (direct) {
      result = toReadResult(uri, direct.config.mimeType, await direct.read(uri, ctx));
      cache = direct.config.cache;
    } else {
      for (const t of this.registry.templates.values()) {
        const vars = t.match(uri);
        if (!vars) continue;
        result = toReadResult(uri, t.config.mimeType, await t.read(uri, vars, ctx));
        cache = t.config.cache;
        break;
      }
    }
    if (!result) {
      // -32002, or -32602 where servers MUST NOT emit -32002 any more (2026-07-28 resources.mdx §Error Handling).
      throw new McpError(revision(v).errors.resourceNotFound, `Resource not found: ${uri}`, { uri });
    }
    return { result: shapeReadResourceResult(v, result) as unknown as Result, cache };
  }

  async complete(params: Params, ctx: RequestContext): Promise<Result> {
    const ref = params.ref as Params | undefined;
    const argument = params.argument as Params | undefined;
    if (!ref || typeof ref !== 'object' || !argument || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'completion/complete needs ref and argument {name, value}');
    }
    const context = (params.context as { arguments?: Record<string, string> } | undefined)?.arguments ?? {};
    let completer;
    if (ref.type === 'ref/prompt') {
      const prompt = this.registry.prompts.get(String(ref.name));
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${String(ref.name)}`);
      completer = prompt.config.complete?.[argument.name];
    } else if (ref.type === 'ref/resource') {
      const template = this.registry.templates.get(String(ref.uri));
      if (!template && !this.registry.resources.has(String(ref.uri))) {
        throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${String(ref.uri)}`);
      }
      completer = template?.config.complete?.[argument.name];
    } else {
      throw new McpError(ErrorCode.InvalidParams, 'ref.type must be ref/prompt or ref/resource');
    }
    const completion = completer
      ? toCompletion(await completer({ value: argument.value, arguments: context }, ctx))
      : { values: [], total: 0, hasMore: false };
    return { completion };
  }

  hasCompletions(): boolean {
    return this.registry.prompts.size > 0 || this.registry.templates.size > 0;
  }
}

function shapeFor(v: ProtocolVersion, result: CallToolResult): Result {
  return shapeCallToolResult(v, result as unknown as Result);
}

/** A handler's failure: protocol errors go on the wire, anything else is a tool error for the model. */
function failed(e: unknown, v: ProtocolVersion): Result {
  if (e instanceof McpError) throw e;
  return shapeFor(v, toolError(e instanceof Error ? e.message : String(e)));
}

function finish(tool: ToolEntry, out: unknown, v: ProtocolVersion): Result | Promise<Result> {
  const normalized = toCallToolResult(tool, out);
  return normalized instanceof Promise ? normalized.then((r) => shapeFor(v, r)) : shapeFor(v, normalized);
}

function runTool(tool: ToolEntry, checked: Validation, ctx: RequestContext, v: ProtocolVersion): Result | Promise<Result> {
  if (!checked.ok) return shapeFor(v, toolError(`Invalid arguments for tool ${tool.name}: ${checked.message}`));
  let out;
  try {
    // The registry erased the handler's argument type; the validator produced that type.
    out = tool.handler(checked.value as never, ctx);
    if (!isThenable(out)) {
      const r = finish(tool, out, v);
      return r instanceof Promise ? r.catch((e: unknown) => failed(e, v)) : r;
    }
  } catch (e) {
    return failed(e, v);
  }
  return Promise.resolve(out).then((o) => finish(tool, o, v)).catch((e: unknown) => failed(e, v));
}

function isThenable<T>(v: T | PromiseLike<T>): v is PromiseLike<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

function encodeCursor(offset: number): string {
  return btoa(JSON.stringify({ o: offset }));
}

function decodeCursor(cursor: unknown): number {
  try {
    const o = (JSON.parse(atob(String(cursor))) as { o?: unknown }).o;
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
}
