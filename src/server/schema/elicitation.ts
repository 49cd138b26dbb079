/**
 * Standard Schemas as elicitation forms (client/elicitation.mdx §Requested Schema): a flat
 * object whose properties are strings, numbers, integers, booleans, single-select enums, or
 * (2025-11-25 and later) multi-select enums. The JSON Schema a library produces is checked
 * against that and trimmed to the keywords the spec's `PrimitiveSchemaDefinition` defines;
 * the server still validates the answer with the full schema. Converted once per schema
 * object: `ctx.elicit` runs on every call and on every replay of a modern request.
 */
import { JanusError } from '../../protocol/errors.js';
import { standardToJsonSchema, standardValidator, type Validator } from './convert.js';
import type { JsonSchemaObject, StandardSchema } from './types.js';

export interface ElicitationForm {
  /** The flat JSON Schema sent as `requestedSchema`. */
  readonly requestedSchema: JsonSchemaObject;
  /** Validates (and types) accepted content. */
  readonly validate: Validator;
}

const WHAT = 'ctx.elicit requestedSchema';
const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);
const COMMON = ['title', 'description', 'default'];
const KEYWORDS: Record<string, readonly string[]> = {
  string: [...COMMON, 'minLength', 'maxLength', 'format', 'enum', 'enumNames', 'oneOf'],
  number: [...COMMON, 'minimum', 'maximum'],
  integer: [...COMMON, 'minimum', 'maximum'],
  boolean: COMMON,
  array: [...COMMON, 'minItems', 'maxItems', 'items'],
};

const forms = new WeakMap<StandardSchema, ElicitationForm>();

/** The form for a Standard Schema, or a `JanusError` (code `'SCHEMA'`) saying what is not allowed. */
export function elicitationForm(schema: StandardSchema): ElicitationForm {
  let form = forms.get(schema);
  if (!form) {
    // The client fills in the form, so its schema is the input side of the user's schema.
    form = { requestedSchema: flatten(standardToJsonSchema(schema, WHAT, 'input')), validate: standardValidator(schema) };
    forms.set(schema, form);
  }
  return form;
}

function flatten(json: JsonSchemaObject): JsonSchemaObject {
  if (json.type !== 'object' || !isObject(json.properties)) {
    throw new JanusError('SCHEMA', `${WHAT}: must be an object schema with properties (got ${JSON.stringify(json.type)})`);
  }
  const properties: Record<string, JsonSchemaObject> = {};
  for (const [name, prop] of Object.entries(json.properties)) {
    const primitive = isObject(prop) ? primitiveOf(prop) : undefined;
    if (!primitive) {
      throw new JanusError(
        'SCHEMA',
        `${WHAT}: field "${name}" must be a string, number, integer, boolean or enum (client/elicitation.mdx §Requested Schema allows no nesting, null or other arrays); its JSON Schema is ${JSON.stringify(prop)}`,
      );
    }
    properties[name] = primitive;
  }
  const out: JsonSchemaObject = { type: 'object', properties };
  if (Array.isArray(json.required) && json.required.length) out.required = json.required;
  return out;
}

/** One property as the spec allows it, or undefined when it is not a primitive. */
function primitiveOf(prop: JsonSchemaObject): JsonSchemaObject | undefined {
  const p = withEnum(prop);
  const type = p.type ?? (isStringList(p.enum) ? 'string' : undefined);
  if (typeof type !== 'string' || !(type in KEYWORDS)) return undefined;
  const out: JsonSchemaObject = { type };
  for (const key of KEYWORDS[type]!) {
    const value = p[key];
    if (value === undefined || (key === 'format' && !FORMATS.has(String(value)))) continue;
    if (key === 'oneOf' && !titledOptions(value)) return undefined;
    out[key] = key === 'oneOf' ? titledOptions(value) : key === 'items' ? enumItems(value) : value;
  }
  return type === 'array' && !out.items ? undefined : out;
}

/** A `const` string (a literal) is a one-value enum. */
function withEnum(p: JsonSchemaObject): JsonSchemaObject {
  return typeof p.const === 'string' && p.enum === undefined ? { ...p, enum: [p.const] } : p;
}

/** Multi-select `items`: a string enum, untitled (`{ type, enum }`) or titled (`{ anyOf: [{ const, title }] }`). */
function enumItems(items: unknown): JsonSchemaObject | undefined {
  if (!isObject(items)) return undefined;
  const i = withEnum(items);
  if (isStringList(i.enum) && (i.type === undefined || i.type === 'string')) return { type: 'string', enum: i.enum };
  const options = titledOptions(i.anyOf);
  return options ? { anyOf: options } : undefined;
}

/** `[{ const, title }]` options (titles are required on the wire: the value stands in for a missing one). */
function titledOptions(v: unknown): JsonSchemaObject[] | undefined {
  if (!Array.isArray(v) || !v.length || !v.every((o) => isObject(o) && typeof o.const === 'string')) return undefined;
  return (v as JsonSchemaObject[]).map((o) => ({ const: o.const, title: typeof o.title === 'string' ? o.title : o.const }));
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');
}

function isObject(v: unknown): v is JsonSchemaObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
