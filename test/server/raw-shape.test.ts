/**
 * An object of schemas, one per property, as users of the official SDK v1 write it
 * (`server.tool('x', { input: { name: z.string() } }, …)`), is the object of those
 * properties: listed with the JSON Schema an object of them has (each property's converted as a
 * whole schema is; required unless its schema accepts undefined), validated property by
 * property (defaults applied, unknown properties dropped), over real HTTP on 127.0.0.1. A
 * slip (a property that is not a schema) is refused at registration, saying what to write.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type } from 'arktype';
import { z } from 'zod';
import { type Client, connect } from '../../src/client/index.js';
import { JanusError } from '../../src/errors/index.js';
import { createServer } from '../../src/server/index.js';
import { type HttpServerHandle, serveHttp } from '../../src/transports/http/index.js';

let http: HttpServerHandle;
let client: Client;
const seen: unknown[] = [];

before(async () => {
  const server = createServer({ name: 'shapes', version: '1.0.0' });
  server.tool(
    'greet',
    {
      input: { name: z.string().min(1).describe('who'), times: z.number().int().optional(), tone: z.enum(['warm', 'dry']).default('warm') },
    },
    (args) => {
      seen.push(args);
      return `${args.tone} hello ${args.name} x${args.times ?? 1}`;
    },
  );
  server.tool('ark', { input: { n: type('number > 0') }, output: { double: z.number() } }, (args) => ({ double: args.n * 2 }));
  server.prompt('topic', { arguments: { topic: z.string(), tone: z.string().optional() } }, (args) => `${args.topic}/${args.tone ?? '-'}`);
  http = await serveHttp(server);
  client = await connect(http.url);
});
after(async () => {
  await client.close();
  await http.close();
});

test('tools/list: the JSON Schema of the object of those properties', async () => {
  const { tools } = await client.listTools();
  const greet = tools.find((t) => t.name === 'greet')!;
  const expected = z.toJSONSchema(
    z.object({
      name: z.string().min(1).describe('who'),
      times: z.number().int().optional(),
      tone: z.enum(['warm', 'dry']).default('warm'),
    }),
    { io: 'input', target: 'draft-2020-12' },
  );
  assert.deepEqual(greet.inputSchema.properties, expected.properties);
  assert.deepEqual(greet.inputSchema.required, ['name']);
  assert.equal(greet.inputSchema.type, 'object');
  const ark = tools.find((t) => t.name === 'ark')!;
  assert.deepEqual(ark.inputSchema.required, ['n']);
  assert.deepEqual(ark.outputSchema?.properties, { double: { type: 'number' } });
});

test('tools/call: each property validated by its schema, defaults applied, unknown properties dropped', async () => {
  seen.length = 0;
  const ok = await client.callTool('greet', { name: 'Ada', extra: true });
  assert.equal(ok.isError, undefined);
  assert.deepEqual(ok.content, [{ type: 'text', text: 'warm hello Ada x1' }]);
  assert.deepEqual(seen, [{ name: 'Ada', tone: 'warm' }]);

  const missing = await client.callTool('greet', { times: 2 });
  assert.equal(missing.isError, true);
  assert.match((missing.content[0] as { text: string }).text, /^Invalid arguments for tool greet: name: /);
  const wrong = await client.callTool('greet', { name: 'Ada', times: 1.5, tone: 'loud' });
  assert.match((wrong.content[0] as { text: string }).text, /times: .*; tone: /);
  assert.equal(seen.length, 1, 'the handler never ran with bad arguments');

  const doubled = await client.callTool('ark', { n: 4 });
  assert.deepEqual(doubled.structuredContent, { double: 8 });
  const refused = await client.callTool('ark', { n: -1 });
  assert.match((refused.content[0] as { text: string }).text, /^Invalid arguments for tool ark: n: /);
});

test('prompts: the properties are the arguments, required unless optional', async () => {
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.find((p) => p.name === 'topic')?.arguments, [{ name: 'topic', required: true }, { name: 'tone' }]);
  const got = await client.getPrompt('topic', { topic: 'tides' });
  assert.deepEqual(got.messages[0]?.content, { type: 'text', text: 'tides/-' });
});

test('an object where some properties are not schemas is refused, saying what to write', () => {
  const server = createServer({ name: 'slip', version: '1.0.0' });
  assert.throws(
    () => server.tool('x', { input: { name: z.string(), limit: 5 } as never }, () => 'x'),
    (e: unknown) =>
      e instanceof JanusError &&
      e.code === 'SCHEMA' &&
      e.message.includes('tool "x" input: an object of schemas, one per property, needs a schema for every property; "limit" is not one') &&
      e.message.includes('z.object({ … })'),
  );
});
