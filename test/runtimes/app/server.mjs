// The app each runtime serves, as a user writes it against the installed package: one tool
// whose input is a plain JSON Schema, one whose input is Zod.
import { createFetchHandler } from 'janus-mcp/fetch';
import { createServer } from 'janus-mcp/server';
import { z } from 'zod';

export function createHandler() {
  const server = createServer({ name: 'runtime-app', version: '1.0.0' });
  server.tool(
    'add',
    {
      description: 'Adds two numbers',
      input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    },
    ({ a, b }) => String(a + b),
  );
  server.tool('greet', { description: 'Greets someone', input: z.object({ name: z.string() }) }, ({ name }) => `hello ${name}`);
  return createFetchHandler(server, { keepAliveMs: 5_000 });
}
