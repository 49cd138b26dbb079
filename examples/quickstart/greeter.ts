/** The README's ten-line server: one definition, both eras. */
import { createServer } from '../../src/server/index.js';
import { z } from 'zod';

export const server = createServer({ name: 'greeter', version: '1.0.0' });
server.tool('greet', { input: z.object({ name: z.string().optional() }) }, async ({ name }, ctx) => {
  if (name === undefined) {
    const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: z.object({ name: z.string() }) });
    name = answer.action === 'accept' ? answer.content.name : 'stranger';
  }
  return `hello ${name}`;
});
