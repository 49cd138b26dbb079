/**
 * The interpreting JSON Schema engine, for runtimes that refuse code generation (Cloudflare
 * workerd, a strict Content-Security-Policy): @cfworker/json-schema walks the schema on every
 * call instead of compiling it. Its results are worded as Ajv words them (engine.ts), so a
 * tool's caller reads the same message on every runtime; and it behaves as the compiled engine
 * is set up to: 2020-12 whatever `$schema` says, `format` not asserted, no network `$ref`.
 */
import type { OutputUnit, Schema, Validator } from '@cfworker/json-schema';
import type { Check, JsonSchemaEngine } from './engine.js';
import { joinMessages } from './engine.js';

/** What `@cfworker/json-schema` exports that we use. */
export type CfworkerModule = { readonly Validator: typeof Validator };

export function interpretedEngine(module: CfworkerModule): JsonSchemaEngine {
  return {
    name: 'interpreted',
    compile(schema): Check {
      checkSchema(schema, '');
      // A copy: the validator marks the schema objects it walks, and `format` is annotation only.
      const own = withoutFormat(schema) as Schema;
      const validator = new module.Validator(own, '2020-12', false);
      return (value) => {
        const result = validator.validate(value);
        return result.valid ? undefined : joinMessages(messagesOf(result.errors, own));
      };
    },
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is one schema, a list of schemas, or a map of name to schema. */
const ONE = [
  'not',
  'if',
  'then',
  'else',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'additionalItems',
  'items',
];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/** Each subschema of a schema object, with the JSON pointer step that reaches it. */
function* subschemas(schema: Json): Generator<[step: string, sub: unknown]> {
  for (const k of ONE) if (isObject(schema[k]) || typeof schema[k] === 'boolean') yield [k, schema[k]];
  for (const k of LIST) if (Array.isArray(schema[k])) for (const [i, s] of (schema[k] as unknown[]).entries()) yield [`${k}/${i}`, s];
  for (const k of MAP) if (isObject(schema[k])) for (const [name, s] of Object.entries(schema[k])) yield [`${k}/${escapeStep(name)}`, s];
}

const escapeStep = (step: string) => step.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapeStep = (step: string) => step.replace(/~1/g, '/').replace(/~0/g, '~');

/** A deep copy of a schema with every `format` keyword left out (the compiled engine does not assert formats either). */
function withoutFormat(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const { format: _format, ...rest } = schema;
  const out: Json = { ...rest };
  for (const k of ONE) if (isObject(rest[k])) out[k] = withoutFormat(rest[k]);
  for (const k of LIST) if (Array.isArray(rest[k])) out[k] = (rest[k] as unknown[]).map(withoutFormat);
  for (const k of MAP) if (isObject(rest[k])) out[k] = Object.fromEntries(Object.entries(rest[k]).map(([n, s]) => [n, withoutFormat(s)]));
  return out;
}

const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

/**
 * What the compiled engine refuses at registration by checking a schema against the 2020-12
 * meta-schema, checked by hand for the keywords whose mistakes would otherwise surface only in a
 * call: schemas that are neither object nor boolean, unknown types, patterns that are not
 * regular expressions, `required` and `enum` that are not lists.
 */
function checkSchema(schema: unknown, at: string): void {
  const invalid = (where: string, what: string) => new Error(`schema is invalid: ${where || '(root)'} ${what}`);
  if (typeof schema === 'boolean') return;
  if (!isObject(schema)) throw invalid(at, 'must be an object or a boolean');
  const type = schema.type;
  if (type !== undefined && ![type].flat().every((t) => typeof t === 'string' && TYPES.has(t))) {
    throw invalid(`${at}/type`, `must be one of ${[...TYPES].join(', ')} (or a list of them)`);
  }
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === 'string'))) {
    throw invalid(`${at}/required`, 'must be a list of property names');
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) throw invalid(`${at}/enum`, 'must be a list');
  const patterns = [
    ...(schema.pattern === undefined ? [] : [[`${at}/pattern`, schema.pattern] as const]),
    ...(isObject(schema.patternProperties)
      ? Object.keys(schema.patternProperties).map((p) => [`${at}/patternProperties`, p] as const)
      : []),
  ];
  for (const [where, pattern] of patterns) {
    try {
      new RegExp(String(pattern), 'u');
    } catch {
      throw invalid(where, `has ${JSON.stringify(pattern)}, which is not a regular expression`);
    }
  }
  for (const [step, sub] of subschemas(schema)) checkSchema(sub, `${at}/${step}`);
}

/** The schema value at a keyword location (`#/properties/a/type`), following local `$ref`s on the way. */
function keywordValue(root: Json, location: string): unknown {
  let node: unknown = root;
  for (const step of location.replace(/^#\/?/, '').split('/').filter(Boolean).map(unescapeStep)) {
    if (step === '$ref' && isObject(node) && typeof node.$ref === 'string') {
      node = node.$ref.startsWith('#') ? keywordValue(root, node.$ref) : undefined;
      continue;
    }
    node = isObject(node) || Array.isArray(node) ? (node as Json)[step] : undefined;
  }
  return node;
}

/** Wrappers around the errors of subschemas: Ajv reports those errors alone. */
const WRAPPERS = new Set(['properties', 'patternProperties', '$ref', '$recursiveRef', 'allOf', 'dependentSchemas', 'dependencies']);
/** Keywords whose `false` schema cfworker reports twice (the keyword, then a `false` leaf under it). */
const FALSE_OWNERS = new Set(['additionalProperties', 'unevaluatedProperties', 'items', 'unevaluatedItems', 'additionalItems']);

/** Keywords whose Ajv message needs no more than the keyword's value in the schema. */
const WORDED = new Map<string, (value: unknown) => string>(
  Object.entries({
    type: (v) => `must be ${[v].flat().join(',')}`,
    minimum: (v) => `must be >= ${v}`,
    maximum: (v) => `must be <= ${v}`,
    exclusiveMinimum: (v) => `must be > ${v}`,
    exclusiveMaximum: (v) => `must be < ${v}`,
    multipleOf: (v) => `must be multiple of ${v}`,
    minLength: (v) => `must NOT have fewer than ${v} characters`,
    maxLength: (v) => `must NOT have more than ${v} characters`,
    minItems: (v) => `must NOT have fewer than ${v} items`,
    maxItems: (v) => `must NOT have more than ${v} items`,
    minProperties: (v) => `must NOT have fewer than ${v} properties`,
    maxProperties: (v) => `must NOT have more than ${v} properties`,
    maxContains: (v) => `must contain at most ${v} valid item(s)`,
    pattern: (v) => `must match pattern "${v}"`,
    enum: () => 'must be equal to one of the allowed values',
    const: () => 'must be equal to constant',
    not: () => 'must NOT be valid',
    anyOf: () => 'must match a schema in anyOf',
    oneOf: () => 'must match exactly one schema in oneOf',
    propertyNames: () => 'property name must be valid',
  }),
);

/** The JSON pointer one step up (a keyword's schema, an instance's parent). */
const parentOf = (pointer: string) => pointer.replace(/\/[^/]*$/, '');

/** Each of cfworker's output units as Ajv would word it, wrappers left out. */
function messagesOf(errors: readonly OutputUnit[], schema: Json): string[] {
  const out: string[] = [];
  /** Instance locations whose `false` leaf a keyword already reported. */
  const reported = new Set<string>();
  for (const e of errors) {
    if (WRAPPERS.has(e.keyword)) continue;
    const path = e.instanceLocation.replace(/^#/, '') || '(root)';
    const value = keywordValue(schema, e.keywordLocation);
    const said = (what: string) => out.push(`${path} ${what}`);
    const quoted = (re: RegExp) => re.exec(e.error)?.slice(1) ?? [];
    if (FALSE_OWNERS.has(e.keyword)) {
      const [name] = quoted(/^Property "(.*)" does not match/);
      if (name !== undefined) reported.add(`${e.instanceLocation}/${escapeStep(name)}`);
      if (value !== false) continue;
      reported.add(e.instanceLocation);
      if (e.keyword === 'additionalProperties') said('must NOT have additional properties');
      else if (e.keyword === 'unevaluatedProperties') said('must NOT have unevaluated properties');
      else if (e.keyword === 'unevaluatedItems') said('must NOT have unevaluated items');
      else {
        const parent = keywordValue(schema, parentOf(e.keywordLocation));
        const limit = isObject(parent) && Array.isArray(parent.prefixItems) ? parent.prefixItems.length : 0;
        said(`must NOT have more than ${limit} items`);
      }
      continue;
    }
    const worded = WORDED.get(e.keyword);
    if (worded !== undefined) {
      said(worded(value));
      continue;
    }
    switch (e.keyword) {
      case 'false': {
        const parent = parentOf(e.instanceLocation);
        if (!reported.has(e.instanceLocation) && !reported.has(parent)) said('boolean schema is false');
        break;
      }
      case 'required': {
        const [name] = quoted(/required property "(.*)"\.$/);
        said(name === undefined ? e.error : `must have required property '${name}'`);
        break;
      }
      case 'if': {
        const [branch] = quoted(/"(then|else)"/);
        said(`must match "${branch ?? 'then'}" schema`);
        break;
      }
      case 'contains':
      case 'minContains': {
        const parent = keywordValue(schema, parentOf(e.keywordLocation));
        said(`must contain at least ${isObject(parent) && typeof parent.minContains === 'number' ? parent.minContains : 1} valid item(s)`);
        break;
      }
      case 'uniqueItems': {
        const [i, j] = quoted(/indexes (\d+) and (\d+)/).map(Number);
        said(
          i === undefined || j === undefined
            ? 'must NOT have duplicate items'
            : `must NOT have duplicate items (items ## ${Math.min(i, j)} and ${Math.max(i, j)} are identical)`,
        );
        break;
      }
      case 'dependentRequired': {
        const [has, lacks] = quoted(/has "(.*)" but does not have "(.*)"/);
        said(has === undefined ? e.error : `must have property ${lacks} when property ${has} is present`);
        break;
      }
      default:
        said(e.error.replace(/\.$/, ''));
    }
  }
  return out;
}
