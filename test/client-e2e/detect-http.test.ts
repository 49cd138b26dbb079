/**
 * Era evidence that only exists on HTTP: the status a JSON-RPC error rides on, and bodies
 * that are empty or not MCP's (docs/2026-07-28/basic/transports/streamable-http.mdx
 * §Backward Compatibility; versioning.mdx §Backward Compatibility, a dual-era client on HTTP):
 * 1. send a modern request; 2. on 400 a recognised modern error is acted on, an empty or
 * unrecognised body means initialize; 3. initialize failing with 400/404/405 *and no modern
 * body* means try the 2024-11-05 GET; 4. a 404 carrying -32601 is a modern server.
 * Raw node:http servers script each answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChannelError, McpError } from '../../src/errors/index.js';
import { connect } from '../../src/client/index.js';
import type { Msg } from '../support/common.js';
import { json } from '../support/http.js';
import { discoverResult, rawServer, recordingFetch } from './support.js';

type Reply = { status: number; body?: Msg | string };
const err = (code: number, data?: Msg): Msg => ({
  jsonrpc: '2.0',
  id: null,
  error: { code, message: `error ${code}`, ...(data ? { data } : {}) },
});

/** A server that answers server/discover and initialize as scripted, and everything else like a healthy server of the era it admits to. */
async function scripted(probe: Reply, init?: Reply) {
  return rawServer((req, res, body) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const m = JSON.parse(body) as Msg;
    if (m.id === undefined) return void res.writeHead(202).end();
    const modern = m.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined;
    const reply = (r: Reply) => {
      if (r.body === undefined) return void res.writeHead(r.status).end();
      if (typeof r.body === 'string') return void res.writeHead(r.status, { 'content-type': 'text/plain' }).end(r.body);
      json(res, r.status, 'error' in r.body ? { ...r.body, id: m.id } : { jsonrpc: '2.0', id: m.id, result: r.body });
    };
    if (m.method === 'server/discover') return reply(probe);
    if (m.method === 'initialize') {
      if (init) return reply(init);
      return json(
        res,
        200,
        {
          jsonrpc: '2.0',
          id: m.id,
          result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'legacy', version: '1' } },
        },
        { 'mcp-session-id': 's-1' },
      );
    }
    if (m.method === 'tools/list')
      return json(res, 200, {
        jsonrpc: '2.0',
        id: m.id,
        result: {
          tools: [{ name: modern ? 'modern_tool' : 'legacy_tool', inputSchema: { type: 'object' } }],
          ...(modern ? { resultType: 'complete', ttlMs: 0, cacheScope: 'public' } : {}),
        },
      });
    json(res, 200, { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'nope' } });
  });
}

const verdicts: Array<{ name: string; probe: Reply; era: 'modern' | 'legacy'; version: string }> = [
  { name: '200 DiscoverResult', probe: { status: 200, body: discoverResult() }, era: 'modern', version: '2026-07-28' },
  {
    name: '404 carrying -32601 (a modern server without server/discover)',
    probe: { status: 404, body: err(-32601) },
    era: 'modern',
    version: '2026-07-28',
  },
  {
    name: '200 carrying -32601 (a legacy server answering in-band)',
    probe: { status: 200, body: err(-32601) },
    era: 'legacy',
    version: '2025-11-25',
  },
  { name: '400 without a body', probe: { status: 400 }, era: 'legacy', version: '2025-11-25' },
  { name: '400 with a non-JSON body', probe: { status: 400, body: 'Bad Request: missing session' }, era: 'legacy', version: '2025-11-25' },
  { name: '400 carrying -32000 (no session)', probe: { status: 400, body: err(-32000) }, era: 'legacy', version: '2025-11-25' },
  { name: '400 carrying -32602 (confused by _meta)', probe: { status: 400, body: err(-32602) }, era: 'legacy', version: '2025-11-25' },
  { name: '404 without a body (wants Mcp-Session-Id)', probe: { status: 404 }, era: 'legacy', version: '2025-11-25' },
  { name: '405 without a body', probe: { status: 405 }, era: 'legacy', version: '2025-11-25' },
  {
    name: '400 carrying -32022 that lists only legacy versions',
    probe: { status: 400, body: err(-32022, { supported: ['2025-06-18', '2025-03-26'], requested: '2026-07-28' }) },
    era: 'legacy',
    version: '2025-06-18',
  },
];

for (const v of verdicts) {
  test(`probe answered ${v.name} → ${v.era} ${v.version}`, async (t) => {
    const s = await scripted(v.probe);
    t.after(() => s.close());
    const rec = recordingFetch();
    const client = await connect(s.url, { fetch: rec.fetch });
    try {
      assert.equal(client.era, v.era);
      assert.equal(client.protocolVersion, v.version);
      assert.equal(client.transportKind, 'http');
      assert.equal(rec.posts('initialize').length, v.era === 'legacy' ? 1 : 0);
      if (v.era === 'legacy') assert.equal(rec.posts('initialize')[0]!.body!.params.protocolVersion, v.version);
      // The verdict sticks: later requests go out in that era's shape.
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        [v.era === 'modern' ? 'modern_tool' : 'legacy_tool'],
      );
      assert.equal(rec.posts('server/discover').length, 1, 'decided once, never re-probed');
    } finally {
      await client.close();
      await s.close();
    }
  });
}

for (const code of [-32020, -32021]) {
  test(`probe answered 400 carrying ${code}: raised as McpError ${code}; no initialize, no GET (falling back would hide the real error)`, async (t) => {
    const s = await scripted({ status: 400, body: err(code, code === -32021 ? { requiredCapabilities: { elicitation: {} } } : undefined) });
    t.after(() => s.close());
    const rec = recordingFetch();
    await assert.rejects(connect(s.url, { fetch: rec.fetch }), (e: unknown) => e instanceof McpError && e.code === code);
    assert.deepEqual(
      rec.log.map((e) => `${e.method} ${e.body?.method}`),
      ['POST server/discover'],
    );
    await s.close();
  });
}

test('a server that refuses everything with 404: probe → initialize → GET, and connect() fails with a ChannelError 404 (not an MCP endpoint)', async (t) => {
  const s = await rawServer((_req, res) => void res.writeHead(404).end());
  t.after(() => s.close());
  const rec = recordingFetch();
  await assert.rejects(connect(s.url, { fetch: rec.fetch }), (e: unknown) => e instanceof ChannelError && e.status === 404);
  assert.deepEqual(
    rec.log.map((e) => `${e.method} ${e.body?.method ?? '-'} ${e.status}`),
    ['POST server/discover 404', 'POST initialize 404', 'GET - 404'],
  );
  await s.close();
});

for (const status of [400, 404]) {
  test(`pinned 2025-11-25, initialize answered ${status} carrying -32022 (a modern-only server): McpError -32022 with its supported list, no HTTP+SSE GET (§Backward Compatibility 3: "and no modern body")`, async (t) => {
    const s = await scripted(
      { status: 200, body: discoverResult() },
      { status, body: err(-32022, { supported: ['2026-07-28'], requested: '2025-11-25' }) },
    );
    t.after(() => s.close());
    const rec = recordingFetch();
    await assert.rejects(connect(s.url, { fetch: rec.fetch, protocolVersion: '2025-11-25' }), (e: unknown) => {
      assert.ok(e instanceof McpError, `expected McpError -32022, got ${String(e)}`);
      assert.equal(e.code, -32022);
      assert.deepEqual((e.data as { supported?: unknown }).supported, ['2026-07-28']);
      return true;
    });
    assert.deepEqual(
      rec.log.map((e) => `${e.method} ${e.status}`),
      [`POST ${status}`],
    );
    await s.close();
  });
}
