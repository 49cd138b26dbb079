/**
 * The web-standard handler gives the same answers as the Node handler: both drive the same
 * runtime-neutral handler through their own adapter.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createFetchHandler, type FetchHandler, type HttpServerHandle } from '../../src/transports/http/index.js';
import { JSON_HEADERS } from '../support/http.js';
import { until } from '../support/wait.js';
import { FakeCore, modernHeaders, modernRequest, modernRequestOfSize, send, start, type Req } from './support.js';

const LIMIT = 2048;
let fetchHandler: FetchHandler;
let fetchCore: FakeCore;
let srv: HttpServerHandle;
before(async () => {
  fetchCore = new FakeCore();
  fetchHandler = createFetchHandler(fetchCore, { maxBodyBytes: LIMIT });
  srv = await start(new FakeCore(), { maxBodyBytes: LIMIT, dnsRebindingProtection: false });
});
after(async () => {
  await fetchHandler.close();
  await srv.close();
});

function toRequest(r: Req): Request {
  const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  return new Request(`http://127.0.0.1:9${r.path ?? '/mcp'}`, { method: r.method ?? 'POST', headers: r.headers, body });
}

async function viaFetch(r: Req): Promise<{ status: number; json: unknown; contentType: string | null; sessionId: string | null }> {
  const res = await fetchHandler(toRequest(r));
  const text = await res.text();
  return {
    status: res.status,
    json: text === '' ? undefined : JSON.parse(text),
    contentType: res.headers.get('content-type'),
    sessionId: res.headers.get('mcp-session-id'),
  };
}

/** Each case: what both handlers must answer with, status first (so a shared mistake fails too). */
const CASES: Array<[string, Req, number]> = [
  ['modern result', { body: modernRequest('tools/list'), headers: modernHeaders('tools/list') }, 200],
  ['modern -32601 → 404', { body: modernRequest('unknown/method'), headers: modernHeaders('unknown/method') }, 404],
  ['header mismatch → 400/-32020', { body: modernRequest('tools/list'), headers: modernHeaders('prompts/list') }, 400],
  [
    'Mcp-Param base64 mismatch',
    {
      body: modernRequest('tools/call', { name: 'x_header_tool', arguments: { region: 'Hello' } }),
      headers: { ...modernHeaders('tools/call', 'x_header_tool'), 'mcp-param-region': '=?base64?SGVsbG8?=' },
    },
    400,
  ],
  ['legacy request without session → 400', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: JSON_HEADERS }, 400],
  [
    'unknown session → 404',
    { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { ...JSON_HEADERS, 'mcp-session-id': 'x' } },
    404,
  ],
  ['parse error → 400/-32700', { body: '{', headers: JSON_HEADERS }, 400],
  ['415', { body: '{}', headers: { 'content-type': 'text/plain' } }, 415],
  ['406', { body: '{}', headers: { 'content-type': 'application/json', accept: 'text/html' } }, 406],
  ['a body of exactly maxBodyBytes is read', { body: modernRequestOfSize(LIMIT), headers: modernHeaders('x') }, 200],
  ['413: one byte over maxBodyBytes', { body: modernRequestOfSize(LIMIT + 1), headers: modernHeaders('x') }, 413],
  ['PUT → 405', { method: 'PUT', body: '{}', headers: JSON_HEADERS }, 405],
  ['modern GET → 405', { method: 'GET', headers: { 'mcp-protocol-version': '2026-07-28', accept: 'text/event-stream' } }, 405],
  [
    'notification → 202',
    { body: { jsonrpc: '2.0', method: 'notifications/x' }, headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28' } },
    202,
  ],
];

describe('fetch handler ≡ node handler', () => {
  for (const [name, r, status] of CASES) {
    it(name, async () => {
      const [a, b] = await Promise.all([viaFetch(r), send(srv.url, r)]);
      assert.deepEqual([a.status, b.status], [status, status]);
      assert.deepEqual(a.json, b.json);
    });
  }

  it('other paths → 404', async () => {
    const res = await fetchHandler(toRequest({ path: '/elsewhere', body: '{}', headers: JSON_HEADERS }));
    assert.equal(res.status, 404);
  });
});

describe('fetch handler: sessions and streams', () => {
  it('legacy session lifecycle: initialize → request → DELETE → 404', async () => {
    const init = await viaFetch({
      body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
      headers: JSON_HEADERS,
    });
    assert.equal(init.status, 200);
    const sid = init.sessionId!;
    assert.match(sid, /^[\x21-\x7e]+$/);
    const h = { ...JSON_HEADERS, 'mcp-session-id': sid };
    assert.equal((await viaFetch({ body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: h })).status, 200);
    assert.equal((await viaFetch({ method: 'DELETE', headers: h })).status, 200);
    assert.equal((await viaFetch({ body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers: h })).status, 404);
  });

  it('SSE with priming, closeStream, and resumption by GET + Last-Event-ID', async () => {
    const init = await viaFetch({
      body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
      headers: JSON_HEADERS,
    });
    const h = { ...JSON_HEADERS, 'mcp-session-id': init.sessionId! };
    const res = await fetchHandler(
      toRequest({ body: { jsonrpc: '2.0', id: 'f1', method: 'close-stream', params: { ms: 30 } }, headers: h }),
    );
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const first = await res.text();
    const id = /^id: (.+)$/m.exec(first)![1]!;
    assert.match(first, /^retry: 1000$/m);
    const again = await fetchHandler(
      toRequest({ method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': init.sessionId!, 'last-event-id': id } }),
    );
    const rest = await again.text();
    assert.match(rest, /"id":"f1","result":\{"reconnected":true\}/);
  });

  it('cancelling the response body of a modern SSE stream aborts inbound.signal', async () => {
    const res = await fetchHandler(toRequest({ body: modernRequest('notify', { n: 100 }, 'f2'), headers: modernHeaders('notify') }));
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    const seen = fetchCore.seen.find((x) => x.id === 'f2')!;
    await until(() => seen.inbound.signal?.aborted);
  });

  it('dnsRebindingProtection: true checks Host against loopback names', async () => {
    const guarded = createFetchHandler(new FakeCore(), { dnsRebindingProtection: true });
    const evil = await guarded(
      new Request('http://127.0.0.1:9/mcp', {
        method: 'POST',
        headers: { ...modernHeaders('tools/list'), host: 'evil.example.com' },
        body: JSON.stringify(modernRequest('tools/list')),
      }),
    );
    assert.equal(evil.status, 403);
    const ok = await guarded(
      new Request('http://127.0.0.1:9/mcp', {
        method: 'POST',
        headers: { ...modernHeaders('tools/list'), host: 'localhost:9' },
        body: JSON.stringify(modernRequest('tools/list')),
      }),
    );
    assert.equal(ok.status, 200);
    await guarded.close();
  });
});
