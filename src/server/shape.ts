/**
 * Per-revision wire shapes: a definition is written once in its newest form and each
 * revision keeps only the fields its schema defines, so no message carries a field its
 * revision does not know. Which fields those are is the revisions table's
 * (src/protocol/revisions.ts); these functions only apply it, revision and value in,
 * value out.
 */
import { CONTENT_BLOCKS, revision, type WireType } from '../protocol/revisions.js';
import type { ProtocolVersion } from '../protocol/versions.js';

type Wire = Record<string, unknown>;

/** `value` without the fields of `type` that revision `v` lacks; the same object when it lacks none. */
export function pick(type: WireType, v: ProtocolVersion, value: Wire): Wire {
  const lacks = revision(v).lacks[type];
  if (lacks.size === 0) return value;
  let out: Wire | undefined;
  for (const key in value) {
    if (lacks.has(key)) {
      out ??= { ...value };
      delete out[key];
    }
  }
  return out ?? value;
}

export function shapeTool(v: ProtocolVersion, tool: Wire): Wire {
  return pick('Tool', v, tool);
}

export function shapePrompt(v: ProtocolVersion, prompt: Wire): Wire {
  const p = pick('Prompt', v, prompt);
  if (revision(v).lacks.PromptArgument.size === 0 || !Array.isArray(p.arguments)) return p;
  return { ...p, arguments: (p.arguments as Wire[]).map((a) => pick('PromptArgument', v, a)) };
}

export function shapeResource(v: ProtocolVersion, r: Wire): Wire {
  return pick('Resource', v, r);
}

export function shapeResourceTemplate(v: ProtocolVersion, t: Wire): Wire {
  return pick('ResourceTemplate', v, t);
}

/** One entry of `contents` (read results, embedded resources): text or blob. */
export function shapeResourceContents(v: ProtocolVersion, c: Wire): Wire {
  return pick('blob' in c ? 'BlobResourceContents' : 'TextResourceContents', v, c);
}

const asWritten = new Map<ProtocolVersion, boolean>();

/** Does revision `v` take every content block as written (every block type, every field)? */
function contentAsWritten(v: ProtocolVersion): boolean {
  let yes = asWritten.get(v);
  if (yes === undefined) {
    const r = revision(v);
    yes = Object.values(CONTENT_BLOCKS).every((t) => r.fields[t] !== undefined && r.lacks[t].size === 0) &&
      r.lacks.TextResourceContents.size === 0 && r.lacks.BlobResourceContents.size === 0;
    asWritten.set(v, yes);
  }
  return yes;
}

/**
 * Content blocks a revision lacks are degraded to text rather than sent malformed
 * (audio before 2025-03-26, resource links before 2025-06-18).
 */
export function shapeContent(v: ProtocolVersion, block: Wire): Wire {
  const type = CONTENT_BLOCKS[String(block.type)];
  if (type === undefined) return block;
  if (!revision(v).fields[type]) {
    if (block.type === 'resource_link') return { type: 'text', text: `${String(block.name ?? 'resource')}: ${String(block.uri)}` };
    return { type: 'text', text: `[${String(block.type)} content (${String(block.mimeType)}) is not supported by protocol ${v}]` };
  }
  const b = pick(type, v, block);
  if (b.type === 'resource' && b.resource && typeof b.resource === 'object') {
    const resource = shapeResourceContents(v, b.resource as Wire);
    if (resource !== b.resource) return { ...b, resource };
  }
  return b;
}

export function shapeContents(v: ProtocolVersion, blocks: readonly unknown[]): unknown[] {
  return contentAsWritten(v) ? (blocks as unknown[]) : blocks.map((b) => shapeContent(v, b as Wire));
}

/**
 * `structuredContent` is an object up to 2025-11-25 (2025-06-18/2025-11-25 schema) and any
 * JSON value from 2026-07-28; where it must be an object, other JSON stays as text only.
 */
export function shapeCallToolResult(v: ProtocolVersion, r: Wire): Wire {
  let out = pick('CallToolResult', v, r);
  const sc = out.structuredContent;
  if (sc !== undefined && !revision(v).features.structuredContentAnyJson && (typeof sc !== 'object' || sc === null || Array.isArray(sc))) {
    out = { ...out };
    delete out.structuredContent;
  }
  if (Array.isArray(out.content)) {
    const content = shapeContents(v, out.content as unknown[]);
    if (content !== out.content) out = { ...out, content };
  }
  return out;
}

/** A `prompts/get` result: each message's content block, as the revision has it. */
export function shapeGetPromptResult<R extends { messages: ReadonlyArray<{ content: unknown }> }>(v: ProtocolVersion, result: R): R {
  if (contentAsWritten(v)) return result;
  return { ...result, messages: result.messages.map((m) => ({ ...m, content: shapeContent(v, m.content as Wire) })) };
}

/** A `resources/read` result: each entry of `contents`, as the revision has it. */
export function shapeReadResourceResult<R extends { contents: readonly unknown[] }>(v: ProtocolVersion, result: R): R {
  const r = revision(v);
  if (r.lacks.TextResourceContents.size === 0 && r.lacks.BlobResourceContents.size === 0) return result;
  return { ...result, contents: result.contents.map((c) => shapeResourceContents(v, c as Wire)) };
}
