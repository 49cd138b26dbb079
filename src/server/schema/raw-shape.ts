/**
 * The official SDK v1's "raw shape" (`{ name: z.string(), limit: z.number().optional() }`): an
 * object of Standard Schemas, taken as the object of those properties. Its JSON Schema is each
 * property's, converted as a whole schema would be (convert.ts), under `properties`; a property
 * is required unless its schema accepts `undefined`. Each property is validated by its own
 * schema (so defaults and transforms apply); properties the shape does not name are dropped,
 * as `z.object` drops them.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { JanusError } from '../../protocol/errors.js';
import type { JsonSchemaObject, RawShape, StandardSchema } from './types.js';

/** Whether `value` is a raw shape: a plain object with at least one property, every one a Standard Schema. */
export function isRawShape(value: object, isStandard: (s: unknown) => s is StandardSchema): value is RawShape {
  const values = Object.values(value);
  return values.length > 0 && values.every((v) => isStandard(v));
}

/** The JSON Schema of a raw shape, from each property's (`convert`), with their `$defs` gathered at the root. */
export function shapeToJsonSchema(
  shape: RawShape,
  what: string,
  convert: (schema: StandardSchema, what: string) => JsonSchemaObject,
): JsonSchemaObject {
  const properties: Record<string, JsonSchemaObject> = {};
  const required: string[] = [];
  const defs: Record<string, unknown> = {};
  let dialect: unknown;
  for (const [key, schema] of Object.entries(shape)) {
    const { $schema, $defs, ...json } = convert(schema, `${what}, property "${key}"`);
    dialect ??= $schema;
    if ($defs !== undefined) gatherDefs(defs, $defs, key, what);
    if (refersToItsRoot(json)) throw notComposable(what, key);
    properties[key] = json;
    if (!acceptsUndefined(schema)) required.push(key);
  }
  return {
    ...(dialect !== undefined ? { $schema: dialect } : {}),
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    ...(Object.keys(defs).length ? { $defs: defs } : {}),
  };
}

/** Validates each property by its schema; the result holds the shape's properties only. */
export function shapeValidator(
  shape: RawShape,
): (value: unknown) => StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>> {
  const entries = Object.entries(shape);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return {
        issues: [{ message: `expected an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}` }],
      };
    }
    const input = value as Record<string, unknown>;
    const results = entries.map(([key, schema]) => schema['~standard'].validate(Object.hasOwn(input, key) ? input[key] : undefined));
    if (results.some((r) => r instanceof Promise)) return Promise.all(results).then((all) => combine(entries, all));
    return combine(entries, results as StandardSchemaV1.Result<unknown>[]);
  };
}

function combine(entries: [string, StandardSchema][], results: StandardSchemaV1.Result<unknown>[]): StandardSchemaV1.Result<unknown> {
  const out: Record<string, unknown> = {};
  const issues: StandardSchemaV1.Issue[] = [];
  results.forEach((r, i) => {
    const key = entries[i]![0];
    if (r.issues) for (const issue of r.issues) issues.push({ message: issue.message, path: [key, ...(issue.path ?? [])] });
    else if (r.value !== undefined) out[key] = r.value;
  });
  return issues.length ? { issues } : { value: out };
}

/** A property is optional when its schema takes `undefined` (`.optional()`, `.default(…)`); an async schema is asked at the call. */
function acceptsUndefined(schema: StandardSchema): boolean {
  const r = schema['~standard'].validate(undefined);
  return !(r instanceof Promise) && !r.issues;
}

function gatherDefs(into: Record<string, unknown>, defs: unknown, key: string, what: string): void {
  if (typeof defs !== 'object' || defs === null) return;
  for (const [name, def] of Object.entries(defs)) {
    if (Object.hasOwn(into, name) && JSON.stringify(into[name]) !== JSON.stringify(def)) throw notComposable(what, key);
    into[name] = def;
  }
}

/** A `$ref` to the property schema's own root (a recursive schema) would point at the object's root once nested. */
function refersToItsRoot(json: unknown): boolean {
  if (typeof json !== 'object' || json === null) return false;
  if (Array.isArray(json)) return json.some(refersToItsRoot);
  for (const [k, v] of Object.entries(json)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#') && !v.startsWith('#/$defs/')) return true;
    if (refersToItsRoot(v)) return true;
  }
  return false;
}

function notComposable(what: string, key: string): JanusError {
  return new JanusError(
    'SCHEMA',
    `${what}: the JSON Schema of property "${key}" cannot be nested in an object of properties (it refers to its own root, or its definitions clash with another property's). ` +
      'Declare the object as one schema instead, e.g. z.object({ … }) rather than { … }.',
  );
}
