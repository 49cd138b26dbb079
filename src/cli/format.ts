/** Human-readable output: tables of lists, tool results as text, the server's description. */
import type { Client } from '../client/index.js';
import type { CallToolResult, ContentBlock } from '../protocol/index.js';

/** Rows as aligned columns; the last column is not padded. Cells are single lines. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows].map((row) => row.map((cell) => oneLine(cell)));
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  return all
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The first line of a text, shortened to `max` characters. */
export function oneLine(text: string | undefined, max = 100): string {
  const line = (text ?? '').split('\n')[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A tool's arguments from its input schema: `name`, `name?` for optional ones. */
export function argumentSummary(schema: unknown): string {
  const s = schema as { properties?: Record<string, unknown>; required?: unknown };
  const required = new Set(Array.isArray(s?.required) ? (s.required as string[]) : []);
  return Object.keys(s?.properties ?? {})
    .map((name) => (required.has(name) ? name : `${name}?`))
    .join(', ');
}

/**
 * A tool result for a terminal: text content as it is, other content as a one-line note, and
 * the structured content as JSON when no text carries it.
 */
export function resultText(result: CallToolResult): string {
  const parts = result.content.map((item) => contentText(item));
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  return parts.join('\n');
}

/** One content block as a line of text. Typed by the schema, but a server may break it: hence the `String()`s and fallbacks. */
function contentText(item: ContentBlock): string {
  switch (item.type) {
    case 'text':
      return String(item.text);
    case 'image':
    case 'audio':
      return `[${item.type} ${item.mimeType}, ${base64Bytes(String(item.data ?? ''))} bytes]`;
    case 'resource': {
      const r: { readonly text?: unknown; readonly uri?: unknown; readonly mimeType?: unknown } = item.resource ?? {};
      return typeof r.text === 'string' ? r.text : `[resource ${r.uri}${r.mimeType ? ` ${r.mimeType}` : ''}, binary]`;
    }
    case 'resource_link':
      return `[link ${item.uri}${item.name ? ` (${item.name})` : ''}]`;
    default:
      return JSON.stringify(item);
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

/** What `discover` reports, as data (`--json`). */
export async function description(client: Client): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {
    era: client.era,
    protocolVersion: client.protocolVersion,
    transport: client.transportKind,
    serverInfo: client.serverInfo ?? null,
    capabilities: client.serverCapabilities,
    instructions: client.instructions ?? null,
  };
  if (client.era === 'modern') out.supportedVersions = (await client.discover()).supportedVersions ?? null;
  return out;
}

/** The same for a reader. */
export function describeText(d: Record<string, unknown>): string {
  const info = (d.serverInfo ?? {}) as Record<string, unknown>;
  const lines = [
    `server:       ${info.name ?? '(unnamed)'} ${info.version ?? ''}${info.title ? ` (${info.title})` : ''}`.trimEnd(),
    `era:          ${d.era}`,
    `protocol:     ${d.protocolVersion}${Array.isArray(d.supportedVersions) ? ` (supports ${d.supportedVersions.join(', ')})` : ''}`,
    `transport:    ${d.transport}`,
  ];
  const caps = d.capabilities as Record<string, unknown>;
  const names = Object.entries(caps).map(([name, value]) => capability(name, value));
  lines.push(`capabilities: ${names.length ? names.join(', ') : '(none)'}`);
  if (typeof d.instructions === 'string') lines.push('instructions:', ...d.instructions.split('\n').map((l) => `  ${l}`));
  return lines.join('\n');
}

/** `tools (listChanged)`, `extensions (io.modelcontextprotocol/tasks)`: a capability and its flags. */
function capability(name: string, value: unknown): string {
  if (typeof value !== 'object' || value === null) return name;
  const flags = Object.entries(value)
    .filter(([, v]) => v === true || name === 'extensions' || (typeof v === 'object' && v !== null))
    .map(([k]) => k);
  return flags.length ? `${name} (${flags.join(', ')})` : name;
}
