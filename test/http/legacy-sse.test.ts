/**
 * The deprecated HTTP+SSE transport of 2024-11-05 (docs/2024-11-05/basic/transports.mdx
 * §HTTP with SSE) on the same endpoint: endpoint event, 202 + answers on the stream, the
 * stream's end closes the session.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpServerHandle } from '../../src/transports/http/index.js';
import { JSON_HEADERS } from '../support/http.js';
import { until } from '../support/wait.js';
import { FakeCore, open, send, start } from './support.js';

let core: FakeCore;
let srv: HttpServerHandle;
before(async () => {
  core = new FakeCore();
  srv = await start(core);
});
after(() => srv.close());

describe('HTTP+SSE (2024-11-05)', () => {
  it('GET without a session id opens the stream; the first event names the POST endpoint', async () => {
    const s = await open(srv.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    assert.equal(s.status, 200);
    assert.equal(s.res.headers['content-type'], 'text/event-stream');
    const [endpoint] = await s.waitFor(1);
    assert.equal(endpoint!.event, 'endpoint');
    assert.match(endpoint!.data, /^\/mcp\?sessionId=[\x21-\x7e]+$/);
    s.close();
  });

  it('GET from a browser or a bare curl (no text/event-stream in Accept) gets 405 at once, saying what the endpoint is', async () => {
    const cases: Array<Record<string, string>> = [
      { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }, // a browser
      { accept: '*/*' }, // curl
      {}, // no Accept at all
      { accept: 'text/event-stream;q=0, */*' },
    ];
    const before = core.sessions.length;
    for (const headers of cases) {
      const r = await send(srv.url, { method: 'GET', headers });
      assert.equal(r.status, 405, JSON.stringify(headers));
      assert.equal(r.headers.allow, 'POST');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.match(r.json.error.message, /Model Context Protocol endpoint/);
      assert.match(r.json.error.message, /POST/);
    }
    assert.equal(core.sessions.length, before, 'no HTTP+SSE session was opened');
  });

  it('POSTs to the endpoint get 202 and their answers arrive on the stream', async () => {
    const s = await open(srv.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    const [endpoint] = await s.waitFor(1);
    const path = endpoint!.data;
    const init = await send(srv.url, {
      path,
      body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05' } },
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(init.status, 202);
    assert.equal(init.text, '');
    await s.waitFor(2);
    assert.equal(s.events[1]!.event, 'message');
    assert.deepEqual(s.messages()[0], {
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'fake', version: '1' } },
    });
    const n = await send(srv.url, { path, body: { jsonrpc: '2.0', id: 1, method: 'notify', params: { n: 1 } }, headers: JSON_HEADERS });
    assert.equal(n.status, 202);
    await s.waitFor(4);
    assert.deepEqual(
      s
        .messages()
        .slice(1)
        .map((m) => ('method' in m ? m.method : 'result')),
      ['notifications/progress', 'result'],
    );
    const seen = core.seen.find((x) => x.method === 'notify' && x.inbound.transport === 'sse');
    assert.ok(seen);
    s.close();
    await until(() => seen.inbound.signal?.aborted); // the stream's end aborts the inbound
    await until(() => seen.inbound.channel?.closed); // ... and closes the session
    const late = await send(srv.url, { path, body: { jsonrpc: '2.0', id: 2, method: 'x' }, headers: JSON_HEADERS });
    assert.equal(late.status, 404);
  });

  it('unknown sessionId → 404; malformed JSON → 400', async () => {
    const r = await send(srv.url, { path: '/mcp?sessionId=nope', body: '{}', headers: JSON_HEADERS });
    assert.equal(r.status, 404);
    const s = await open(srv.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    const [endpoint] = await s.waitFor(1);
    const bad = await send(srv.url, { path: endpoint!.data, body: '{', headers: JSON_HEADERS });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.code, -32700);
    s.close();
  });

  it('server shutdown ends open streams', async () => {
    const c = new FakeCore();
    const s2 = await start(c);
    const s = await open(s2.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    await s.waitFor(1);
    await s2.close();
    await s.waitEnd();
    assert.equal(c.sessions[0]!.closed, true);
  });
});
