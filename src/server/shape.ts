/**
 * Per-revision wire shapes: features answer in the newest shape, era-neutral, and each era's
 * dispatcher shapes the answer for the revision in use, keeping only the fields its schema
 * defines, so no message carries a field its revision does not know. Which fields those are
 * is the revisions table's (src/protocol/revisions.ts); these functions only apply it:
 * revision and value in, value out (the same value when nothing changes).
 */
import { CONTENT_BLOCKS, revision, type WireType } from '../protocol/revisions.js';
import type {
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
} from '../protocol/types.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import { isObject } from './guards.js';
import { extend } from '../protocol/extend.js';

/** `value` without the fields of `type` that revision `v` lacks; the same object when it lacks none. */
export function pick<T extends object>(type: WireType, v: ProtocolVersion, value: T): T {
  const lacks = revision(v).lacks[type];
  if (lacks.size === 0) return value;
  let out: T | undefined;
  for (const key in value) {
    if (lacks.has(key)) {
      out ??= { ...value };
      delete out[key];
    }
  }
  return out ?? value;
}

export function shapeTool<T extends object>(v: ProtocolVersion, tool: T): T {
  return pick('Tool', v, tool);
}

export function shapePrompt<T extends { arguments?: unknown }>(v: ProtocolVersion, prompt: T): T {
  const shaped = pick('Prompt', v, prompt);
  if (revision(v).lacks.PromptArgument.size === 0 || !Array.isArray(shaped.arguments)) return shaped;
  return extend(shaped, { arguments: shaped.arguments.map((arg: unknown) => (isObject(arg) ? pick('PromptArgument', v, arg) : arg)) });
}

export function shapeResource<T extends object>(v: ProtocolVersion, resource: T): T {
  return pick('Resource', v, resource);
}

export function shapeResourceTemplate<T extends object>(v: ProtocolVersion, template: T): T {
  return pick('ResourceTemplate', v, template);
}

/** One entry of `contents` (read results, embedded resources): text or blob. */
export function shapeResourceContents<T extends object>(v: ProtocolVersion, contents: T): T {
  return pick('blob' in contents ? 'BlobResourceContents' : 'TextResourceContents', v, contents);
}

const asWritten = new Map<ProtocolVersion, boolean>();

/** Does revision `v` take every content block as written (every block type, every field)? */
function contentAsWritten(v: ProtocolVersion): boolean {
  let yes = asWritten.get(v);
  if (yes === undefined) {
    const r = revision(v);
    yes =
      Object.values(CONTENT_BLOCKS).every((t) => r.fields[t] !== undefined && r.lacks[t].size === 0) &&
      r.lacks.TextResourceContents.size === 0 &&
      r.lacks.BlobResourceContents.size === 0;
    asWritten.set(v, yes);
  }
  return yes;
}

/** What a content block a revision lacks becomes (a type alias, so that it is a plain JSON object to callers). */
type DegradedContent = { type: 'text'; text: string };

/**
 * Content blocks a revision lacks are degraded to text rather than sent malformed
 * (audio before 2025-03-26, resource links before 2025-06-18).
 */
export function shapeContent<T extends { type?: unknown }>(v: ProtocolVersion, block: T): T | DegradedContent {
  const type = CONTENT_BLOCKS[String(block.type)];
  if (type === undefined) return block;
  if (!revision(v).fields[type]) {
    if (block.type === 'resource_link') {
      const name = 'name' in block ? block.name : undefined;
      return { type: 'text', text: `${String(name ?? 'resource')}: ${String('uri' in block ? block.uri : undefined)}` };
    }
    return {
      type: 'text',
      text: `[${String(block.type)} content (${String('mimeType' in block ? block.mimeType : undefined)}) is not supported by protocol ${v}]`,
    };
  }
  const picked = pick(type, v, block);
  if (picked.type === 'resource' && 'resource' in picked && isObject(picked.resource)) {
    const resource = shapeResourceContents(v, picked.resource);
    if (resource !== picked.resource) return extend(picked, { resource });
  }
  return picked;
}

/**
 * `structuredContent` is an object up to 2025-11-25 (2025-06-18/2025-11-25 schema) and any
 * JSON value from 2026-07-28; where it must be an object, other JSON stays as text only.
 */
export function shapeCallToolResult<T extends { structuredContent?: unknown; content?: unknown }>(v: ProtocolVersion, result: T): T {
  let out = pick('CallToolResult', v, result);
  const structured = out.structuredContent;
  if (structured !== undefined && !revision(v).features.structuredContentAnyJson && !isObject(structured)) {
    out = { ...out };
    delete out.structuredContent;
  }
  if (Array.isArray(out.content) && !contentAsWritten(v)) {
    out = extend(out, { content: out.content.map((block: unknown) => (isObject(block) ? shapeContent(v, block) : block)) });
  }
  return out;
}

/** A `prompts/get` result: each message's content block, as the revision has it. */
export function shapeGetPromptResult(v: ProtocolVersion, result: GetPromptResult): GetPromptResult {
  if (contentAsWritten(v)) return result;
  return extend(result, { messages: result.messages.map((m) => extend(m, { content: shapeContent(v, m.content) })) });
}

/** A `resources/read` result: each entry of `contents`, as the revision has it. */
export function shapeReadResourceResult(v: ProtocolVersion, result: ReadResourceResult): ReadResourceResult {
  const { lacks } = revision(v);
  if (lacks.TextResourceContents.size === 0 && lacks.BlobResourceContents.size === 0) return result;
  return extend(result, { contents: result.contents.map((contents) => shapeResourceContents(v, contents)) });
}

/**
 * A list's entries shaped for each revision, remembered by the identity of the era-neutral
 * list: a registry's list is shaped once per revision until the registry changes (its list is
 * then a new array), so a `tools/list` of a thousand tools costs no shaping per request.
 */
class ShapedLists<T extends object> {
  private readonly byRevision = new Map<ProtocolVersion, WeakMap<readonly T[], T[]>>();
  constructor(private readonly shapeEntry: (v: ProtocolVersion, entry: T) => T) {}

  get(v: ProtocolVersion, entries: T[]): T[] {
    let memo = this.byRevision.get(v);
    if (!memo) this.byRevision.set(v, (memo = new WeakMap()));
    let shaped = memo.get(entries);
    if (!shaped) {
      const each = entries.map((e) => this.shapeEntry(v, e));
      shaped = each.every((e, i) => e === entries[i]) ? entries : each;
      memo.set(entries, shaped);
    }
    return shaped;
  }
}

const TOOLS = new ShapedLists<Tool>(shapeTool);
const PROMPTS = new ShapedLists<Prompt>(shapePrompt);
const RESOURCES = new ShapedLists<Resource>(shapeResource);
const TEMPLATES = new ShapedLists<ResourceTemplate>(shapeResourceTemplate);

export function shapeToolList(v: ProtocolVersion, result: ListToolsResult): ListToolsResult {
  const tools = TOOLS.get(v, result.tools);
  return tools === result.tools ? result : extend(result, { tools });
}

export function shapePromptList(v: ProtocolVersion, result: ListPromptsResult): ListPromptsResult {
  const prompts = PROMPTS.get(v, result.prompts);
  return prompts === result.prompts ? result : extend(result, { prompts });
}

export function shapeResourceList(v: ProtocolVersion, result: ListResourcesResult): ListResourcesResult {
  const resources = RESOURCES.get(v, result.resources);
  return resources === result.resources ? result : extend(result, { resources });
}

export function shapeTemplateList(v: ProtocolVersion, result: ListResourceTemplatesResult): ListResourceTemplatesResult {
  const resourceTemplates = TEMPLATES.get(v, result.resourceTemplates);
  return resourceTemplates === result.resourceTemplates ? result : extend(result, { resourceTemplates });
}
