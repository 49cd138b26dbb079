/**
 * Wire-schema checks for tests: validate every JSON-RPC message our code emits
 * against the official `schema.json` of the MCP revision in use.
 *
 * Schemas are read from `<repo root>/spec/schema/<rev>/schema.json`, the official files
 * the repository carries (override: env `JANUS_MCP_SCHEMA_DIR`). A missing folder or
 * revision is an error, never a silent skip: a test peer that validated nothing would pass
 * for the wrong reason.
 *
 * ```ts
 * wireValidator().assertServerMessage("2026-07-28", msg, { requestMethod: "tools/list" });
 * ```
 *
 * How a message is checked (see `checkMessage` below):
 * - request      → the revision's `JSONRPCRequest` envelope + the member of
 *                  `ServerRequest` / `ClientRequest` whose `method.const` matches;
 * - notification → `JSONRPCNotification` + the `ServerNotification` / `ClientNotification` member;
 * - result       → `JSONRPCResultResponse` (2025-11-25+) or `JSONRPCResponse` (older)
 *                  + the result definition for the request method it answers
 *                  (`opts.requestMethod`; `XRequest` → `XResult`, or the schema's own
 *                  `XResultResponse` link where one exists, 2026-07-28; without
 *                  `requestMethod` only the envelope is checked);
 * - error        → `JSONRPCErrorResponse` (2025-11-25+, `id` optional) or
 *                  `JSONRPCError` (older, `id` required) + the specific error
 *                  definition whose `code` const matches (e.g. -32022 →
 *                  `UnsupportedProtocolVersionError`, which requires `data`).
 * A method that the revision does not define in that direction is an error.
 * No strictness is added: the schemas allow extra fields, and so do we.
 * Error strings look like
 * `[2026-07-28] ListToolsResult at /result: must have required property 'ttlMs' (result of "tools/list")`;
 * failed unions whose data names its member (`type`, `method`, `mode` const) report only
 * that member's errors, "(as TextContent)".
 */
import { AssertionError } from 'node:assert';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** Which side sent the message. */
export type Side = 'server' | 'client';

export interface CheckOptions {
  /**
   * For a response: the method of the request it answers. For a batch (2025-03-26),
   * pass a function from response id to method.
   */
  requestMethod?: string | ((id: string | number | undefined) => string | undefined);
  /**
   * How to treat results that may take several shapes (2026-07-28 `tools/call`,
   * `prompts/get`, `resources/read` may return `InputRequiredResult`; 2025-11-25
   * task-augmented requests may return `CreateTaskResult`).
   *
   * - `false` (default, like the official conformance referee): pick the one
   *   alternative by its discriminator (`resultType: "input_required"` →
   *   `InputRequiredResult`, a `task` member → `CreateTaskResult`, else the method's
   *   own result) and validate against that.
   * - `true`: valid if any alternative matches, i.e. exactly the schema's
   *   `XResultResponse` union. Note that `InputRequiredResult` only requires
   *   `resultType`, so this accepts e.g. `{"resultType":"complete"}` for `tools/call`.
   */
  literalResultUnions?: boolean;
}

/** The method tables derived from one revision's schema. */
export interface RevisionMethods {
  /** method → definition name (e.g. `tools/call` → `CallToolRequest`) for `ClientRequest` members. */
  readonly clientRequests: ReadonlyMap<string, string>;
  readonly serverRequests: ReadonlyMap<string, string>;
  readonly clientNotifications: ReadonlyMap<string, string>;
  readonly serverNotifications: ReadonlyMap<string, string>;
  /** Every definition with a `method` const, in or out of the unions (2026: `InputRequest` members). */
  readonly allMethods: ReadonlyMap<string, string>;
  /** Whether `JSONRPCMessage` admits arrays (JSON-RPC batching; 2025-03-26 only). */
  readonly batching: boolean;
}

/** The result definition(s) a response to `method` is validated against. */
export interface ResultDefinitions {
  /** The method's own result (e.g. `CallToolResult`; `EmptyResult` for `ping`). */
  readonly primary: string;
  /** All admissible definitions, `primary` first (adds `InputRequiredResult` / `CreateTaskResult` where allowed). */
  readonly alternatives: readonly string[];
  /** The schema's own response definition linking method and result, if it has one (2026: `CallToolResultResponse`). */
  readonly responseDefinition?: string;
}

export interface WireValidator {
  /** The schema folder in use. */
  readonly schemaDir: string;
  /** Revisions that have a `schema.json` in `schemaDir`, sorted. */
  readonly revisions: readonly string[];

  /** Validate one message the SERVER sent. For a response pass the method of the request it answers. [] = valid. */
  checkServerMessage(revision: string, message: unknown, opts?: CheckOptions): string[];
  /** Same for messages a CLIENT sent (requests, notifications, responses to server requests). */
  checkClientMessage(revision: string, message: unknown, opts?: CheckOptions): string[];
  /** Throws an `AssertionError` listing the errors and the (truncated) message. */
  assertServerMessage(revision: string, message: unknown, opts?: CheckOptions): void;
  assertClientMessage(revision: string, message: unknown, opts?: CheckOptions): void;

  /** Validate any value against one named definition (e.g. `Tool`, `InputRequiredResult`). */
  checkDefinition(revision: string, definition: string, value: unknown): string[];
  /** Method tables of a revision (throws if the revision has no schema). */
  methods(revision: string): RevisionMethods;
  /** Result definition(s) for a response sent by `side` to a request with `requestMethod`; undefined if `side` cannot answer it. */
  resultDefinitions(revision: string, requestMethod: string, side: Side): ResultDefinitions | undefined;
  /** Names of definitions compiled so far for a revision (compilation is lazy). */
  compiledDefinitions(revision: string): string[];
  /** Adds a revision with its schema (one a test defines, derived from a vendored one); `schemaOf` reads a vendored one. */
  addRevision(revision: string, schema: Record<string, unknown>): void;
  /** A vendored revision's schema document, parsed (a copy: change it freely). */
  schemaOf(revision: string): Record<string, unknown>;
}

export const SCHEMA_DIR_ENV = 'JANUS_MCP_SCHEMA_DIR';
const PACKAGE_NAME = 'janus-mcp';
const MAX_ERRORS_PER_DEFINITION = 8;
const MAX_MESSAGE_CHARS = 600;

/**
 * Results that the schema does not link to their request by the `XRequest` → `XResult`
 * naming convention. These requests are answered with an empty result.
 */
const RESULT_OVERRIDES: Readonly<Record<string, string>> = {
  ping: 'EmptyResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
};

/** Union definitions: never used as the target of a method lookup (2026 collapses the one-member `ClientNotification`). */
const UNION_NAMES = new Set([
  'ClientRequest',
  'ServerRequest',
  'ClientNotification',
  'ServerNotification',
  'ClientResult',
  'ServerResult',
  'JSONRPCMessage',
]);

/**
 * The schemas use `format` uri, uri-template and byte. Without adding ajv-formats as a dependency:
 * `uri` gets ajv-formats' "fast" check (a scheme, no whitespace), which accepts everything the
 * referee's full RFC 3986 check accepts but still catches relative paths like "main.rs";
 * `uri-template` and `byte` are not checked (the referee does not check `byte` either).
 */
const FORMATS = {
  uri: /^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/)?[^\s]*$/i,
  'uri-template': true,
  byte: true,
} as const;

/** Extension result types the core schema cannot validate: checked against their extension's schema (below). */
const EXTENSION_RESULT_TYPES = new Map([['task', 'CreateTaskResult']]);

/**
 * Methods extensions add, which no core schema defines (a revision whose schema has one, like
 * 2025-11-25's experimental `tasks/*`, checks it there). The tasks extension's are checked
 * against its official schema (spec/extensions/tasks/schema.json); the skills extension has no
 * schema file, so only the JSON-RPC envelope applies to its methods.
 */
const EXTENSION_METHODS: Readonly<Record<string, { request?: string; result?: string; notification?: string }>> = {
  'tasks/get': { request: 'GetTaskRequest', result: 'GetTaskResult' },
  'tasks/update': { request: 'UpdateTaskRequest', result: 'UpdateTaskResult' },
  'tasks/cancel': { request: 'CancelTaskRequest', result: 'CancelTaskResult' },
  'notifications/tasks': { notification: 'TaskStatusNotification' },
  'skills/list': {},
  'skills/get': {},
  'resources/directory/read': {},
};

let tasksAjv: { ajv: Ajv2020; compiled: Map<string, ValidateFunction> } | undefined;

/** Errors of `value` against `definition` of the tasks extension's schema. */
function tasksSchemaErrors(definition: string, value: unknown, path: string): string[] {
  if (tasksAjv === undefined) {
    const root = findRepoRoot();
    if (root === undefined) throw new Error('repository root not found (spec/extensions/tasks/schema.json)');
    const ajv = new Ajv2020({ strict: false, allErrors: true, formats: FORMATS });
    ajv.addSchema(JSON.parse(readFileSync(join(root, 'spec/extensions/tasks/schema.json'), 'utf8')), 'tasks-extension');
    tasksAjv = { ajv, compiled: new Map() };
  }
  let fn = tasksAjv.compiled.get(definition);
  if (fn === undefined) {
    fn = tasksAjv.ajv.getSchema(`tasks-extension#/$defs/${definition}`);
    if (fn === undefined) throw new Error(`the tasks extension's schema has no definition ${definition}`);
    tasksAjv.compiled.set(definition, fn);
  }
  if (fn(value)) return [];
  return formatAjvErrors('tasks extension', definition, path, fn.errors ?? []);
}

/** Exported for tests of the tasks extension: errors of `value` as `definition` (e.g. `CreateTaskResult`). */
export function tasksExtensionErrors(definition: string, value: unknown): string[] {
  return tasksSchemaErrors(definition, value, '');
}

// ---------------------------------------------------------------------------
// Locating the schema folder

/** Walk up from this module's own location to the directory whose package.json is named janus-mcp. */
export function findRepoRoot(start: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = resolve(start);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const parsed = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown };
        if (parsed.name === PACKAGE_NAME) return dir;
      } catch {
        // unreadable package.json: keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

interface SchemaLocation {
  dir: string;
  revisions: string[];
}

/** The schema folder and its revisions; throws, naming the folder, when there is none. */
function locateSchemas(explicitDir?: string): SchemaLocation {
  const fromEnv = process.env[SCHEMA_DIR_ENV];
  let dir: string;
  let origin: string;
  if (explicitDir !== undefined) {
    dir = resolve(explicitDir);
    origin = 'schemaDir option';
  } else if (fromEnv !== undefined && fromEnv !== '') {
    dir = resolve(fromEnv);
    origin = `env ${SCHEMA_DIR_ENV}`;
  } else {
    const root = findRepoRoot();
    if (root === undefined) {
      throw new Error(
        `MCP wire schemas not found: no package.json named "${PACKAGE_NAME}" above ${dirname(fileURLToPath(import.meta.url))}; set ${SCHEMA_DIR_ENV}`,
      );
    }
    dir = resolve(root, 'spec', 'schema');
    origin = '<repo root>/spec/schema';
  }
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new Error(`MCP wire schemas missing: ${dir} (${origin}) does not exist`);
  const revisions = readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'schema.json')))
    .sort();
  if (revisions.length === 0) throw new Error(`MCP wire schemas missing: no <revision>/schema.json under ${dir} (${origin})`);
  return { dir, revisions };
}

// ---------------------------------------------------------------------------
// Per-revision schema model

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refName(ref: unknown): string | undefined {
  if (typeof ref !== 'string') return undefined;
  const i = ref.lastIndexOf('/');
  return i >= 0 ? ref.slice(i + 1) : undefined;
}

function methodConst(def: unknown): string | undefined {
  if (!isObject(def) || !isObject(def.properties)) return undefined;
  const method = def.properties.method;
  return isObject(method) && typeof method.const === 'string' ? method.const : undefined;
}

function firstDefined(defs: Json, ...names: string[]): string {
  return names.find((n) => n in defs) ?? names[names.length - 1]!;
}

class RevisionSchema {
  readonly defs: Json;
  readonly defsKey: 'definitions' | '$defs';
  readonly methods: RevisionMethods;
  /** error code → definition validating the whole response (`error.allOf[].code.const`). */
  readonly errorResponseDefs = new Map<number, string>();
  /** error code → definition validating the `error` object (`code.const` at top level, 2026 `ParseError` etc.). */
  readonly errorObjectDefs = new Map<number, string>();
  readonly envelope: { request: string; notification: string; result: string; error: string };
  private readonly ajv: Ajv;
  private readonly id: string;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    readonly revision: string,
    /** The schema's file, or the schema itself (a revision a test defines). */
    source: string | Json,
  ) {
    const file = typeof source === 'string' ? source : `(${revision}, given)`;
    const doc = typeof source === 'string' ? (JSON.parse(readFileSync(source, 'utf8')) as Json) : source;
    this.defsKey = isObject(doc.$defs) ? '$defs' : 'definitions';
    const defs = doc[this.defsKey];
    if (!isObject(defs)) throw new Error(`${file}: no "definitions" or "$defs"`);
    this.defs = defs;

    const is2020 = typeof doc.$schema === 'string' && doc.$schema.includes('2020-12');
    // verbose: errors carry the failing data and (sub)schema, used to narrow union errors.
    const options = { strict: false, allErrors: true, verbose: true, allowUnionTypes: true, formats: FORMATS };
    this.ajv = is2020 ? new Ajv2020(options) : new Ajv(options);
    this.id = `https://janus-mcp.invalid/mcp-schema/${revision}/schema.json`;
    this.ajv.addSchema({ ...doc, $id: this.id });

    this.envelope = {
      request: 'JSONRPCRequest',
      notification: 'JSONRPCNotification',
      result: firstDefined(defs, 'JSONRPCResultResponse', 'JSONRPCResponse'),
      error: firstDefined(defs, 'JSONRPCErrorResponse', 'JSONRPCError'),
    };

    const allMethods = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) {
      if (UNION_NAMES.has(name)) continue;
      const method = methodConst(def);
      if (method !== undefined && !allMethods.has(method)) allMethods.set(method, name);
      if (!isObject(def) || !isObject(def.properties)) continue;
      // response-level error definitions: properties.error.allOf[].properties.code.const
      const error = def.properties.error;
      const parts = isObject(error) ? [error, ...(Array.isArray(error.allOf) ? error.allOf : [])] : [];
      for (const part of parts) {
        const code = isObject(part) && isObject(part.properties) && isObject(part.properties.code) ? part.properties.code.const : undefined;
        if (typeof code === 'number') this.errorResponseDefs.set(code, name);
      }
      // error-object definitions: properties.code.const (+ required message)
      const code = isObject(def.properties.code) ? def.properties.code.const : undefined;
      if (typeof code === 'number' && 'message' in def.properties) this.errorObjectDefs.set(code, name);
    }

    const members = (union: string): Map<string, string> => {
      const result = new Map<string, string>();
      const def = defs[union];
      if (!isObject(def)) return result;
      const refs = Array.isArray(def.anyOf) ? def.anyOf : Array.isArray(def.oneOf) ? def.oneOf : [def];
      for (const member of refs) {
        const name = isObject(member) ? refName(member.$ref) : undefined;
        if (name !== undefined) {
          const method = methodConst(defs[name]);
          if (method !== undefined) result.set(method, name);
        } else {
          // A one-member union collapsed inline (2026-07-28 ClientNotification): name it by its method.
          const method = methodConst(member);
          if (method !== undefined) result.set(method, allMethods.get(method) ?? union);
        }
      }
      return result;
    };

    const jsonrpcMessage = defs.JSONRPCMessage;
    const batching =
      isObject(jsonrpcMessage) &&
      Array.isArray(jsonrpcMessage.anyOf) &&
      jsonrpcMessage.anyOf.some((m) => isObject(m) && m.type === 'array');

    this.methods = {
      clientRequests: members('ClientRequest'),
      serverRequests: members('ServerRequest'),
      clientNotifications: members('ClientNotification'),
      serverNotifications: members('ServerNotification'),
      allMethods,
      batching,
    };
  }

  validator(definition: string): ValidateFunction {
    let fn = this.compiled.get(definition);
    if (fn === undefined) {
      if (!(definition in this.defs)) throw new Error(`${this.revision}: schema has no definition ${definition}`);
      fn = this.ajv.compile({ $ref: `${this.id}#/${this.defsKey}/${definition}` });
      this.compiled.set(definition, fn);
    }
    return fn;
  }

  compiledNames(): string[] {
    return [...this.compiled.keys()].sort();
  }

  /** Validate `value` (found at `path` inside the message) against `definition`; readable error strings. */
  validate(definition: string, value: unknown, path = ''): string[] {
    const fn = this.validator(definition);
    if (fn(value)) return [];
    return formatAjvErrors(this.revision, definition, path, this.simplify([...(fn.errors ?? [])], 0));
  }

  /**
   * With allErrors, a failed union (`anyOf` of `$ref`s, e.g. ContentBlock) reports the errors of
   * every member. Where the data names its member through a `const` property (`type`, `method`,
   * `mode`, …), keep only the errors of that member (re-validated on its own), or say that no
   * member has that value.
   */
  private simplify(errors: ErrorObject[], depth: number): ErrorObject[] {
    if (depth > 8) return errors;
    const unions = errors
      .filter((e) => (e.keyword === 'anyOf' || e.keyword === 'oneOf') && Array.isArray(e.schema))
      .sort((a, b) => a.instancePath.length - b.instancePath.length);
    const under = (path: string, base: string) => path === base || path.startsWith(`${base}/`);
    const done: string[] = [];
    let result = errors;
    for (const union of unions) {
      const base = union.instancePath;
      if (done.some((d) => under(base, d))) continue;
      const replacement = this.discriminate(union, depth);
      if (replacement === undefined) continue;
      done.push(base);
      result = [...result.filter((e) => !under(e.instancePath, base)), ...replacement];
    }
    return result;
  }

  private discriminate(union: ErrorObject, depth: number): ErrorObject[] | undefined {
    const data: unknown = union.data;
    if (!isObject(data) || !Array.isArray(union.schema)) return undefined;
    // Inline members whose JSON type cannot hold the data (e.g. the array form of
    // SamplingMessage.content when the data is an object) are dropped; the rest must be $refs.
    const members = (union.schema as unknown[])
      .filter((m) => !(isObject(m) && typeof m.type === 'string' && m.type !== 'object' && m.$ref === undefined))
      .map((m) => (isObject(m) ? refName(m.$ref) : undefined));
    if (members.length === 0 || members.some((m) => m === undefined || !isObject(this.defs[m]))) return undefined;
    const names = members as string[];
    const discriminators = new Map<string, unknown[]>();
    const candidates = names.filter((name) => {
      const props = (this.defs[name] as Json).properties;
      if (!isObject(props)) return true;
      let ok = true;
      for (const [key, sub] of Object.entries(props)) {
        if (!isObject(sub) || !('const' in sub) || !(key in data)) continue;
        discriminators.set(key, [...(discriminators.get(key) ?? []), sub.const]);
        if (data[key] !== sub.const) ok = false;
      }
      return ok;
    });
    if (candidates.length > 1 || (candidates.length === names.length && names.length === (union.schema as unknown[]).length)) {
      return undefined;
    }
    const base = union.instancePath;
    if (candidates.length === 0) {
      const detail = [...discriminators]
        .map(([key, allowed]) => `${key} ${JSON.stringify(data[key])} is not one of ${JSON.stringify([...new Set(allowed)])}`)
        .join('; ');
      return [{ ...union, keyword: 'discriminator', message: `matches no member of ${names.join(' | ')}: ${detail}`, params: {} }];
    }
    const member = candidates[0]!;
    const fn = this.validator(member);
    if (fn(data)) return undefined; // the member matches; the union failed for another reason (e.g. oneOf ambiguity)
    return this.simplify([...(fn.errors ?? [])], depth + 1).map((e) => ({
      ...e,
      instancePath: `${base}${e.instancePath}`,
      message: / \(as [A-Za-z]+\)$/.test(e.message ?? '') ? e.message : `${e.message ?? 'invalid'} (as ${member})`,
    }));
  }

  /** Does a request's params (following $ref / anyOf / allOf) declare a `task` member (2025-11-25 task augmentation)? */
  private acceptsTask(requestDef: string): boolean {
    const seen = new Set<unknown>();
    const visit = (node: unknown, depth: number): boolean => {
      if (!isObject(node) || depth > 6 || seen.has(node)) return false;
      seen.add(node);
      if (typeof node.$ref === 'string') return visit(this.defs[refName(node.$ref) ?? ''], depth + 1);
      if (isObject(node.properties) && 'task' in node.properties) return true;
      for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
        const list = node[key];
        if (Array.isArray(list) && list.some((m) => visit(m, depth + 1))) return true;
      }
      return false;
    };
    const def = this.defs[requestDef];
    return isObject(def) && isObject(def.properties) && visit(def.properties.params, 0);
  }

  /** Result definitions for a response sent by `side` to a request with `method`. */
  resultDefinitions(method: string, side: Side): ResultDefinitions | undefined {
    const requests = side === 'server' ? this.methods.clientRequests : this.methods.serverRequests;
    const requestDef = requests.get(method);
    if (requestDef === undefined) return undefined;
    const base = requestDef.endsWith('Request') ? requestDef.slice(0, -'Request'.length) : requestDef;
    const alternatives: string[] = [];
    let responseDefinition: string | undefined;

    // 2026-07-28 links request and result itself: XResultResponse.properties.result = $ref | anyOf[$ref...].
    const responseDef = this.defs[`${base}ResultResponse`];
    if (isObject(responseDef) && isObject(responseDef.properties) && isObject(responseDef.properties.result)) {
      responseDefinition = `${base}ResultResponse`;
      const result = responseDef.properties.result;
      const refs = Array.isArray(result.anyOf) ? result.anyOf : [result];
      for (const r of refs) {
        const name = isObject(r) ? refName(r.$ref) : undefined;
        if (name !== undefined) alternatives.push(name);
      }
      // own result first, InputRequiredResult after it
      alternatives.sort((a, b) => Number(a === 'InputRequiredResult') - Number(b === 'InputRequiredResult'));
    }
    if (alternatives.length === 0) {
      const override = RESULT_OVERRIDES[method];
      const candidates = [override, `${base}Result`, 'EmptyResult', 'Result'].filter((n): n is string => n !== undefined && n in this.defs);
      alternatives.push(candidates[0] ?? 'Result');
    }
    // 2025-11-25 tasks: a task-augmented request may be answered with CreateTaskResult instead.
    if ('CreateTaskResult' in this.defs && this.acceptsTask(requestDef) && !alternatives.includes('CreateTaskResult')) {
      alternatives.push('CreateTaskResult');
    }
    const primary = alternatives[0]!;
    return responseDefinition === undefined ? { primary, alternatives } : { primary, alternatives, responseDefinition };
  }
}

function formatAjvErrors(revision: string, definition: string, path: string, errors: readonly ErrorObject[]): string[] {
  const lines = errors.map((e) => {
    const at = `${path}${e.instancePath}` || '(root)';
    let detail = '';
    if (e.keyword === 'const') detail = ` (allowed: ${JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue)})`;
    else if (e.keyword === 'enum') detail = ` (allowed: ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`;
    else if (e.keyword === 'additionalProperties')
      detail = ` (property: ${JSON.stringify((e.params as { additionalProperty?: unknown }).additionalProperty)})`;
    return `[${revision}] ${definition} at ${at}: ${e.message ?? 'invalid'}${detail}`;
  });
  const unique = [...new Set(lines)];
  if (unique.length === 0) return [`[${revision}] ${definition}: invalid`];
  if (unique.length > MAX_ERRORS_PER_DEFINITION) {
    return [
      ...unique.slice(0, MAX_ERRORS_PER_DEFINITION),
      `[${revision}] ${definition}: … and ${unique.length - MAX_ERRORS_PER_DEFINITION} more error(s)`,
    ];
  }
  return unique;
}

/** JSON of a message, truncated for error output. */
export function truncateJson(value: unknown, max = MAX_MESSAGE_CHARS): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more chars)` : text;
}

/** The text of the AssertionError thrown by `assert*Message`. */
export function formatWireErrors(side: Side, revision: string, message: unknown, errors: readonly string[]): string {
  return [
    `${side} message is not valid per MCP ${revision} schema.json (${errors.length} error(s)):`,
    ...errors.map((e) => `  - ${e}`),
    `  message: ${truncateJson(message)}`,
  ].join('\n');
}

// ---------------------------------------------------------------------------
// Message checks

function describeMethod(schema: RevisionSchema, method: string): string {
  const m = schema.methods;
  const roles: string[] = [];
  if (m.clientRequests.has(method)) roles.push('a client request');
  if (m.serverRequests.has(method)) roles.push('a server request');
  if (m.clientNotifications.has(method)) roles.push('a client notification');
  if (m.serverNotifications.has(method)) roles.push('a server notification');
  if (roles.length > 0) return `it is ${roles.join(' and ')}`;
  const def = m.allMethods.get(method);
  if (def !== undefined) return `${def} exists but is in none of the Client/Server Request/Notification unions`;
  return 'not defined in this revision';
}

function requestMethodFor(opts: CheckOptions | undefined, id: unknown): string | undefined {
  const rm = opts?.requestMethod;
  if (typeof rm === 'function') return rm(typeof id === 'string' || typeof id === 'number' ? id : undefined);
  return rm;
}

function checkResult(schema: RevisionSchema, side: Side, message: Json, opts: CheckOptions | undefined): string[] {
  const rev = schema.revision;
  const errors = schema.validate(schema.envelope.result, message);
  const method = requestMethodFor(opts, message.id);
  const result = message.result;
  if ('error' in message) errors.push(`[${rev}] a response must not carry both "result" and "error"`);

  if (method === undefined) {
    // Without the request method only the envelope applies (its `result` is the generic `Result`;
    // the ServerResult/ClientResult unions contain `Result` too, so they would add nothing).
    return errors;
  }
  const defs = schema.resultDefinitions(method, side);
  const extension = defs === undefined ? EXTENSION_METHODS[method] : undefined;
  if (extension !== undefined) {
    if (extension.result !== undefined) errors.push(...tasksSchemaErrors(extension.result, result, '/result'));
    return errors;
  }
  if (defs === undefined) {
    const other: Side = side === 'server' ? 'client' : 'server';
    const none = side === 'client' && schema.methods.serverRequests.size === 0 ? ` (${rev} defines no server-to-client requests)` : '';
    errors.push(
      `[${rev}] ${side} sent a result for "${method}", but "${method}" is not a ${other} request in ${rev}${none} (${describeMethod(schema, method)})`,
    );
    return errors;
  }

  const resultType = isObject(result) ? result.resultType : undefined;
  const extensionResult = typeof resultType === 'string' ? EXTENSION_RESULT_TYPES.get(resultType) : undefined;
  if (extensionResult !== undefined) {
    // Extension result (tasks extension): the core schema has no definition for it; the extension's has.
    errors.push(...tasksSchemaErrors(extensionResult, result, '/result').map((e) => `${e} (result of "${method}")`));
    return errors;
  }

  // The alternative the discriminators point at.
  let chosen = defs.primary;
  if (resultType === 'input_required' && defs.alternatives.includes('InputRequiredResult')) chosen = 'InputRequiredResult';
  else if (isObject(result) && 'task' in result && defs.alternatives.includes('CreateTaskResult')) chosen = 'CreateTaskResult';

  if (opts?.literalResultUnions === true && defs.alternatives.length > 1) {
    if (defs.alternatives.some((alt) => schema.validator(alt)(result))) return errors;
  }

  const specific = schema.validate(chosen, result, '/result').map((e) => `${e} (result of "${method}")`);
  if (specific.length > 0) {
    if (resultType === 'input_required' && chosen !== 'InputRequiredResult') {
      specific.push(
        `[${rev}] resultType "input_required" is not allowed for "${method}" (only ${inputRequiredMethods(schema).join(', ') || 'no methods'})`,
      );
    } else if (typeof resultType === 'string' && resultType !== 'complete' && resultType !== 'input_required') {
      specific.push(
        `[${rev}] note: resultType "${resultType}" is neither a core value nor a known extension value; validated as ${chosen}`,
      );
    }
  }
  errors.push(...specific);
  return errors;
}

function inputRequiredMethods(schema: RevisionSchema): string[] {
  return [...schema.methods.clientRequests.keys()].filter((m) =>
    schema.resultDefinitions(m, 'server')?.alternatives.includes('InputRequiredResult'),
  );
}

function checkError(schema: RevisionSchema, side: Side, message: Json): string[] {
  const rev = schema.revision;
  const errors = schema.validate(schema.envelope.error, message);
  if (side === 'client' && schema.methods.serverRequests.size === 0) {
    errors.push(`[${rev}] client sent an error response, but ${rev} defines no server-to-client requests to answer`);
  }
  const error = message.error;
  const code = isObject(error) ? error.code : undefined;
  if (typeof code === 'number') {
    const responseDef = schema.errorResponseDefs.get(code);
    if (responseDef !== undefined) errors.push(...schema.validate(responseDef, message));
    const objectDef = schema.errorObjectDefs.get(code);
    if (objectDef !== undefined) errors.push(...schema.validate(objectDef, error, '/error'));
  }
  return dedupe(errors);
}

/** Drop errors that repeat the same location + text under another definition name (envelope vs. member). */
function dedupe(errors: string[]): string[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = e.replace(/^\[[^\]]*\] \S+ at /, '');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function checkSingle(schema: RevisionSchema, side: Side, message: unknown, opts: CheckOptions | undefined): string[] {
  const rev = schema.revision;
  if (!isObject(message)) {
    return [
      `[${rev}] not a JSON-RPC message: expected an object, got ${Array.isArray(message) ? 'a nested array' : message === null ? 'null' : typeof message}`,
    ];
  }
  if ('method' in message) {
    const isRequest = 'id' in message;
    const envelope = isRequest ? schema.envelope.request : schema.envelope.notification;
    const errors = schema.validate(envelope, message);
    const method = message.method;
    if (typeof method !== 'string') return errors;
    const table = isRequest
      ? side === 'server'
        ? schema.methods.serverRequests
        : schema.methods.clientRequests
      : side === 'server'
        ? schema.methods.serverNotifications
        : schema.methods.clientNotifications;
    const def = table.get(method);
    const extension = def === undefined ? EXTENSION_METHODS[method] : undefined;
    if (extension !== undefined) {
      const definition = isRequest ? extension.request : extension.notification;
      if (definition !== undefined) errors.push(...tasksSchemaErrors(definition, message, ''));
      return dedupe(errors);
    }
    if (def === undefined) {
      const kind = `${side} ${isRequest ? 'request' : 'notification'}`;
      const none = isRequest && side === 'server' && table.size === 0 ? `; ${rev} defines no server-to-client requests` : '';
      errors.push(`[${rev}] method ${method} is not a ${kind} in ${rev} (${describeMethod(schema, method)}${none})`);
      return errors;
    }
    errors.push(...schema.validate(def, message));
    return dedupe(errors);
  }
  if ('result' in message) return dedupe(checkResult(schema, side, message, opts));
  if ('error' in message) return checkError(schema, side, message);
  const errors = schema.validate('JSONRPCMessage', message);
  return [`[${rev}] not a JSON-RPC request, notification or response (no "method", "result" or "error")`, ...errors.slice(0, 3)];
}

function checkMessage(schema: RevisionSchema, side: Side, message: unknown, opts: CheckOptions | undefined): string[] {
  if (!Array.isArray(message)) return checkSingle(schema, side, message, opts);
  const rev = schema.revision;
  if (!schema.methods.batching) return [`[${rev}] JSON-RPC batches (arrays) are not part of ${rev}`];
  const errors = message.flatMap((m, i) => checkSingle(schema, side, m, opts).map((e) => `[${i}] ${e}`));
  if (errors.length > 0) return errors;
  // The schema's batch shapes: requests+notifications, or responses+errors, not a mix.
  if (!schema.validator('JSONRPCMessage')(message)) {
    return [`[${rev}] JSONRPCMessage: a batch must contain only requests/notifications or only responses`];
  }
  return [];
}

// ---------------------------------------------------------------------------
// Validator

class SchemaWireValidator implements WireValidator {
  readonly schemaDir: string;
  revisions: readonly string[];
  private readonly schemas = new Map<string, RevisionSchema>();

  constructor(location: SchemaLocation) {
    this.schemaDir = location.dir;
    this.revisions = location.revisions;
  }

  private schema(revision: string): RevisionSchema {
    let schema = this.schemas.get(revision);
    if (schema === undefined) {
      if (!this.revisions.includes(revision)) {
        throw new Error(`no MCP schema for revision "${revision}" in ${this.schemaDir} (have: ${this.revisions.join(', ')})`);
      }
      schema = new RevisionSchema(revision, join(this.schemaDir, revision, 'schema.json'));
      this.schemas.set(revision, schema);
    }
    return schema;
  }

  private check(side: Side, revision: string, message: unknown, opts?: CheckOptions): string[] {
    if (!this.revisions.includes(revision)) {
      return [`no MCP schema for revision "${revision}" in ${this.schemaDir} (have: ${this.revisions.join(', ')})`];
    }
    return checkMessage(this.schema(revision), side, message, opts);
  }

  checkServerMessage(revision: string, message: unknown, opts?: CheckOptions): string[] {
    return this.check('server', revision, message, opts);
  }

  checkClientMessage(revision: string, message: unknown, opts?: CheckOptions): string[] {
    return this.check('client', revision, message, opts);
  }

  assertServerMessage(revision: string, message: unknown, opts?: CheckOptions): void {
    assertNoErrors('server', revision, message, this.checkServerMessage(revision, message, opts), this.assertServerMessage);
  }

  assertClientMessage(revision: string, message: unknown, opts?: CheckOptions): void {
    assertNoErrors('client', revision, message, this.checkClientMessage(revision, message, opts), this.assertClientMessage);
  }

  checkDefinition(revision: string, definition: string, value: unknown): string[] {
    return this.schema(revision).validate(definition, value);
  }

  methods(revision: string): RevisionMethods {
    return this.schema(revision).methods;
  }

  resultDefinitions(revision: string, requestMethod: string, side: Side): ResultDefinitions | undefined {
    return this.schema(revision).resultDefinitions(requestMethod, side);
  }

  compiledDefinitions(revision: string): string[] {
    return this.schemas.get(revision)?.compiledNames() ?? [];
  }

  addRevision(revision: string, schema: Record<string, unknown>): void {
    if (this.revisions.includes(revision)) throw new Error(`revision ${revision} already has a schema`);
    this.schemas.set(revision, new RevisionSchema(revision, schema));
    this.revisions = [...this.revisions, revision].sort();
  }

  schemaOf(revision: string): Record<string, unknown> {
    return JSON.parse(readFileSync(join(this.schemaDir, revision, 'schema.json'), 'utf8')) as Record<string, unknown>;
  }
}

// biome-ignore lint/complexity/noBannedTypes: AssertionError's stackStartFn is typed Function.
function assertNoErrors(side: Side, revision: string, message: unknown, errors: string[], fn: Function): void {
  if (errors.length === 0) return;
  throw new AssertionError({
    message: formatWireErrors(side, revision, message, errors),
    actual: errors,
    expected: [],
    operator: 'wireSchemaValid',
    stackStartFn: fn,
  });
}

/** An uncached validator for an explicit folder (or the default lookup when omitted). */
export function createWireValidator(options: { schemaDir?: string } = {}): WireValidator {
  return new SchemaWireValidator(locateSchemas(options.schemaDir));
}

const singletons = new Map<string, WireValidator>();

/**
 * The shared validator. Cached per value of `JANUS_MCP_SCHEMA_DIR`, so changing
 * it in-process yields the validator for the new folder.
 */
export function wireValidator(): WireValidator {
  const key = process.env[SCHEMA_DIR_ENV] ?? '';
  let v = singletons.get(key);
  if (v === undefined) {
    v = new SchemaWireValidator(locateSchemas());
    singletons.set(key, v);
  }
  return v;
}
