/**
 * Type tests (compiled, never run): a prompt handler's arguments are inferred from the
 * prompt's `arguments`, a schema or a list of argument descriptions.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z40 } from 'zod-4.0';
import type { PromptArgument } from '../../src/protocol/types.js';
import type { Server } from '../../src/server/index.js';
import { expectType } from './expect.js';

type Review = { text: string; tone?: 'kind' | 'blunt' | undefined };

export function schemaArguments(server: Server): void {
  server.prompt('zod', { arguments: z.object({ text: z.string(), tone: z.enum(['kind', 'blunt']).optional() }) }, (args) => {
    expectType<Review>()(args);
    return 'ok';
  });
  server.prompt('zod40', { arguments: z40.object({ text: z40.string(), tone: z40.enum(['kind', 'blunt']).optional() }) }, (args) => {
    expectType<Review>()(args);
    return 'ok';
  });
  server.prompt(
    'valibot',
    { arguments: toStandardJsonSchema(v.object({ text: v.string(), tone: v.optional(v.picklist(['kind', 'blunt'])) })) },
    (args) => {
      expectType<Review>()(args);
      return 'ok';
    },
  );
  server.prompt('arktype', { arguments: type({ text: 'string', 'tone?': "'kind' | 'blunt'" }) }, (args) => {
    expectType<Review>()(args);
    return 'ok';
  });
  server.prompt('json', { arguments: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => {
    expectType<Record<string, string>>()(args);
    return 'ok';
  });
  server.prompt('none', { description: 'no arguments' }, (args) => {
    expectType<Record<string, string>>()(args);
    return 'ok';
  });
  server.prompt('bare', (args) => {
    expectType<Record<string, string>>()(args);
    return 'ok';
  });
  // @ts-expect-error `mood` is not an argument
  server.prompt('unknown_field', { arguments: z.object({ text: z.string() }) }, ({ mood }) => String(mood));
}

export function listArguments(server: Server): void {
  // Written inline, the names are known: required ones are strings, the others optional.
  server.prompt(
    'listed',
    {
      arguments: [{ name: 'text', description: 'The text', required: true }, { name: 'tone' }],
    },
    (args) => {
      expectType<{ text: string; tone?: string }>()(args);
      return 'ok';
    },
  );
  // A list built elsewhere, as PromptArgument[]: any name, maybe missing.
  const declared: PromptArgument[] = [{ name: 'text', required: true }];
  server.prompt('declared', { arguments: declared }, (args) => {
    expectType<Record<string, string | undefined>>()(args);
    return 'ok';
  });
  // @ts-expect-error `mood` is not among the listed arguments
  server.prompt('listed_unknown', { arguments: [{ name: 'text' }] }, ({ mood }) => String(mood));
  // @ts-expect-error an optional argument may be missing
  server.prompt('listed_optional', { arguments: [{ name: 'tone' }] }, ({ tone }): string => tone);
}
