/**
 * Multi round-trip (input_required) tools and prompt, for the conformance suite's
 * input_required scenarios. The forms
 * are Zod schemas: `ctx.elicit` sends them as flat JSON Schema and types the answers.
 */
import { z } from 'zod';
import type { Server } from '../../src/server/index.js';

const nameSchema = z.object({ name: z.string() });

export function registerInputRequired(server: Server): void {
  server.tool('test_input_required_result_elicitation', { description: 'Asks for your name' }, async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'What is your name?', requestedSchema: nameSchema }, { key: 'user_name' });
    return r.action === 'accept' ? `Hello, ${r.content.name}!` : `No name (${r.action})`;
  });

  server.tool('test_input_required_result_sampling', { description: 'Asks the client to sample' }, async (_a, ctx) => {
    const r = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      { key: 'capital_question' },
    );
    const c = r.content as { text?: string };
    return `Sampling result: ${c?.text ?? JSON.stringify(r.content)}`;
  });

  server.tool('test_input_required_result_list_roots', { description: 'Asks for the client roots' }, async (_a, ctx) => {
    const roots = await ctx.roots({ key: 'client_roots' });
    return `Roots: ${roots.map((r) => r.uri).join(', ')}`;
  });

  server.tool('test_input_required_result_request_state', { description: 'Confirms through a signed requestState' }, async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Please confirm', requestedSchema: z.object({ ok: z.boolean() }) }, { key: 'confirm' });
    return `state-ok: confirmed=${r.action === 'accept' && r.content.ok}`;
  });

  server.tool('test_input_required_result_multiple_inputs', { description: 'Asks three things in one round' }, async (_a, ctx) => {
    const [user, greeting, roots] = await Promise.all([
      ctx.elicit({ message: 'What is your name?', requestedSchema: nameSchema }, { key: 'user_name' }),
      ctx.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 },
        { key: 'greeting' },
      ),
      ctx.roots({ key: 'client_roots' }),
    ]);
    const g = greeting.content as { text?: string };
    const name = user.action === 'accept' ? user.content.name : `(${user.action})`;
    return `name=${name}, greeting=${g?.text ?? ''}, roots=${roots.length}`;
  });

  server.tool('test_input_required_result_multi_round', { description: 'Asks in two rounds' }, async (_a, ctx) => {
    const step1 = await ctx.elicit({ message: 'Step 1: What is your name?', requestedSchema: nameSchema }, { key: 'step1' });
    if (step1.action !== 'accept') return `No name (${step1.action})`;
    const step2 = await ctx.elicit(
      { message: 'Step 2: What is your favorite color?', requestedSchema: z.object({ color: z.string() }) },
      { key: 'step2' },
    );
    return step2.action === 'accept' ? `${step1.content.name} likes ${step2.content.color}` : `${step1.content.name} gave no color`;
  });

  server.tool(
    'test_input_required_result_tampered_state',
    { description: 'Issues an integrity-protected requestState' },
    async (_a, ctx) => {
      const r = await ctx.elicit({ message: 'What is your name?', requestedSchema: nameSchema }, { key: 'user_name' });
      return r.action === 'accept' ? `Hello, ${r.content.name}!` : `No name (${r.action})`;
    },
  );

  server.tool('test_input_required_result_capabilities', { description: 'Asks only for what the request declared' }, async (_a, ctx) => {
    const caps = ctx.client.capabilities;
    // mrtr.mdx: never ask for a kind of input the client did not declare.
    if (caps.elicitation) {
      const r = await ctx.elicit({ message: 'What is your name?', requestedSchema: nameSchema }, { key: 'user_name' });
      return r.action === 'accept' ? `Hello, ${r.content.name}!` : `No name (${r.action})`;
    }
    if (caps.sampling) {
      const r = await ctx.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 },
        { key: 'greeting' },
      );
      return `Sampled: ${JSON.stringify(r.content)}`;
    }
    if (caps.roots) return `Roots: ${(await ctx.roots({ key: 'client_roots' })).length}`;
    return 'No input capability declared';
  });

  server.prompt('test_input_required_result_prompt', { description: 'A prompt that first asks for context' }, async (_a, ctx) => {
    const r = await ctx.elicit(
      { message: 'What context should the prompt use?', requestedSchema: z.object({ context: z.string() }) },
      { key: 'user_context' },
    );
    return `Use this context: ${r.action === 'accept' ? r.content.context : '(none)'}`;
  });
}
