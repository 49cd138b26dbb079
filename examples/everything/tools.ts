/** The tools the conformance server scenarios call (shared/conformance/README.md §5.3). */
import { z } from 'zod';
import { ToolError } from '../../src/errors/index.js';
import type { Server } from '../../src/server/index.js';
import { PNG_1X1, WAV_SILENCE } from './media.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function registerTools(server: Server): void {
  server.tool('test_simple_text', { description: 'Returns a simple text response' }, () => 'This is a simple text response for testing.');

  server.tool('test_image_content', { description: 'Returns an image' }, () => [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }]);

  server.tool('test_audio_content', { description: 'Returns audio' }, () => [{ type: 'audio', data: WAV_SILENCE, mimeType: 'audio/wav' }]);

  server.tool('test_embedded_resource', { description: 'Returns an embedded resource' }, () => [
    {
      type: 'resource',
      resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
    },
  ]);

  server.tool('test_multiple_content_types', { description: 'Returns text, an image and a resource' }, () => [
    { type: 'text', text: 'Multiple content types test:' },
    { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
    {
      type: 'resource',
      resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
    },
  ]);

  server.tool('test_tool_with_logging', { description: 'Logs while it runs' }, async (_args, ctx) => {
    ctx.log('info', 'Tool execution started');
    await sleep(50);
    ctx.log('info', 'Tool processing data');
    await sleep(50);
    ctx.log('info', 'Tool execution completed');
    return 'Logging test completed';
  });

  server.tool('test_logging_tool', { description: 'Logs through the request-scoped logger' }, (_args, ctx) => {
    ctx.log('info', 'test_logging_tool ran');
    return 'logged';
  });

  server.tool('test_error_handling', { description: 'Always fails as a tool error' }, () => {
    // A ToolError's message is meant for the model; any other error would be masked.
    throw new ToolError('This tool intentionally returns an error for testing');
  });

  server.tool('test_tool_with_progress', { description: 'Reports progress' }, async (_args, ctx) => {
    for (const p of [0, 50, 100]) {
      ctx.progress(p, 100, `step ${p}`);
      if (p < 100) await sleep(50);
    }
    return 'Progress test completed';
  });

  server.tool(
    'test_sampling',
    { description: 'Asks the client to sample', input: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const r = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
      const content = r.content as { type?: string; text?: string };
      return `LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(r.content)}`;
    },
  );

  server.tool(
    'test_elicitation',
    { description: 'Asks the user for information', input: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      const r = await ctx.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: { username: { type: 'string', description: 'Your username' }, email: { type: 'string', description: 'Your email' } },
          required: ['username', 'email'],
        },
      });
      return `User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`;
    },
  );

  server.tool('test_elicitation_sep1034_defaults', { description: 'Elicitation with defaults' }, async (_args, ctx) => {
    const r = await ctx.elicit({
      message: 'Please confirm your details',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'John Doe' },
          age: { type: 'integer', default: 30 },
          score: { type: 'number', default: 95.5 },
          status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', default: true },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`;
  });

  server.tool('test_elicitation_sep1330_enums', { description: 'Elicitation with every enum form' }, async (_args, ctx) => {
    const r = await ctx.elicit({
      message: 'Please choose',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
          untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`;
  });

  server.tool(
    'test_reconnection',
    { description: 'Closes its SSE stream mid-call; the result arrives after the client resumes' },
    async (_args, ctx) => {
      await sleep(100);
      ctx.closeStream();
      await sleep(200);
      return 'Reconnection test completed';
    },
  );

  server.tool(
    'json_schema_2020_12_tool',
    {
      description: 'A tool whose input schema uses JSON Schema 2020-12 keywords',
      input: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable.
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    },
    (args) => `Received: ${JSON.stringify(args)}`,
  );

  server.tool('test_missing_capability', { description: 'Needs the client to sample' }, async (_args, ctx) => {
    const r = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 10 },
      { key: 'sample' },
    );
    return `sampled: ${JSON.stringify(r.content)}`;
  });

  server.tool(
    'test_streaming_elicitation',
    { description: 'Plain success; never sends a request on the stream' },
    () => 'Streaming elicitation test completed',
  );

  server.tool('test_trigger_tool_change', { description: 'Changes the tool list' }, () => {
    toggle(server, 'tools');
    return 'Tool list changed';
  });

  server.tool('test_trigger_prompt_change', { description: 'Changes the prompt list' }, () => {
    toggle(server, 'prompts');
    return 'Prompt list changed';
  });

  server.tool(
    'test_x_mcp_header',
    {
      description: 'Mirrors region into the Mcp-Param-Region header',
      input: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, level: { type: 'integer' } },
      },
    },
    (args) => `region=${String((args as { region?: string }).region)}`,
  );
}

const toggled = new WeakMap<Server, { tools?: { remove(): void }; prompts?: { remove(): void } }>();

/** Adds or removes a throwaway definition, so each call is a real list change. */
function toggle(server: Server, kind: 'tools' | 'prompts'): void {
  const state = toggled.get(server) ?? {};
  toggled.set(server, state);
  const existing = state[kind];
  if (existing) {
    existing.remove();
    delete state[kind];
  } else if (kind === 'tools') {
    state.tools = server.tool('test_dynamic_tool', { description: 'Added by test_trigger_tool_change' }, () => 'dynamic');
  } else {
    state.prompts = server.prompt('test_dynamic_prompt', { description: 'Added by test_trigger_prompt_change' }, () => 'dynamic');
  }
}
