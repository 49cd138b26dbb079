/**
 * Turns what a user declares (a Standard Schema that can produce JSON Schema, or a raw
 * JSON Schema object) into the wire JSON Schema plus a validator, once, at registration.
 */
import type { StandardSchemaV1, StandardJSONSchemaV1 } from '@standard-schema/spec';
import { JanusError } from '../../protocol/errors.js';
import { compileJsonSchema } from './json-schema.js';

export type StandardSchema<I = unknown, O = I> = StandardSchemaV1<I, O> & Partial<StandardJSONSchemaV1<I, O>>;
export type JsonSchemaObject = Record<string, unknown>;
export type SchemaInput = StandardSchema | JsonSchemaObject;

export type Validation =
  | { ok: true; value: unknown }
  | { ok: false; message: string };

export interface CompiledSchema {
  /** The JSON Schema sent on the wire. */
  readonly json: JsonSchemaObject;
  /** Validates (and for Standard Schemas, transforms) a value; may be async for some libraries. */
  readonly validate: (value: unknown) => Validation | Promise<Validation>;
}

function isStandard(s: unknown): s is StandardSchema {
  return typeof s === 'object' && s !== null && '~standard' in s;
}

export function compileSchema(
  schema: SchemaInput,
  what: string,
  io: 'input' | 'output' = 'input',
): CompiledSchema {
  if (isStandard(schema)) {
    const std = schema['~standard'];
    const converter = (std as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
    if (!converter) {
      throw new JanusError(
        'SCHEMA',
        `${what}: the ${std.vendor} schema cannot produce JSON Schema (it does not implement Standard JSON Schema); pass a raw JSON Schema instead`,
      );
    }
    let json: JsonSchemaObject;
    try {
      // Arguments are described by what the caller sends (input); results by what we emit (output).
      json = converter[io]({ target: 'draft-2020-12' }) as JsonSchemaObject;
    } catch (e) {
      throw new JanusError('SCHEMA', `${what}: cannot convert to JSON Schema: ${(e as Error).message}`, { cause: e });
    }
    requireObjectRoot(json, what);
    return {
      json,
      validate: (value) => {
        const r = std.validate(value);
        return r instanceof Promise ? r.then(fromStandard) : fromStandard(r);
      },
    };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new JanusError('SCHEMA', `${what}: expected a Standard Schema or a JSON Schema object`);
  }
  requireObjectRoot(schema, what);
  let check;
  try {
    check = compileJsonSchema(schema, what);
  } catch (e) {
    throw new JanusError('SCHEMA', (e as Error).message, { cause: e });
  }
  return { json: schema, validate: check };
}

function requireObjectRoot(json: JsonSchemaObject, what: string): void {
  if (json.type !== 'object') {
    throw new JanusError('SCHEMA', `${what}: the JSON Schema root must have "type": "object" (got ${JSON.stringify(json.type)})`);
  }
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
