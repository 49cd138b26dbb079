/**
 * Raw JSON Schema 2020-12 support: compiled once at registration with Ajv's 2020 dialect,
 * so a call only runs the compiled function. `$ref` to network URIs is never fetched
 * (docs/2026-07-28/basic/index.mdx §$ref Resolution): Ajv has no loader configured.
 *
 * Ajv is loaded with the first raw JSON Schema, not with `janus-mcp/server`: a server whose
 * schemas are all Zod (or another Standard Schema) never pays its import, about a third of
 * the server's cold start. On Node it is loaded synchronously through `require`, reached as
 * `process.getBuiltinModule` (no `node:` import: the server stays runtime-neutral), so a bad
 * schema still fails its registration. A runtime without it loads Ajv with `import()` on the
 * first validation, or earlier with `await prepareJsonSchema()`.
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction, ErrorObject } from 'ajv';
import { requireFrom } from '../../protocol/builtin.js';

type AjvModule = { readonly Ajv2020: typeof Ajv2020 };

let ajvModule: AjvModule | undefined;
let ajv: Ajv2020 | undefined;

/** Loads the JSON Schema validator ahead of the first raw JSON Schema, on any runtime. */
export async function prepareJsonSchema(): Promise<void> {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  ajvModule ??= { Ajv2020 };
}

/** The Ajv module, loaded now if this runtime can load it synchronously (Node); else undefined. */
function ajvModuleNow(): AjvModule | undefined {
  if (ajvModule !== undefined) return ajvModule;
  const require = requireFrom(import.meta.url);
  if (require === undefined) return undefined;
  ajvModule = require('ajv/dist/2020.js') as AjvModule;
  return ajvModule;
}

function instance(module: AjvModule): Ajv2020 {
  // strict: false — user schemas may carry annotations and vendor keywords such as x-mcp-header.
  ajv ??= new module.Ajv2020({ strict: false, allErrors: true, validateFormats: false, validateSchema: true });
  return ajv;
}

export type Result = { ok: true; value: unknown } | { ok: false; message: string };
export type Validate = (value: unknown) => Result | Promise<Result>;

export function compileJsonSchema(schema: Record<string, unknown>, what: string): Validate {
  const module = ajvModuleNow();
  if (module !== undefined) return validatorOf(compile(module, schema, what));
  // No synchronous loader: compiled on the first validation, so a bad schema fails that call.
  let compiled: Promise<ValidateFunction> | undefined;
  let fn: ValidateFunction | undefined;
  return (value) => {
    if (fn !== undefined) return check(fn, value);
    compiled ??= prepareJsonSchema().then(() => (fn = compile(ajvModule!, schema, what)));
    return compiled.then((f) => check(f, value));
  };
}

function compile(module: AjvModule, schema: Record<string, unknown>, what: string): ValidateFunction {
  try {
    // A schema may declare draft-07 via $schema; Ajv2020 refuses other metaschemas, and the
    // keyword sets overlap enough that validating without the declaration is the useful choice.
    const { $schema: _ignored, ...rest } = schema;
    return instance(module).compile(rest);
  } catch (e) {
    throw new Error(`${what}: not a valid JSON Schema: ${(e as Error).message}`);
  }
}

const validatorOf =
  (fn: ValidateFunction): Validate =>
  (value) =>
    check(fn, value);

function check(fn: ValidateFunction, value: unknown): Result {
  return fn(value) ? { ok: true, value } : { ok: false, message: formatAjvErrors(fn.errors) };
}

function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'invalid';
  return errors
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}
