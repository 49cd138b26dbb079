/**
 * Registration is where definitions fail, never at call time: a schema
 * whose root is not an object (Tool.inputSchema: `type: "object"` is required at the root,
 * schema/2026-07-28), a schema library without JSON Schema output, an invalid JSON Schema,
 * an invalid `x-mcp-header` annotation (docs/2026-07-28/server/tools.mdx §x-mcp-header),
 * a bad tool name (2025-11-25 server/tools.mdx §Tool Names) or a duplicate. A failed
 * registration leaves the registry as it was.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z3 } from 'zod-3.25';
import { z as z40 } from 'zod-4.0';
import { JanusError } from '../../src/errors/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import { withMemoryPeer } from '../support/peer.js';

const fresh = (): Server => createServer({ name: 'registration', version: '1.0.0' });

function janus(pattern: RegExp, code?: string): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof JanusError, `expected a JanusError, got ${String(e)}`);
    assert.match(e.message, pattern);
    if (code) assert.equal(e.code, code);
    return true;
  };
}

test('a schema whose root is not an object fails at registration with a JanusError naming the tool and what to declare', () => {
  const server = fresh();
  const roots = [
    z.string(),
    z.array(z.number()),
    z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]),
    z40.string(),
    type('string'),
    type('string[]'),
    toStandardJsonSchema(v.string()),
  ];
  for (const input of roots) {
    assert.throws(
      () => server.tool('bad_root', { input }, () => 'x'),
      janus(/tool "bad_root" input: the JSON Schema root must have "type": "object".*declare an object schema/, 'SCHEMA'),
    );
  }
  assert.throws(() => server.prompt('bad_prompt', { arguments: z.string() }, () => 'x'), janus(/prompt "bad_prompt" arguments/));
  assert.throws(() => server.tool('bad_output', { output: z.string() }, () => 'x'), janus(/tool "bad_output" output/));
});

test('a raw JSON Schema must have an object root and be a valid schema', () => {
  const server = fresh();
  assert.throws(() => server.tool('arr', { input: { type: 'array' } }, () => 'x'), janus(/root must have "type": "object"/));
  assert.throws(() => server.tool('untyped', { input: { properties: {} } }, () => 'x'), janus(/root must have "type": "object"/));
  assert.throws(
    () => server.tool('invalid', { input: { type: 'object', properties: { a: { type: 'nonsense' } } } }, () => 'x'),
    janus(/not a valid JSON Schema/),
  );
});

const WHAT_WORKS =
  /What works: Zod 4 \(or Zod 3\.25's 'zod\/v4'\), ArkType 2\.1\.28 or later, a Valibot schema wrapped with toStandardJsonSchema\(\) .* or a raw JSON Schema 2020-12 object/;
const opaque = (vendor: string) => ({ '~standard': { version: 1, vendor, validate: (value: unknown) => ({ value }) } }) as const;

test('a Standard Schema that cannot produce JSON Schema is refused, naming what works', () => {
  assert.throws(
    () => fresh().tool('opaque', { input: opaque('opaque-lib') }, () => 'x'),
    janus(/opaque-lib schema cannot produce JSON Schema \(it does not implement Standard JSON Schema/, 'SCHEMA'),
  );
  assert.throws(() => fresh().tool('opaque', { input: opaque('opaque-lib') }, () => 'x'), janus(WHAT_WORKS));
  assert.throws(
    () => fresh().prompt('opaque', { arguments: opaque('opaque-lib') }, () => 'x'),
    janus(/prompt "opaque" arguments: .*What works/),
  );
});

test('the libraries recognised by ~standard.vendor get the exact fix: classic Zod 3, plain Valibot, an ArkType without JSON Schema', () => {
  const cases: Array<[string, object, RegExp]> = [
    [
      "classic Zod 3 (import { z } from 'zod' of 3.25)",
      z3.object({ a: z3.string() }),
      /this is a Zod 3 schema, which cannot produce JSON Schema: import \{ z \} from 'zod\/v4' \(Zod 3\.25 or later\) or upgrade to Zod 4/,
    ],
    ['Valibot not wrapped', v.object({ a: v.string() }), /wrap it with toStandardJsonSchema\(schema\) from '@valibot\/to-json-schema'/],
    ['ArkType before 2.1.28', opaque('arktype'), /upgrade to arktype 2\.1\.28 or later/],
  ];
  for (const [what, input, fix] of cases) {
    assert.throws(() => fresh().tool('lib', { input: input as never }, () => 'x'), janus(fix, 'SCHEMA'), what);
    assert.throws(() => fresh().tool('lib', { input: input as never }, () => 'x'), janus(WHAT_WORKS), what);
  }
});

test('an object that is neither JSON Schema data nor a Standard Schema (a class instance) is refused, naming what works', () => {
  class LegacySchema {
    type = 'object';
    parse(v: unknown) {
      return v;
    }
  }
  assert.throws(
    () => fresh().tool('legacy', { input: new LegacySchema() as never }, () => 'x'),
    janus(/neither JSON Schema data nor a Standard Schema.*What works/, 'SCHEMA'),
  );
});

test("a conversion the library refuses (a Date in the arguments) names the tool and the library's reason", () => {
  assert.throws(
    () => fresh().tool('dated', { input: z.object({ when: z.date() }) }, () => 'x'),
    janus(/tool "dated" input: cannot convert the zod schema to JSON Schema: .*Date/, 'SCHEMA'),
  );
  assert.throws(
    () => fresh().tool('dated', { input: z40.object({ when: z40.date() }) }, () => 'x'),
    janus(/tool "dated" input: cannot convert the zod schema to JSON Schema: .*Date/, 'SCHEMA'),
  );
});

test('invalid x-mcp-header annotations fail at registration (2026-07-28 server/tools.mdx §x-mcp-header constraints)', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['empty name', { region: { type: 'string', 'x-mcp-header': '' } }],
    ['not a token', { region: { type: 'string', 'x-mcp-header': 'My Region' } }],
    ['type number', { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } }],
    ['type object', { obj: { type: 'object', 'x-mcp-header': 'Obj' } }],
    ['duplicate, case-insensitive', { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } }],
    ['inside items', { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }],
  ];
  for (const [why, properties] of cases) {
    assert.throws(
      () => fresh().tool('hdr', { input: { type: 'object', properties } }, () => 'x'),
      janus(/tool "hdr": x-mcp-header/, 'REGISTRATION'),
      why,
    );
  }
  const viaAnyOf = { type: 'object', properties: {}, anyOf: [{ properties: { r: { type: 'string', 'x-mcp-header': 'R' } } }] };
  assert.throws(() => fresh().tool('hdr', { input: viaAnyOf }, () => 'x'), janus(/not statically reachable/), 'through a composition');
});

test('valid x-mcp-header annotations register: string, integer, boolean, nested through properties', () => {
  const server = fresh();
  server.tool(
    'hdr',
    {
      input: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          count: { type: 'integer', 'x-mcp-header': 'Count' },
          flag: { type: ['boolean', 'null'], 'x-mcp-header': 'Flag' },
          nested: { type: 'object', properties: { id: { type: 'string', 'x-mcp-header': 'Nested-Id' } } },
        },
      },
    },
    () => 'ok',
  );
});

test('tool names are 1-128 of A-Z a-z 0-9 _ - . /, and each is registered once', () => {
  const server = fresh();
  for (const name of ['', 'has space', 'x'.repeat(129), 'émoji']) {
    assert.throws(() => server.tool(name, () => 'x'), janus(/tool name/, 'REGISTRATION'), JSON.stringify(name));
  }
  server.tool('a.b/c-d_e', () => 'x');
  assert.throws(() => server.tool('a.b/c-d_e', () => 'x'), janus(/already registered/, 'REGISTRATION'));
  server.prompt('p', () => 'x');
  assert.throws(() => server.prompt('p', () => 'x'), janus(/already registered/));
  server.resource('test://r', { name: 'R' }, 'r');
  assert.throws(() => server.resource('test://r', { name: 'R' }, 'r'), janus(/already registered/));
  assert.throws(() => server.resource('test://no-name', {} as never, 'r'), janus(/needs a name/));
});

test('createServer needs a name and a version', () => {
  assert.throws(() => createServer({} as never), janus(/name, version/, 'REGISTRATION'));
});

test('a failed registration or update leaves the registry and the clients untouched', async () => {
  const server = fresh();
  const reg = server.tool('keep', { description: 'original' }, () => 'x');
  await withMemoryPeer(
    server,
    async (peer) => {
      assert.throws(() => server.tool('broken', { input: z.string() as never }, () => 'x'));
      assert.throws(() => reg.update({ input: { type: 'array' } as never }));
      const tools = (await peer.request('tools/list')).result.tools;
      assert.deepStrictEqual(tools, [{ name: 'keep', description: 'original', inputSchema: { type: 'object', properties: {} } }]);
      await peer.assertNone((m) => m.method === 'notifications/tools/list_changed', 'list_changed for a failed registration');
    },
    { revision: '2025-11-25', handshake: {} },
  );
});

test('Zod arguments are validated and transformed before the handler runs; failures name the path', async () => {
  const server = fresh();
  server.tool(
    'greet',
    { input: z.object({ name: z.string().default('world'), times: z.number().int().min(1).optional() }) },
    ({ name, times }) => `hello ${name}${times ? ` x${times}` : ''}`,
  );
  await withMemoryPeer(
    server,
    async (peer) => {
      const ok = await peer.request('tools/call', { name: 'greet', arguments: {} });
      assert.deepStrictEqual(ok.result, { content: [{ type: 'text', text: 'hello world' }] });
      const bad = await peer.request('tools/call', { name: 'greet', arguments: { times: 0 } });
      assert.equal(bad.result.isError, true);
      assert.match(bad.result.content[0].text, /times/);
    },
    { revision: '2025-06-18', handshake: {} },
  );
});
