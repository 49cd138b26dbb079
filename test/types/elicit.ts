/**
 * Type tests (compiled, never run): `ctx.elicit` with a Standard Schema is typed by it (the
 * accepted content is the schema's output), and with a raw JSON Schema returns the wire's
 * `ElicitResult` as before.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z40 } from 'zod-4.0';
import type { ElicitResult } from '../../src/protocol/types.js';
import type { ElicitAnswer, RequestContext } from '../../src/server/index.js';
import { expectType } from './expect.js';

type Person = { name: string; age?: number | undefined };

export async function typedForms(ctx: RequestContext): Promise<void> {
  const answer = await ctx.elicit({ message: 'Who?', requestedSchema: z.object({ name: z.string(), age: z.number().optional() }) });
  expectType<ElicitAnswer<Person>>()(answer);
  if (answer.action === 'accept') expectType<Person>()(answer.content);
  // @ts-expect-error a declined answer has no content
  if (answer.action === 'decline') void answer.content.name;

  // The content is the schema's output: defaults filled in.
  const color = await ctx.elicit({ message: 'Color?', requestedSchema: z.object({ color: z.enum(['red', 'blue']).default('red') }) });
  if (color.action === 'accept') expectType<{ color: 'red' | 'blue' }>()(color.content);

  const old = await ctx.elicit({ message: 'Who?', requestedSchema: z40.object({ name: z40.string(), age: z40.number().optional() }) });
  expectType<ElicitAnswer<Person>>()(old);
  const ark = await ctx.elicit({ message: 'Who?', requestedSchema: type({ name: 'string', 'age?': 'number' }) });
  if (ark.action === 'accept') expectType<Person>()(ark.content);
  const valibot = await ctx.elicit({
    message: 'Who?',
    requestedSchema: toStandardJsonSchema(v.object({ name: v.string(), age: v.optional(v.number()) })),
  });
  if (valibot.action === 'accept') expectType<Person>()(valibot.content);
}

export async function rawForms(ctx: RequestContext): Promise<void> {
  const answer = await ctx.elicit({ message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
  expectType<ElicitResult>()(answer);
  // @ts-expect-error raw content is untyped and may be absent
  const name: string = answer.content.name;
  void name;
}
