/**
 * Raw JSON Schema 2020-12 support: compiled once at registration with Ajv's 2020 dialect,
 * so a call only runs the compiled function. `$ref` to network URIs is never fetched
 * (docs/2026-07-28/basic/index.mdx §$ref Resolution): Ajv has no loader configured.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction, ErrorObject } from 'ajv';

let ajv: Ajv2020 | undefined;

function instance(): Ajv2020 {
  // strict: false — user schemas may carry annotations and vendor keywords such as x-mcp-header.
  ajv ??= new Ajv2020({ strict: false, allErrors: true, validateFormats: false, validateSchema: true });
  return ajv;
}

export type Validate = (value: unknown) => { ok: true; value: unknown } | { ok: false; message: string };

export function compileJsonSchema(schema: Record<string, unknown>, what: string): Validate {
  let fn: ValidateFunction;
  try {
    // A schema may declare draft-07 via $schema; Ajv2020 refuses other metaschemas, and the
    // keyword sets overlap enough that validating without the declaration is the useful choice.
    const { $schema: _ignored, ...rest } = schema;
    fn = instance().compile(rest);
  } catch (e) {
    throw new Error(`${what}: not a valid JSON Schema: ${(e as Error).message}`);
  }
  return (value) => (fn(value) ? { ok: true, value } : { ok: false, message: formatAjvErrors(fn.errors) });
}

function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'invalid';
  return errors
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}
