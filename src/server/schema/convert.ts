/**
 * Turns what a user declares (a Standard Schema that can produce JSON Schema, or a raw
 * JSON Schema object) into the wire JSON Schema plus a validator, once, at registration.
 */
import type { StandardSchemaV1, StandardJSONSchemaV1 } from '@standard-schema/spec';
import { JanusError } from '../../protocol/errors.js';
import { compileJsonSchema, type Validate } from './json-schema.js';
import { isZod4, olderZodToJsonSchema } from './older-zod.js';
import { isRawShape, shapeToJsonSchema, shapeValidator } from './raw-shape.js';
import type { JsonSchemaObject, SchemaInput, StandardSchema } from './types.js';

export type { JsonSchemaObject, RawShape, SchemaInput, StandardSchema } from './types.js';

export type Validation = { ok: true; value: unknown } | { ok: false; message: string };

export type Validator = (value: unknown) => Validation | Promise<Validation>;

export interface CompiledSchema {
  /** The JSON Schema sent on the wire. */
  readonly json: JsonSchemaObject;
  /** Validates (and for Standard Schemas, transforms) a value; may be async for some libraries. */
  readonly validate: Validator;
}

/** Every kind of schema that works, named in the errors about the ones that do not. */
const WHAT_WORKS =
  "What works: Zod 4 (or Zod 3.25's 'zod/v4'), ArkType 2.1.28 or later, a Valibot schema wrapped with " +
  "toStandardJsonSchema() from '@valibot/to-json-schema', any Standard Schema that implements Standard JSON Schema, " +
  'an object of such schemas, one per property ({ name: z.string() }), or a raw JSON Schema 2020-12 object.';

/** ArkType's types are functions, so a Standard Schema may be an object or a function. */
export function isStandard(s: unknown): s is StandardSchema {
  return ((typeof s === 'object' && s !== null) || typeof s === 'function') && '~standard' in s;
}

export function compileSchema(schema: SchemaInput, what: string, io: 'input' | 'output' = 'input'): CompiledSchema {
  if (isStandard(schema)) {
    // Arguments are described by what the caller sends (input); results by what we emit (output).
    const json = standardToJsonSchema(schema, what, io);
    requireObjectRoot(json, what);
    return { json, validate: standardValidator(schema) };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new JanusError('SCHEMA', `${what}: expected a Standard Schema or a JSON Schema object. ${WHAT_WORKS}`);
  }
  if (!isPlainObject(schema)) {
    // A class instance is a library's schema, not JSON Schema data (e.g. Zod before 3.24, which lacks `~standard`).
    throw new JanusError(
      'SCHEMA',
      `${what}: this schema object is neither JSON Schema data nor a Standard Schema (Zod before 3.24?). ${WHAT_WORKS}`,
    );
  }
  if (isRawShape(schema, isStandard)) {
    const json = shapeToJsonSchema(schema, what, (property, where) => standardToJsonSchema(property, where, io));
    const validate = shapeValidator(schema);
    return {
      json,
      validate: (value) => {
        const r = validate(value);
        return r instanceof Promise ? r.then(fromStandard) : fromStandard(r);
      },
    };
  }
  const notSchemas = Object.entries(schema).filter(([, v]) => !isStandard(v));
  if (notSchemas.length < Object.keys(schema).length) {
    // Some properties are schemas and some are not: an object of schemas with a slip, not JSON Schema.
    throw new JanusError(
      'SCHEMA',
      `${what}: an object of schemas, one per property, needs a schema for every property; ${notSchemas.map(([k]) => JSON.stringify(k)).join(', ')} ${notSchemas.length > 1 ? 'are' : 'is'} not one. ` +
        'Write each property as a schema (e.g. { name: z.string(), limit: z.number().optional() }), or the whole object as one (z.object({ … })).',
    );
  }
  requireObjectRoot(schema, what);
  let check: Validate;
  try {
    check = compileJsonSchema(schema, what);
  } catch (e) {
    throw new JanusError('SCHEMA', (e as Error).message, { cause: e });
  }
  return { json: schema, validate: check };
}

/** The JSON Schema of a Standard Schema, or a `JanusError` that says how to get one. */
export function standardToJsonSchema(schema: StandardSchema, what: string, io: 'input' | 'output'): JsonSchemaObject {
  const std = schema['~standard'];
  const converter = (std as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  const olderZod = !converter && std.vendor === 'zod' && isZod4(schema);
  if (!converter && !olderZod) throw new JanusError('SCHEMA', `${what}: ${cannotConvert(std.vendor)} ${WHAT_WORKS}`);
  let json: unknown;
  try {
    json = converter ? converter[io]({ target: 'draft-2020-12' }) : olderZodToJsonSchema(schema, io);
  } catch (e) {
    throw new JanusError('SCHEMA', `${what}: cannot convert the ${std.vendor} schema to JSON Schema: ${(e as Error).message}`, {
      cause: e,
    });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new JanusError('SCHEMA', `${what}: the ${std.vendor} schema's JSON Schema converter returned ${JSON.stringify(json)}`);
  }
  return json as JsonSchemaObject;
}

/** Why a library's schema has no JSON Schema, with the fix where the library is known by its vendor. */
function cannotConvert(vendor: string): string {
  switch (vendor) {
    case 'zod':
      // Zod 4 schemas (which carry `_zod`) never get here; this is classic Zod 3.
      return "this is a Zod 3 schema, which cannot produce JSON Schema: import { z } from 'zod/v4' (Zod 3.25 or later) or upgrade to Zod 4.";
    case 'valibot':
      return "a Valibot schema cannot produce JSON Schema by itself: wrap it with toStandardJsonSchema(schema) from '@valibot/to-json-schema' (1.5 or later).";
    case 'arktype':
      return 'this ArkType version cannot produce JSON Schema: upgrade to arktype 2.1.28 or later.';
    default:
      return `the ${vendor} schema cannot produce JSON Schema (it does not implement Standard JSON Schema, ~standard.jsonSchema).`;
  }
}

function isPlainObject(o: object): boolean {
  const proto: unknown = Object.getPrototypeOf(o);
  return proto === Object.prototype || proto === null;
}

function requireObjectRoot(json: JsonSchemaObject, what: string): void {
  if (json.type !== 'object') {
    throw new JanusError(
      'SCHEMA',
      `${what}: the JSON Schema root must have "type": "object" (got ${JSON.stringify(json.type)}); ` +
        "declare an object schema, such as z.object({ … }), type({ … }) or { type: 'object', properties: { … } }",
    );
  }
}

export function standardValidator(schema: StandardSchema): Validator {
  const std = schema['~standard'];
  return (value) => {
    const r = std.validate(value);
    return r instanceof Promise ? r.then(fromStandard) : fromStandard(r);
  };
}

function fromStandard(r: StandardSchemaV1.Result<unknown>): Validation {
  if (!r.issues) return { ok: true, value: r.value };
  const message = r.issues
    .slice(0, 5)
    .map((i) => {
      const path = i.path?.map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.');
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join('; ');
  return { ok: false, message };
}

/** An empty-object schema for tools declared without arguments. */
export const NO_ARGUMENTS: CompiledSchema = {
  json: { type: 'object', properties: {} },
  validate: (value) => ({ ok: true, value }),
};
