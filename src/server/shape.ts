/**
 * Per-revision wire shapes: a definition is written once in its newest form and each
 * legacy revision keeps only the fields its schema defines (schema/<rev>/schema.json), so
 * no message carries a field its revision does not know.
 */
import type { LegacyVersion, ProtocolVersion } from '../protocol/versions.js';

type FieldTable = Record<string, ProtocolVersion>;

/** The revision that introduced each optional field; unlisted fields exist in every revision. */
const SINCE: Record<string, FieldTable> = {
  Tool: { annotations: '2025-03-26', title: '2025-06-18', outputSchema: '2025-06-18', _meta: '2025-06-18', icons: '2025-11-25' },
  Prompt: { title: '2025-06-18', _meta: '2025-06-18', icons: '2025-11-25' },
  PromptArgument: { title: '2025-06-18' },
  Resource: { title: '2025-06-18', _meta: '2025-06-18', icons: '2025-11-25' },
  Implementation: { title: '2025-06-18', description: '2025-11-25', icons: '2025-11-25', websiteUrl: '2025-11-25' },
  Content: { _meta: '2025-06-18' },
  ResourceContents: { _meta: '2025-06-18' },
  CallToolResult: { structuredContent: '2025-06-18' },
  ServerCapabilities: { completions: '2025-03-26', extensions: '2026-07-28' },
};

export function pick(type: keyof typeof SINCE, v: ProtocolVersion, value: Record<string, unknown>): Record<string, unknown> {
  const table = SINCE[type]!;
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    const since = table[key];
    if (since !== undefined && v < since) {
      out ??= { ...value };
      delete out[key];
    }
  }
  return out ?? value;
}

export function shapeTool(v: ProtocolVersion, tool: Record<string, unknown>): Record<string, unknown> {
  return pick('Tool', v, tool);
}

export function shapePrompt(v: ProtocolVersion, prompt: Record<string, unknown>): Record<string, unknown> {
  const p = pick('Prompt', v, prompt);
  if (v >= '2025-06-18' || !Array.isArray(p.arguments)) return p;
  return { ...p, arguments: (p.arguments as Record<string, unknown>[]).map((a) => pick('PromptArgument', v, a)) };
}

export function shapeResource(v: ProtocolVersion, r: Record<string, unknown>): Record<string, unknown> {
  return pick('Resource', v, r);
}

/**
 * Content blocks a revision lacks are degraded to text rather than sent malformed:
 * audio before 2025-03-26, resource links before 2025-06-18.
 */
export function shapeContent(v: ProtocolVersion, block: Record<string, unknown>): Record<string, unknown> {
  if (v >= '2025-06-18') return block;
  if (block.type === 'resource_link') {
    return { type: 'text', text: `${String(block.name ?? 'resource')}: ${String(block.uri)}` };
  }
  if (block.type === 'audio' && v < '2025-03-26') {
    return { type: 'text', text: `[audio content (${String(block.mimeType)}) is not supported by protocol ${v}]` };
  }
  const b = pick('Content', v, block);
  if (b.type === 'resource' && b.resource && typeof b.resource === 'object') {
    return { ...b, resource: pick('ResourceContents', v, b.resource as Record<string, unknown>) };
  }
  return b;
}

export function shapeContents(v: ProtocolVersion, blocks: readonly unknown[]): unknown[] {
  return v >= '2025-06-18' ? (blocks as unknown[]) : blocks.map((b) => shapeContent(v, b as Record<string, unknown>));
}

/** Legacy `structuredContent` must be an object (2025-06-18/2025-11-25 schema); other JSON stays as text. */
export function shapeCallToolResult(v: LegacyVersion, r: Record<string, unknown>): Record<string, unknown> {
  let out = pick('CallToolResult', v, r);
  const sc = out.structuredContent;
  if (sc !== undefined && (typeof sc !== 'object' || sc === null || Array.isArray(sc))) {
    out = { ...out };
    delete out.structuredContent;
  }
  if (Array.isArray(out.content)) out = { ...out, content: shapeContents(v, out.content as unknown[]) };
  return out;
}
