/**
 * The 2026-07-28 stateless wire (docs/2026-07-28/basic/transports/streamable-http.mdx):
 * statuses per error, lazy JSON vs SSE, cancellation by disconnect, no sessions, 405 for
 * GET/DELETE, and the request-metadata header validation (§Server Validation, conformance
 * http-header-validation and http-custom-header-server-validation).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpServerHandle } from '../../src/transports/http/index.js';
import { JSON_HEADERS } from '../support/http.js';
import { until } from '../support/wait.js';
import { FakeCore, fire, modernHeaders, modernParams, modernRequest, open, post, send, start } from './support.js';

let core: FakeCore;
let srv: HttpServerHandle;
before(async () => {
  core = new FakeCore();
  srv = await start(core);
});
after(() => srv.close());

describe('statuses and content types (§Protocol Version Header, §Sending Messages)', () => {
  it('a plain result comes back as application/json 200 without a session id', async () => {
    const r = await post(srv.url, modernRequest('tools/list'), { ...modernHeaders('tools/list'), 'mcp-session-id': 'ignored' });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.deepEqual(r.json, { jsonrpc: '2.0', id: 1, result: { echo: 'tools/list' } });
    assert.equal(r.headers['mcp-session-id'], undefined);
  });

  it('-32601 → 404, -32602 → 400, -32022 and -32021 → 400, other errors → 200', async () => {
    const cases: Array<[number, number]> = [
      [-32601, 404],
      [-32602, 400],
      [-32022, 400],
      [-32021, 400],
      [-32603, 200],
      [-32002, 200],
    ];
    for (const [code, status] of cases) {
      const r = await post(srv.url, modernRequest('error', { code }), modernHeaders('error'));
      assert.equal(r.status, status, `code ${code}`);
      assert.equal(r.json.error.code, code);
      assert.equal(r.json.id, 1);
    }
  });

  it('a missing _meta skips the header comparison and the core answers -32602 with 400', async () => {
    const r = await post(srv.url, { jsonrpc: '2.0', id: 101, method: 'server/discover', params: {} }, modernHeaders('server/discover'));
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32602);
    assert.equal(r.json.id, 101);
  });

  it('the version header alone selects the modern wire (no session needed)', async () => {
    const r = await post(srv.url, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { ...JSON_HEADERS, 'mcp-protocol-version': 'v999.0.0' });
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32602);
  });

  it('an initialize carrying a modern _meta is modern traffic (404 + -32601 from the core)', async () => {
    const r = await post(srv.url, modernRequest('unknown/method'), modernHeaders('unknown/method'));
    assert.equal(r.status, 404);
    assert.equal(r.json.error.code, -32601);
    const before = core.sessions.length;
    const init = await post(srv.url, modernRequest('initialize', { protocolVersion: '2025-11-25' }), modernHeaders('initialize'));
    assert.equal(init.headers['mcp-session-id'], undefined);
    assert.equal(core.sessions.length, before); // no session was opened
  });

  it('a notification is answered 202 with no body', async () => {
    const r = await post(
      srv.url,
      { jsonrpc: '2.0', method: 'notifications/whatever', params: modernParams() },
      modernHeaders('notifications/whatever'),
    );
    assert.equal(r.status, 202);
    assert.equal(r.text, '');
  });

  it('GET and DELETE are 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await send(srv.url, { method, headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' } });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.allow, 'POST');
    }
  });
});

describe('lazy SSE (§Receiving Messages)', () => {
  it('notifications before the result switch to an SSE stream that the result ends', async () => {
    const s = await open(srv.url, { body: modernRequest('notify', { n: 2 }), headers: modernHeaders('notify') });
    assert.equal(s.status, 200);
    assert.equal(s.res.headers['content-type'], 'text/event-stream');
    assert.equal(s.res.headers['cache-control'], 'no-cache');
    assert.equal(s.res.headers['x-accel-buffering'], 'no');
    await s.waitEnd();
    const msgs = s.messages();
    assert.deepEqual(
      msgs.map((m) => ('method' in m ? m.method : 'result')),
      ['notifications/progress', 'notifications/progress', 'result'],
    );
    assert.ok(s.events.every((e) => e.event === 'message' && e.id === undefined)); // never resumable
  });

  it('a JSON-only client gets just the final response', async () => {
    const r = await post(srv.url, modernRequest('notify', { n: 2 }), { ...modernHeaders('notify'), accept: 'application/json' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.result, { done: 2 });
  });

  it('an SSE-only client gets even a lone result as an SSE event', async () => {
    const s = await open(srv.url, {
      body: modernRequest('tools/list'),
      headers: { ...modernHeaders('tools/list'), accept: 'text/event-stream' },
    });
    assert.equal(s.res.headers['content-type'], 'text/event-stream');
    await s.waitEnd();
    assert.deepEqual(s.messages(), [{ jsonrpc: '2.0', id: 1, result: { echo: 'tools/list' } }]);
  });

  it("sse: 'always' streams every request", async () => {
    const s2 = await start(new FakeCore(), { sse: 'always' });
    try {
      const s = await open(s2.url, { body: modernRequest('tools/list'), headers: modernHeaders('tools/list') });
      assert.equal(s.res.headers['content-type'], 'text/event-stream');
      await s.waitEnd();
      assert.equal(s.messages().length, 1);
    } finally {
      await s2.close();
    }
  });
});

describe('cancellation (§Cancellation: closing the stream cancels the request)', () => {
  it('a client disconnect aborts inbound.signal before any byte was sent', async () => {
    const req = fire(srv.url, { body: modernRequest('wait', { ms: 3000 }, 'c1'), headers: modernHeaders('wait') });
    await until(() => core.seen.find((x) => x.id === 'c1'));
    req.destroy();
    const seen = await until(() => core.seen.find((x) => x.id === 'c1' && x.aborted !== undefined));
    assert.equal(seen.aborted, true);
  });

  it('closing an SSE response stream aborts inbound.signal and drops later messages', async () => {
    const s = await open(srv.url, { body: modernRequest('notify', { n: 100 }, 'c2'), headers: modernHeaders('notify') });
    await s.waitFor(1);
    const seen = core.seen.find((x) => x.id === 'c2')!;
    s.close();
    await until(() => seen.inbound.signal?.aborted);
  });
});

describe('shutdown', () => {
  it("close() asks the core to end this handler's listen streams, then cancels in-flight modern streams", async () => {
    const c = new FakeCore();
    const s2 = await start(c);
    const s = await open(s2.url, { body: modernRequest('notify', { n: 100 }, 'z1'), headers: modernHeaders('notify') });
    await s.waitFor(1);
    const seen = c.seen.find((x) => x.id === 'z1')!;
    assert.equal(seen.inbound.wire, 'modern');
    await s2.close();
    assert.equal(c.endListenerCalls.length, 1);
    assert.equal(c.endListenerCalls[0]!(seen.inbound), true);
    assert.equal(c.endListenerCalls[0]!({ transport: 'stdio', send() {} }), false);
    assert.equal(seen.inbound.signal?.aborted, true);
    await s.waitEnd();
  });
});

describe('request metadata validation (§Server Validation → 400 + -32020)', () => {
  const call = (args: Record<string, unknown>, headers: Record<string, string>, name = 'x_header_tool') =>
    post(srv.url, modernRequest('tools/call', { name, arguments: args }, 42), { ...modernHeaders('tools/call', name), ...headers });

  async function rejected(p: Promise<{ status: number; json: { id?: unknown; error?: { code: number } } }>, why: string) {
    const r = await p;
    assert.equal(r.status, 400, why);
    assert.equal(r.json.error?.code, -32020, why);
    assert.equal(r.json.id, 42, why);
  }
  async function accepted(p: Promise<{ status: number; json: { error?: unknown } }>, why: string) {
    const r = await p;
    assert.equal(r.status, 200, why);
    assert.equal(r.json.error, undefined, why);
  }

  it('MCP-Protocol-Version: missing or different from _meta', async () => {
    const body = modernRequest('tools/list', {}, 42);
    const h = modernHeaders('tools/list');
    delete h['mcp-protocol-version'];
    await rejected(post(srv.url, body, h), 'missing');
    await rejected(post(srv.url, body, { ...h, 'mcp-protocol-version': '2025-11-25' }), 'legacy value');
    const v999 = { jsonrpc: '2.0', id: 42, method: 'tools/list', params: modernParams({}, 'v999.0.0') };
    await rejected(post(srv.url, v999, modernHeaders('tools/list')), 'header 2026, body v999');
  });

  it('Mcp-Method: missing, different, or different in case; header names are case-insensitive', async () => {
    const body = modernRequest('tools/list', {}, 42);
    const h = modernHeaders('tools/list');
    delete h['mcp-method'];
    await rejected(post(srv.url, body, h), 'missing');
    await rejected(post(srv.url, body, { ...h, 'Mcp-Method': 'prompts/list' }), 'different');
    await rejected(post(srv.url, body, { ...h, 'Mcp-Method': 'TOOLS/LIST' }), 'value case');
    await accepted(post(srv.url, body, { ...h, 'MCP-METHOD': 'tools/list' }), 'upper-case name');
    await accepted(post(srv.url, body, { ...h, 'mcp-method': '  tools/list ' }), 'surrounding spaces');
  });

  it('Mcp-Name: required for tools/call, prompts/get, resources/read and tasks/*; compared after trimming and decoding', async () => {
    await rejected(call({}, { 'mcp-name': 'wrong_tool_name' }, 'plain_tool'), 'mismatch');
    const noName = modernHeaders('tools/call');
    await rejected(post(srv.url, modernRequest('tools/call', { name: 'plain_tool', arguments: {} }, 42), noName), 'missing');
    await accepted(call({}, { 'mcp-name': '  plain_tool  ' }, 'plain_tool'), 'surrounding spaces');
    await accepted(call({}, { 'mcp-name': '=?base64?cGxhaW5fdG9vbA==?=' }, 'plain_tool'), 'base64 form');
    const uri = 'file:///a b/ü.txt';
    await accepted(
      post(
        srv.url,
        modernRequest('resources/read', { uri }, 42),
        modernHeaders('resources/read', `=?base64?${Buffer.from(uri).toString('base64')}?=`),
      ),
      'resources/read uri',
    );
    await rejected(
      post(srv.url, modernRequest('resources/read', { uri: 'file:///x' }, 42), modernHeaders('resources/read', 'file:///y')),
      'uri mismatch',
    );
    await rejected(post(srv.url, modernRequest('prompts/get', { name: 'p' }, 42), modernHeaders('prompts/get')), 'prompts/get missing');
    await rejected(post(srv.url, modernRequest('tasks/get', { taskId: 't1' }, 42), modernHeaders('tasks/get', 't2')), 'tasks/get mismatch');
    await accepted(post(srv.url, modernRequest('tasks/cancel', { taskId: 't1' }, 42), modernHeaders('tasks/cancel', 't1')), 'tasks/cancel');
  });

  it('Mcp-Param-*: base64 forms, literals, missing and extra headers', async () => {
    const args = { region: 'Hello' };
    await accepted(call(args, { 'mcp-param-region': 'Hello' }), 'literal');
    await accepted(call(args, { 'Mcp-Param-Region': '=?base64?SGVsbG8=?=' }), 'valid base64');
    await rejected(call(args, { 'mcp-param-region': '=?base64?SGVsbG8?=' }), 'bad padding');
    await rejected(call(args, { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }), 'bad characters');
    await accepted(call({ region: 'SGVsbG8=' }, { 'mcp-param-region': 'SGVsbG8=' }), 'no prefix: literal');
    await accepted(call({ region: '=?base64?SGVsbG8=' }, { 'mcp-param-region': '=?base64?SGVsbG8=' }), 'no suffix: literal');
    await rejected(call(args, { 'mcp-param-region': 'Bye' }), 'mismatch');
    await rejected(call(args, {}), 'header omitted, value in body');
    await accepted(call({ region: null }, {}), 'null argument, no header');
    await rejected(call({}, { 'mcp-param-region': 'Hello' }), 'header without argument');
    await accepted(call({ region: 'Hello, 世界' }, { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' }), 'non-ASCII via base64');
  });

  it('Mcp-Param-*: integers compare numerically, booleans as true/false', async () => {
    await accepted(call({ level: 42 }, { 'mcp-param-level': '42' }), 'integer');
    await accepted(call({ level: 42 }, { 'mcp-param-level': '42.0' }), 'integer, numerically');
    await rejected(call({ level: 42 }, { 'mcp-param-level': '43' }), 'integer mismatch');
    await rejected(call({ level: 42 }, { 'mcp-param-level': 'forty-two' }), 'not a number');
    await accepted(call({ verbose: false }, { 'mcp-param-verbose': 'false' }), 'boolean');
    await rejected(call({ verbose: true }, { 'mcp-param-verbose': 'TRUE' }), 'boolean case');
  });

  it('an unknown tool is left to the core', async () => {
    await accepted(call({}, {}, 'no_such_tool'), 'unknown tool');
  });
});
