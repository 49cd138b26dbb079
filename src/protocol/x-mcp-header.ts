/**
 * `x-mcp-header` annotations (docs/2026-07-28/server/tools.mdx §x-mcp-header and
 * basic/transports/streamable-http.mdx §Custom Headers from Tool Parameters). Shared by the
 * server (registration checks, header validation) and the client (which must drop tools
 * whose annotations are invalid and mirror the others into `Mcp-Param-*` headers).
 */
import { base64ToBytes, bytesToBase64 } from './base64.js';

/**
 * A tool argument the client mirrors into an `Mcp-Param-{name}` HTTP header, as its input schema's `x-mcp-header` annotation declares it.
 */
export interface HeaderParam {
  /** The header suffix as declared: `Region` means `Mcp-Param-Region`. */
  readonly name: string;
  /** The first property of `path` (the top-level argument). */
  readonly property: string;
  /** The chain of `properties` keys leading to the annotated property. */
  readonly path: readonly string[];
  /** The JSON Schema type of the annotated property: only these three may be mirrored. */
  readonly type: 'string' | 'integer' | 'boolean';
}

/** What {@link readHeaderParams} found: the header parameters, or why the annotations are invalid. */
export type HeaderParamsResult = { ok: true; params: readonly HeaderParam[] } | { ok: false; reason: string };

/** RFC 9110 §5.6.2 tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Keywords whose values are subschemas (or maps/arrays of them): not statically reachable. */
const SUBSCHEMA_KEYWORDS = new Set([
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedItems',
  'anyOf',
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
  'additionalProperties',
  'patternProperties',
  'unevaluatedProperties',
  'dependentSchemas',
  'dependencies',
  'propertyNames',
]);

const PERMITTED_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * Reads the `x-mcp-header` annotations of a tool's input schema: the header parameters they declare, or the first problem (an annotation on an unreachable or non-scalar property, a name that is not an HTTP token, a name declared twice).
 */
export function readHeaderParams(inputSchema: unknown): HeaderParamsResult {
  const params: HeaderParam[] = [];
  const problems: string[] = [];
  walk(inputSchema, true, [], params, problems);
  if (problems.length) return { ok: false, reason: problems[0]! };
  const seen = new Set<string>();
  for (const p of params) {
    const lower = p.name.toLowerCase();
    if (seen.has(lower)) return { ok: false, reason: `x-mcp-header "${p.name}" is declared twice (names are case-insensitive)` };
    seen.add(lower);
  }
  return { ok: true, params };
}

function walk(node: unknown, reachable: boolean, path: string[], out: HeaderParam[], problems: string[]): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, false, path, out, problems);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if ('x-mcp-header' in schema) annotation(schema, reachable, path, out, problems);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [prop, sub] of Object.entries(value)) walk(sub, reachable, [...path, prop], out, problems);
    } else if (key === '$ref' || SUBSCHEMA_KEYWORDS.has(key)) {
      if (key === 'patternProperties' || key === '$defs' || key === 'definitions' || key === 'dependentSchemas' || key === 'dependencies') {
        if (typeof value === 'object' && value !== null) for (const sub of Object.values(value)) walk(sub, false, path, out, problems);
      } else {
        walk(value, false, path, out, problems);
      }
    }
  }
}

function annotation(schema: Record<string, unknown>, reachable: boolean, path: string[], out: HeaderParam[], problems: string[]): void {
  const name = schema['x-mcp-header'];
  const where = path.length ? `property "${path.join('.')}"` : 'the schema root';
  if (!reachable || path.length === 0) {
    problems.push(`x-mcp-header on ${where} is not statically reachable through "properties"`);
    return;
  }
  if (typeof name !== 'string' || name.length === 0) {
    problems.push(`x-mcp-header on ${where} must be a non-empty string`);
    return;
  }
  if (!TOKEN.test(name)) {
    problems.push(`x-mcp-header "${name}" on ${where} is not an HTTP field-name token`);
    return;
  }
  const type = primitiveType(schema.type);
  if (!type) {
    problems.push(`x-mcp-header "${name}" on ${where} needs type string, integer or boolean (got ${JSON.stringify(schema.type)})`);
    return;
  }
  out.push({ name, property: path[0]!, path: [...path], type });
}

function primitiveType(t: unknown): HeaderParam['type'] | undefined {
  if (typeof t === 'string') return PERMITTED_TYPES.has(t) ? (t as HeaderParam['type']) : undefined;
  if (Array.isArray(t)) {
    const rest = t.filter((x) => x !== 'null');
    return rest.length === 1 ? primitiveType(rest[0]) : undefined;
  }
  return undefined;
}

/** The argument value at a param's path, or undefined. */
export function headerParamValue(args: unknown, param: HeaderParam): unknown {
  let v: unknown = args;
  for (const key of param.path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const SENTINEL = /^=\?base64\?(.*)\?=$/;
/**
 * Header values that need no encoding: visible ASCII and inner spaces. A tab is a control
 * character, which the spec sends base64-encoded (streamable-http.mdx §Value Encoding).
 */
const SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Encodes a value for an `Mcp-Name` / `Mcp-Param-*` header (streamable-http.mdx §Value
 * Encoding): plain when safe, else `=?base64?<base64 of UTF-8>?=`. Null or absent → undefined.
 */
export function encodeHeaderValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  const text =
    typeof value === 'string' ? value : typeof value === 'boolean' || typeof value === 'number' ? String(value) : JSON.stringify(value);
  if (text !== '' && SAFE.test(text) && !SENTINEL.test(text)) return text;
  if (text === '') return text;
  return `=?base64?${bytesToBase64(new TextEncoder().encode(text))}?=`;
}

/** Decodes a header value; returns undefined when a base64 form is malformed. */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.trim();
  const m = SENTINEL.exec(value);
  if (!m) return value;
  const b64 = m[1]!;
  if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(b64));
  } catch {
    return undefined;
  }
}
