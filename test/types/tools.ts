/**
 * Type tests (compiled, never run): a tool handler's arguments are inferred from `input`
 * whatever the schema library, and with a Standard Schema `output` its return value is
 * checked against it.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z325 } from 'zod-3.25/v4';
import { z as z40 } from 'zod-4.0';
import { z as z41 } from 'zod-4.1';
import { toolError, type Server, type ToolHandler } from '../../src/server/index.js';
import type { CallToolResult } from '../../src/protocol/index.js';
import { expectType } from './expect.js';

type Greeting = { name: string; times?: number | undefined };

export function inputInference(server: Server): void {
  server.tool('zod', { input: z.object({ name: z.string(), times: z.number().optional() }) }, (args) => {
    expectType<Greeting>()(args);
    return 'ok';
  });
  server.tool('zod41', { input: z41.object({ name: z41.string(), times: z41.number().optional() }) }, (args) => {
    expectType<Greeting>()(args);
    return 'ok';
  });
  server.tool('zod40', { input: z40.object({ name: z40.string(), times: z40.number().optional() }) }, (args) => {
    expectType<Greeting>()(args);
    return 'ok';
  });
  server.tool('zod325', { input: z325.object({ name: z325.string(), times: z325.number().optional() }) }, (args) => {
    expectType<Greeting>()(args);
    return 'ok';
  });
  server.tool('valibot', { input: toStandardJsonSchema(v.object({ name: v.string(), times: v.optional(v.number()) })) }, (args) => {
    expectType<Greeting>()(args);
    return 'ok';
  });
  server.tool('arktype', { input: type({ name: 'string', 'times?': 'number' }) }, (args) => {
    expectType<Greeting>()(args);
    return 'ok';
  });
  server.tool('json', { input: { type: 'object', properties: { name: { type: 'string' } } } }, (args) => {
    expectType<Record<string, unknown>>()(args);
    return 'ok';
  });
  server.tool('none', { description: 'no arguments' }, (args) => {
    expectType<Record<string, unknown>>()(args);
    return 'ok';
  });
  server.tool('bare', (args) => {
    expectType<Record<string, unknown>>()(args);
    return 'ok';
  });
  // The handler gets the schema's output: transforms applied, defaults filled in.
  server.tool('parsed', { input: z.object({ n: z.string().transform(Number), unit: z.string().default('m') }) }, (args) => {
    expectType<{ n: number; unit: string }>()(args);
    return 'ok';
  });
  // @ts-expect-error `nope` is not an argument
  server.tool('unknown_field', { input: z.object({ name: z.string() }) }, ({ nope }) => String(nope));
  // @ts-expect-error `name` is a string, not a number
  server.tool('wrong_use', { input: z.object({ name: z.string() }) }, ({ name }): number => name);
}

const Sum = z.object({ sum: z.number(), unit: z.string().default('m') });

export function outputChecks(server: Server): void {
  // The structured content itself (a defaulted field may be left out), sync or async.
  server.tool('object', { output: Sum }, () => ({ sum: 1 }));
  server.tool('async', { output: Sum }, async () => ({ sum: 1, unit: 'cm' }));
  // A CallToolResult whose structuredContent has the type, to choose the text.
  server.tool('result', { output: Sum }, () => ({ content: [{ type: 'text', text: 'one' }], structuredContent: { sum: 1 } }));
  // A tool error, which the output schema does not apply to.
  server.tool('error', { output: Sum }, () => (Math.random() > 0.5 ? toolError('no') : { sum: 1 }));
  server.tool('ark_output', { output: type({ ok: 'boolean' }) }, () => ({ ok: true }));
  server.tool('valibot_output', { output: toStandardJsonSchema(v.object({ ok: v.boolean() })) }, () => ({ ok: true }));
  server.tool('zod40_output', { output: z40.object({ ok: z40.boolean() }) }, () => ({ ok: true }));
  // Raw JSON Schema output: not typed.
  server.tool('json_output', { output: { type: 'object' } }, () => 'anything');

  // @ts-expect-error `sum` must be a number
  server.tool('wrong_field', { output: Sum }, () => ({ sum: 'one' }));
  // @ts-expect-error a typed output needs structured content, not text
  server.tool('text', { output: Sum }, () => 'one');
  // @ts-expect-error a CallToolResult without structuredContent (and not an error)
  server.tool('no_structured', { output: Sum }, () => ({ content: [{ type: 'text', text: 'one' }] }));
  // @ts-expect-error structuredContent of the wrong shape
  server.tool('wrong_structured', { output: Sum }, () => ({ content: [], structuredContent: { total: 1 } }));
  // @ts-expect-error the async result is checked too
  server.tool('wrong_async', { output: Sum }, async () => ({ sum: 'one' }));
  // @ts-expect-error a required field is missing
  server.tool('missing', { output: Sum }, () => ({ unit: 'm' }));
}

/** A handler written apart from its registration, typed by the schemas. */
const Input = z.object({ a: z.number(), b: z.number() });
export const add: ToolHandler<typeof Input, typeof Sum> = ({ a, b }) => ({ sum: a + b });
// @ts-expect-error the return value is checked against the output schema
export const badAdd: ToolHandler<typeof Input, typeof Sum> = ({ a, b }) => ({ sum: `${a + b}` });

export function resultLiterals(server: Server): void {
  // The public result types keep excess-property checks: a misspelt member is caught.
  // @ts-expect-error `isErorr` is not a member of CallToolResult
  const typo: CallToolResult = { content: [], isErorr: true };
  void typo;
  server.tool('plain', () => {
    // @ts-expect-error a misspelt member of a returned CallToolResult literal is caught too
    const result: CallToolResult = { content: [{ type: 'text', text: 'x' }], structuredContnet: {} };
    return result;
  });
}
