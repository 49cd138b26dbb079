/**
 * Raw JSON Schema 2020-12 support, with one of two engines (engine.ts), chosen once per
 * process: where the runtime allows code generation, Ajv compiles each schema once at
 * registration, so a call only runs the compiled function (ajv-engine.ts); where it does not
 * (Cloudflare workerd, a strict Content-Security-Policy), @cfworker/json-schema interprets it
 * (interpreted-engine.ts). Both word their messages alike. `$ref` to network URIs is never
 * fetched (2026-07-28 basic/index.mdx §$ref Resolution): neither engine has a loader.
 *
 * The engine is loaded with the first raw JSON Schema, not with `janus-mcp/server`: a server
 * whose schemas are all Zod (or another Standard Schema) never pays its import, about a third of
 * the server's cold start. On Node it is loaded synchronously through `require`, reached as
 * `process.getBuiltinModule` (no `node:` import: the server stays runtime-neutral), so a bad
 * schema still fails its registration. A runtime without it loads the engine with `import()` on
 * the first validation, or earlier with `await prepareJsonSchema()`.
 */
import { requireFrom } from '../../protocol/builtin.js';
import { type AjvModule, ajvEngine } from './ajv-engine.js';
import { codeGenerationAllowed } from './code-generation.js';
import type { Check, JsonSchemaEngine } from './engine.js';
import { type CfworkerModule, interpretedEngine } from './interpreted-engine.js';

let engine: JsonSchemaEngine | undefined;

/** Loads the JSON Schema engine this runtime can run, ahead of the first raw JSON Schema. */
export async function prepareJsonSchema(): Promise<void> {
  if (engine !== undefined) return;
  const loaded = codeGenerationAllowed()
    ? ajvEngine((await import('ajv/dist/2020.js')) as AjvModule)
    : interpretedEngine((await import('@cfworker/json-schema')) as CfworkerModule);
  engine ??= loaded;
}

/** The engine, loaded now if this runtime can load modules synchronously (Node); else undefined. */
function engineNow(): JsonSchemaEngine | undefined {
  if (engine !== undefined) return engine;
  const require = requireFrom(import.meta.url);
  if (require === undefined) return undefined;
  engine = codeGenerationAllowed()
    ? ajvEngine(require('ajv/dist/2020.js') as AjvModule)
    : interpretedEngine(require('@cfworker/json-schema') as CfworkerModule);
  return engine;
}

/** Which engine validates raw JSON Schemas in this process, once one is loaded (for diagnostics and tests). */
export function jsonSchemaEngine(): JsonSchemaEngine['name'] | undefined {
  return engine?.name;
}

export type Result = { ok: true; value: unknown } | { ok: false; message: string };
export type Validate = (value: unknown) => Result | Promise<Result>;

export function compileJsonSchema(schema: Record<string, unknown>, what: string): Validate {
  const now = engineNow();
  if (now !== undefined) return validatorOf(compile(now, schema, what));
  // No synchronous loader: compiled on the first validation, so a bad schema fails that call.
  let compiled: Promise<Check> | undefined;
  let check: Check | undefined;
  return (value) => {
    if (check !== undefined) return result(check, value);
    compiled ??= prepareJsonSchema().then(() => (check = compile(engine!, schema, what)));
    return compiled.then((c) => result(c, value));
  };
}

function compile(engine: JsonSchemaEngine, schema: Record<string, unknown>, what: string): Check {
  // A schema may declare draft-07 via $schema; both engines read 2020-12, and the keyword sets
  // overlap enough that validating without the declaration is the useful choice.
  const { $schema: _ignored, ...rest } = schema;
  try {
    return engine.compile(rest);
  } catch (e) {
    // A runtime refusing something (code generation, say) is not the schema's fault: said as it is.
    if (e instanceof EvalError) throw new Error(`${what}: the JSON Schema engine (${engine.name}) cannot run here: ${e.message}`);
    throw new Error(`${what}: not a valid JSON Schema: ${(e as Error).message}`);
  }
}

const validatorOf =
  (check: Check): Validate =>
  (value) =>
    result(check, value);

function result(check: Check, value: unknown): Result {
  const message = check(value);
  return message === undefined ? { ok: true, value } : { ok: false, message };
}
