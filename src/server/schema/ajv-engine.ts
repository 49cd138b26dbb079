/**
 * The compiling JSON Schema engine: Ajv's 2020-12 dialect turns a schema into a function once,
 * at registration, so a call only runs that function. Needs a runtime that allows code
 * generation (code-generation.ts); where it does not, interpreted-engine.ts serves instead.
 */
import type { ErrorObject } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Check, JsonSchemaEngine } from './engine.js';
import { joinMessages } from './engine.js';

/** What `ajv/dist/2020.js` exports that we use. */
export type AjvModule = { readonly Ajv2020: typeof Ajv2020 };

export function ajvEngine(module: AjvModule): JsonSchemaEngine {
  // strict: false — user schemas may carry annotations and vendor keywords such as x-mcp-header.
  const ajv = new module.Ajv2020({ strict: false, allErrors: true, validateFormats: false, validateSchema: true });
  return {
    name: 'ajv',
    compile(schema): Check {
      const fn = ajv.compile(schema);
      return (value) => (fn(value) ? undefined : joinMessages((fn.errors ?? []).map(messageOf)));
    },
  };
}

function messageOf(e: ErrorObject): string {
  return `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`;
}
