/**
 * `--arg key=value` for `call`: the value typed as the tool's input schema says `key` is. A
 * string property gets the text as it is (`--arg id=7` sends "7"), a number or integer the
 * number (or a usage error naming the argument), a boolean `true`/`false`, an array or object
 * its JSON. Where the schema says nothing of the key, the value is read as JSON when it parses,
 * else as a string; for a union of types, that reading when it is one of them, else the text
 * when a string is one of them.
 */
import { UsageError } from './args.js';

/** `--arg key=value` pairs, split at the first `=`; the values still text. */
export function argPairs(pairs: string[]): Array<[string, string]> {
  return pairs.map((pair) => {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--arg needs key=value, got "${pair}"`, 'call');
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  });
}

/** The arguments of `pairs`, typed by `inputSchema` (a tool's, or undefined when it is not known). */
export function typedArguments(pairs: Array<[string, string]>, inputSchema: unknown): Record<string, unknown> {
  const properties = isObject(inputSchema) && isObject(inputSchema.properties) ? inputSchema.properties : {};
  const args: Record<string, unknown> = {};
  for (const [key, raw] of pairs) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    args[key] = typedValue(key, raw, typesOf(property));
  }
  return args;
}

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';
const JSON_TYPES = new Set<string>(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);

/** The JSON types a property schema allows, or undefined when it does not say (no type, a $ref, …). */
function typesOf(schema: unknown): JsonType[] | undefined {
  if (!isObject(schema)) return undefined;
  const { type } = schema;
  if (typeof type === 'string') return JSON_TYPES.has(type) ? [type as JsonType] : undefined;
  if (Array.isArray(type)) return type.every((t) => JSON_TYPES.has(t)) ? (type as JsonType[]) : undefined;
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  if (values !== undefined) return [...new Set(values.map(kindOf))];
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches) && branches.length > 0) {
    const each = branches.map(typesOf);
    return each.every((t) => t !== undefined) ? [...new Set(each.flat())] : undefined;
  }
  return undefined;
}

function typedValue(key: string, raw: string, types: JsonType[] | undefined): unknown {
  if (types === undefined || types.length === 0) return inferred(raw);
  if (types.length === 1) return strictly(key, raw, types[0]!);
  const value = inferred(raw);
  const kind = kindOf(value);
  if (types.includes(kind) || (kind === 'integer' && types.includes('number'))) return value;
  return types.includes('string') ? raw : value;
}

/** Today's reading: JSON when it parses (`3`, `true`, `["a"]`), else the text. */
function inferred(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function strictly(key: string, raw: string, type: JsonType): unknown {
  const wrong = (expected: string): UsageError =>
    new UsageError(`--arg ${key}: the tool's input schema says ${key} is ${expected}, and "${raw}" is not`, 'call');
  switch (type) {
    case 'string':
      return raw;
    case 'number':
    case 'integer': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw wrong(type === 'number' ? 'a number' : 'an integer');
      if (type === 'integer' && !Number.isInteger(n)) throw wrong('an integer');
      return n;
    }
    case 'boolean':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw wrong('a boolean (true or false)');
    case 'null':
      if (raw === 'null') return null;
      throw wrong('null');
    case 'array':
    case 'object': {
      const value = inferred(raw);
      if (kindOf(value) !== type) throw wrong(type === 'array' ? 'an array (JSON: ["a", 1])' : 'an object (JSON: {"a": 1})');
      return value;
    }
  }
}

function kindOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'object') return 'object';
  return 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
