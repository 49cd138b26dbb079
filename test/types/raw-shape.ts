/**
 * Type tests (compiled, never run): an object of schemas, one per property, as the official
 * SDK v1 takes them (`{ name: z.string() }`), types a tool's arguments, its structured output
 * and a prompt's arguments as the object of those properties would; a property whose schema
 * accepts `undefined` is optional.
 */
import { type } from 'arktype';
import { z } from 'zod';
import type { Server } from '../../src/server/index.js';
import { expectType } from './expect.js';

type Greeting = { name: string; times?: number | undefined };

export function rawShapes(server: Server): void {
  server.tool('shape', { input: { name: z.string(), times: z.number().optional() } }, (args) => {
    expectType<Greeting>()(args);
    return 'ok';
  });
  // Defaults: optional to send, present in what the handler gets.
  server.tool('defaults', { input: { name: z.string().default('you') } }, (args) => {
    expectType<{ name: string }>()(args);
    return 'ok';
  });
  server.tool('ark', { input: { name: type('string'), times: type('number | undefined') } }, (args) => {
    expectType<Greeting>()(args);
    return 'ok';
  });
  server.tool('output', { input: { id: z.string() }, output: { total: z.number() } }, (args) => {
    expectType<{ id: string }>()(args);
    return { total: 3 };
  });
  // @ts-expect-error the output shape wants a number
  server.tool('bad-output', { output: { total: z.number() } }, () => ({ total: 'three' }));
  server.prompt('shaped', { arguments: { topic: z.string(), tone: z.string().optional() } }, (args) => {
    expectType<{ topic: string; tone?: string | undefined }>()(args);
    return `${args.topic} ${args.tone ?? ''}`;
  });
}
