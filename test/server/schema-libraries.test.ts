/**
 * Every schema library the README names works end to end: Zod 4.6,
 * 4.1 and 4.0, Zod 3.25's `zod/v4`, Valibot wrapped with `toStandardJsonSchema`, ArkType and
 * raw JSON Schema 2020-12. For each: registration, the JSON Schema published in
 * `tools/list` (descriptions kept), validation of good and bad tool arguments (bad ones are
 * a tool execution error the model can correct, 2025-11-25 server/tools.mdx §Error
 * Handling) and of prompt arguments (-32602, server/prompts.mdx §Error Handling).
 * Zod 4.0/4.1/3.25 predate Standard JSON Schema and go through `zod/v4/core`'s converter.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z40 } from 'zod-4.0';
import { z as z41 } from 'zod-4.1';
import { z as z325 } from 'zod-3.25/v4';
import { createServer, type SchemaInput } from '../../src/server/index.js';
import type { Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';

const NAME = 'Who to greet';

interface Library {
  /** Tool arguments: `name` (a described string), `times` (an optional integer of at least 1). */
  tool: SchemaInput;
  /** Prompt arguments: `name` (a described string of at least 2 characters). */
  prompt: SchemaInput;
}

const LIBRARIES: Record<string, Library> = {
  'Zod 4.6': {
    tool: z.object({ name: z.string().describe(NAME), times: z.number().int().min(1).optional() }),
    prompt: z.object({ name: z.string().min(2).describe(NAME) }),
  },
  'Zod 4.1': {
    tool: z41.object({ name: z41.string().describe(NAME), times: z41.number().int().min(1).optional() }),
    prompt: z41.object({ name: z41.string().min(2).describe(NAME) }),
  },
  'Zod 4.0': {
    tool: z40.object({ name: z40.string().describe(NAME), times: z40.number().int().min(1).optional() }),
    prompt: z40.object({ name: z40.string().min(2).describe(NAME) }),
  },
  "Zod 3.25's zod/v4": {
    tool: z325.object({ name: z325.string().describe(NAME), times: z325.number().int().min(1).optional() }),
    prompt: z325.object({ name: z325.string().min(2).describe(NAME) }),
  },
  'Valibot (toStandardJsonSchema)': {
    tool: toStandardJsonSchema(
      v.object({
        name: v.pipe(v.string(), v.description(NAME)),
        times: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      }),
    ),
    prompt: toStandardJsonSchema(v.object({ name: v.pipe(v.string(), v.minLength(2), v.description(NAME)) })),
  },
  ArkType: {
    tool: type({ name: type('string').describe(NAME), 'times?': 'number.integer >= 1' }),
    prompt: type({ name: type('string >= 2').describe(NAME) }),
  },
  'raw JSON Schema 2020-12': {
    tool: {
      type: 'object',
      properties: { name: { type: 'string', description: NAME }, times: { type: 'integer', minimum: 1 } },
      required: ['name'],
    },
    prompt: { type: 'object', properties: { name: { type: 'string', minLength: 2, description: NAME } }, required: ['name'] },
  },
};

function withServer(lib: Library, fn: (peer: MemoryPeer) => Promise<void>): Promise<void> {
  const server = createServer({ name: 'schemas', version: '1.0.0' });
  server.tool('greet', { input: lib.tool }, (args) => {
    const { name, times } = args as { name: string; times?: number };
    return `hello ${name}${times ? ` x${times}` : ''}`;
  });
  server.prompt('introduce', { arguments: lib.prompt }, (args) => `Introduce ${(args as { name: string }).name}`);
  return withMemoryPeer(server, fn, { revision: '2025-11-25', handshake: {} });
}

const call = (peer: MemoryPeer, args: Record<string, unknown>) => peer.request('tools/call', { name: 'greet', arguments: args });

for (const [library, lib] of Object.entries(LIBRARIES)) {
  test(`${library}: tools/list publishes the JSON Schema with an object root, the description and the constraints`, async () => {
    await withServer(lib, async (peer) => {
      const [tool] = (await peer.call('tools/list')).tools as Msg[];
      const schema = tool!.inputSchema;
      assert.equal(schema.type, 'object');
      assert.equal(schema.properties.name.type, 'string');
      assert.equal(schema.properties.name.description, NAME, 'the description is kept');
      assert.equal(schema.properties.times.type, 'integer');
      assert.equal(schema.properties.times.minimum, 1);
      assert.deepStrictEqual(schema.required, ['name']);
    });
  });

  test(`${library}: good tool arguments reach the handler; bad ones are a tool error naming the field`, async () => {
    await withServer(lib, async (peer) => {
      assert.deepStrictEqual((await call(peer, { name: 'Ada', times: 2 })).result, { content: [{ type: 'text', text: 'hello Ada x2' }] });
      for (const [bad, field] of [
        [{ name: 5 }, 'name'],
        [{ name: 'Ada', times: 0 }, 'times'],
        [{}, 'name'],
      ] as const) {
        const r = await call(peer, bad);
        assert.equal(r.error, undefined, JSON.stringify(r));
        assert.equal(r.result.isError, true, JSON.stringify(bad));
        assert.match(r.result.content[0].text, new RegExp(`^Invalid arguments for tool greet: .*${field}`), JSON.stringify(bad));
      }
    });
  });

  test(`${library}: prompt arguments come from the schema (with the description) and are validated: -32602`, async () => {
    await withServer(lib, async (peer) => {
      const [prompt] = (await peer.call('prompts/list')).prompts as Msg[];
      assert.deepStrictEqual(prompt!.arguments, [{ name: 'name', description: NAME, required: true }]);
      const ok = await peer.call('prompts/get', { name: 'introduce', arguments: { name: 'Ada' } });
      assert.deepStrictEqual(ok.messages, [{ role: 'user', content: { type: 'text', text: 'Introduce Ada' } }]);
      const bad = await peer.request('prompts/get', { name: 'introduce', arguments: { name: 'A' } });
      assert.equal(bad.error?.code, -32602, JSON.stringify(bad));
      assert.match(bad.error.message, /prompt "introduce": invalid arguments: .*name/);
    });
  });
}
