/**
 * The request-metadata headers of 2026-07-28 over real HTTP (basic/transports/
 * streamable-http.mdx §Request Metadata, §Value Encoding, §Custom Headers from Tool
 * Parameters; server/tools.mdx §x-mcp-header), seen through a recording `fetch`:
 * MCP-Protocol-Version and Mcp-Method on every request, Mcp-Name on tools/call,
 * prompts/get and resources/read only, Mcp-Param-* mirrored from annotated arguments
 * (base64 for unsafe values, omitted for null/absent); tools with invalid annotations are
 * dropped from listTools on modern HTTP only; a -32020 makes the client re-list and retry.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { createServer } from '../../src/server/index.js';
import { textOf } from '../client/helpers.js';
import type { Msg } from '../support/common.js';
import { json } from '../support/http.js';
import { discoverResult, rawServer, recordingFetch, serveFixture } from './support.js';

const ROUTE_INPUT = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
    note: { type: ['string', 'null'], 'x-mcp-header': 'Note' },
    where: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
    free: { type: 'string' },
  },
};

function headerServer() {
  const server = createServer({ name: 'headers', version: '1', onError: () => {} });
  server.tool('route', { input: ROUTE_INPUT }, (args) => JSON.stringify(args));
  server.resource('mem://café/ünï', { name: 'accented' }, 'accented text');
  server.prompt('greet', { arguments: [{ name: 'name' }] }, ({ name }) => `Hello, ${name}!`);
  return server;
}

/** `=?base64?…?=` → its UTF-8 text (§Value Encoding); anything else unchanged. */
function decode(v: string | undefined): string | undefined {
  const m = v === undefined ? null : /^=\?base64\?(.*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
}

test('modern HTTP: MCP-Protocol-Version + Mcp-Method on every request, Mcp-Name only where the method names something, base64 for unsafe names', async (t) => {
  const s = await serveFixture({}, {}, headerServer());
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { fetch: rec.fetch });
  try {
    await client.listTools();
    await client.listResources();
    await client.readResource('mem://café/ünï');
    await client.getPrompt('greet', { name: 'Ada' });
    await client.callTool('route', { region: 'eu' });
    const posts = rec.log.filter((e) => e.method === 'POST');
    assert.deepEqual(
      posts.map((e) => e.body!.method),
      ['server/discover', 'tools/list', 'resources/list', 'resources/read', 'prompts/get', 'tools/call'],
    );
    for (const e of posts) {
      assert.equal(e.headers['mcp-protocol-version'], '2026-07-28', e.body!.method);
      assert.equal(e.headers['mcp-method'], e.body!.method);
      assert.equal(e.headers.accept, 'application/json, text/event-stream');
      assert.equal(e.status, 200, `${e.body!.method} was refused by the server: ${e.status}`);
    }
    const name = (m: string) => posts.find((e) => e.body!.method === m)!.headers['mcp-name'];
    assert.equal(name('server/discover'), undefined);
    assert.equal(name('tools/list'), undefined);
    assert.equal(name('resources/list'), undefined);
    assert.equal(name('prompts/get'), 'greet');
    assert.equal(name('tools/call'), 'route');
    // A non-ASCII URI cannot travel raw: base64 of its UTF-8, with the exact lowercase markers.
    assert.match(name('resources/read')!, /^=\?base64\?[A-Za-z0-9+/]+=*\?=$/);
    assert.equal(decode(name('resources/read')), 'mem://café/ünï');
  } finally {
    await client.close();
    await s.close();
  }
});

test('x-mcp-header: Mcp-Param-* mirror the annotated arguments; unsafe values are base64, null and absent ones are omitted; the server accepts every call', async (t) => {
  const s = await serveFixture({}, {}, headerServer());
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { fetch: rec.fetch });
  try {
    await client.listTools();
    const cases: Array<{ args: Msg; expect: Record<string, string | undefined>; raw?: Record<string, boolean> }> = [
      {
        args: { region: 'eu-west-1', count: 42, dry: true, where: { zone: 'b' }, free: 'not mirrored' },
        expect: { region: 'eu-west-1', count: '42', dry: 'true', zone: 'b', note: undefined },
      },
      {
        args: { region: 'Zürich', dry: false, note: null },
        expect: { region: 'Zürich', dry: 'false', count: undefined, note: undefined, zone: undefined },
        raw: { region: false },
      },
      {
        args: { region: ' padded ', note: 'tab\there' },
        expect: { region: ' padded ', note: 'tab\there' },
        raw: { region: false, note: false },
      }, // a tab is a control character: base64
      { args: { region: '=?base64?aGk=?=', count: -7 }, expect: { region: '=?base64?aGk=?=', count: '-7' }, raw: { region: false } },
      {
        args: { region: 'line\nbreak', note: '日本' },
        expect: { region: 'line\nbreak', note: '日本' },
        raw: { region: false, note: false },
      },
    ];
    for (const c of cases) {
      const result = await client.callTool('route', c.args);
      assert.deepEqual(JSON.parse(textOf(result)), c.args, 'the server validated the headers against the body and ran the tool');
      const h = rec.posts('tools/call').at(-1)!.headers;
      for (const [k, v] of Object.entries(c.expect)) {
        const header = h[`mcp-param-${k}`];
        assert.equal(decode(header), v, `Mcp-Param-${k} for ${JSON.stringify(c.args)}`);
        if (c.raw?.[k] === false) assert.match(header!, /^=\?base64\?.*\?=$/, `Mcp-Param-${k} should be base64`);
        if (c.raw?.[k] === true) assert.equal(header, v, `Mcp-Param-${k} should travel as is`);
      }
      assert.equal(h['mcp-param-free'], undefined);
    }
  } finally {
    await client.close();
    await s.close();
  }
});

test('a call before any tools/list gets -32020 from the server; the client re-fetches tools/list and retries once with the Mcp-Param headers (streamable-http.mdx §Custom Headers)', async (t) => {
  const s = await serveFixture({}, {}, headerServer());
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { fetch: rec.fetch });
  try {
    const result = await client.callTool('route', { region: 'ap' });
    assert.deepEqual(JSON.parse(textOf(result)), { region: 'ap' });
    const after = rec.log.slice(1).map((e) => `${e.body?.method} ${e.status}`);
    assert.deepEqual(after, ['tools/call 400', 'tools/list 200', 'tools/call 200']);
    assert.equal(rec.posts('tools/call')[0]!.headers['mcp-param-region'], undefined);
    assert.equal(rec.posts('tools/call')[1]!.headers['mcp-param-region'], 'ap');
  } finally {
    await client.close();
    await s.close();
  }
});

/** Tools whose annotations break one rule each (server/tools.mdx §x-mcp-header constraints). */
const TOOLS: Msg[] = [
  { name: 'good', inputSchema: { type: 'object', properties: { r: { type: 'string', 'x-mcp-header': 'Region' } } } },
  { name: 'plain', inputSchema: { type: 'object', properties: { r: { type: 'string' } } } },
  { name: 'number_type', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } },
  { name: 'not_a_token', inputSchema: { type: 'object', properties: { r: { type: 'string', 'x-mcp-header': 'Bad Header' } } } },
  { name: 'empty_name', inputSchema: { type: 'object', properties: { r: { type: 'string', 'x-mcp-header': '' } } } },
  {
    name: 'duplicate',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } },
    },
  },
  {
    name: 'in_items',
    inputSchema: { type: 'object', properties: { l: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } } },
  },
  { name: 'in_anyof', inputSchema: { type: 'object', properties: { u: { anyOf: [{ type: 'string', 'x-mcp-header': 'U' }] } } } },
  { name: 'object_type', inputSchema: { type: 'object', properties: { o: { type: 'object', 'x-mcp-header': 'O' } } } },
];

/** A raw server that answers either era with TOOLS: our own server refuses to register them. */
async function invalidToolsServer() {
  return rawServer((req, res, body) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const m = JSON.parse(body) as Msg;
    const modern = m.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined;
    if (m.id === undefined) return void res.writeHead(202).end();
    const reply = (result: Msg) => json(res, 200, { jsonrpc: '2.0', id: m.id, result }, modern ? {} : { 'mcp-session-id': 'sess-1' });
    if (m.method === 'server/discover') return reply(discoverResult());
    if (m.method === 'initialize')
      return reply({ protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } });
    if (m.method === 'tools/list')
      return reply(modern ? { resultType: 'complete', tools: TOOLS, ttlMs: 0, cacheScope: 'public' } : { tools: TOOLS });
    json(res, 200, { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'nope' } });
  });
}

test('modern HTTP: tools with invalid x-mcp-header annotations are dropped from listTools, each with a warning; valid and unannotated ones stay', async (t) => {
  const s = await invalidToolsServer();
  t.after(() => s.close());
  const warnings: string[] = [];
  const client = await connect(s.url, { onWarning: (w) => warnings.push(w) });
  try {
    assert.equal(client.era, 'modern');
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['good', 'plain'],
    );
    assert.deepEqual(
      (await client.listAllTools()).map((t) => t.name),
      ['good', 'plain'],
    );
    const dropped = TOOLS.slice(2).map((t) => t.name as string);
    for (const name of dropped)
      assert.ok(
        warnings.some((w) => w.includes(name)),
        `no warning names ${name}: ${warnings.join(' | ')}`,
      );
  } finally {
    await client.close();
    await s.close();
  }
});

test('legacy HTTP session (2025-11-25): x-mcp-header does not exist there, so no tool is dropped', async (t) => {
  const s = await invalidToolsServer();
  t.after(() => s.close());
  const warnings: string[] = [];
  const client = await connect(s.url, { protocolVersion: '2025-11-25', onWarning: (w) => warnings.push(w) });
  try {
    assert.equal(client.era, 'legacy');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      TOOLS.map((t) => t.name),
    );
    assert.deepEqual(warnings, []);
  } finally {
    await client.close();
    await s.close();
  }
});
