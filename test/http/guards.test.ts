/**
 * Transport guards: DNS-rebinding protection (transports §Security Warning, conformance
 * dns-rebinding-protection), media types, body limit, methods and paths.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { parseAccept } from '../../src/transports/http/guards.js';
import type { HttpServerHandle } from '../../src/transports/http/index.js';
import { FakeCore, JSON_CT, modernHeaders, modernRequest, post, send, start } from './support.js';

describe('DNS-rebinding protection on a loopback server (2025-11-25 transports §Security Warning)', () => {
  let srv: HttpServerHandle;
  before(async () => {
    srv = await start(new FakeCore());
  });
  after(() => srv.close());

  it('refuses a foreign Host with 403 and a JSON-RPC error body without id', async () => {
    const r = await send(srv.url, { body: modernRequest('server/discover'), headers: { ...modernHeaders('server/discover'), host: 'evil.example.com' } });
    assert.equal(r.status, 403);
    assert.equal(r.json.jsonrpc, '2.0');
    assert.equal(typeof r.json.error.code, 'number');
    assert.equal('id' in r.json, false);
  });

  it('refuses a foreign Origin with 403 even with a good Host', async () => {
    const r = await post(srv.url, modernRequest('server/discover'), { ...modernHeaders('server/discover'), origin: 'http://evil.example.com' });
    assert.equal(r.status, 403);
  });

  it('refuses Host with the wrong port and the opaque Origin "null"', async () => {
    const a = await send(srv.url, { body: modernRequest('server/discover'), headers: { ...modernHeaders('server/discover'), host: `127.0.0.1:${srv.port + 1}` } });
    assert.equal(a.status, 403);
    const b = await post(srv.url, modernRequest('server/discover'), { ...modernHeaders('server/discover'), origin: 'null' });
    assert.equal(b.status, 403);
  });

  it('accepts its own host and loopback origins (localhost, 127.0.0.1, [::1])', async () => {
    for (const host of [`127.0.0.1:${srv.port}`, `localhost:${srv.port}`, `[::1]:${srv.port}`]) {
      const r = await send(srv.url, {
        body: modernRequest('server/discover'),
        headers: { ...modernHeaders('server/discover'), host, origin: `http://${host}` },
      });
      assert.equal(r.status, 200, host);
    }
  });
});

describe('configured and disabled DNS-rebinding protection', () => {
  it('allowedHosts replaces the loopback defaults', async () => {
    const srv = await start(new FakeCore(), { allowedHosts: ['mcp.example.com'] });
    try {
      const ok = await send(srv.url, { body: modernRequest('x'), headers: { ...modernHeaders('x'), host: 'mcp.example.com:1234', origin: 'https://mcp.example.com' } });
      assert.equal(ok.status, 200);
      const bad = await send(srv.url, { body: modernRequest('x'), headers: { ...modernHeaders('x'), host: `127.0.0.1:${srv.port}` } });
      assert.equal(bad.status, 403);
    } finally {
      await srv.close();
    }
  });

  it('dnsRebindingProtection: false lets any Host and Origin through', async () => {
    const srv = await start(new FakeCore(), { dnsRebindingProtection: false });
    try {
      const r = await send(srv.url, { body: modernRequest('x'), headers: { ...modernHeaders('x'), host: 'evil.example.com', origin: 'http://evil.example.com' } });
      assert.equal(r.status, 200);
    } finally {
      await srv.close();
    }
  });
});

describe('media types, body limit, methods and paths', () => {
  let srv: HttpServerHandle;
  before(async () => {
    srv = await start(new FakeCore(), { maxBodyBytes: 1024 });
  });
  after(() => srv.close());

  it('415 when Content-Type is not application/json', async () => {
    const r = await send(srv.url, { body: modernRequest('x'), headers: { ...modernHeaders('x'), 'content-type': 'text/plain' } });
    assert.equal(r.status, 415);
    assert.equal(r.json.error.code, -32600);
  });

  it('accepts application/json with parameters', async () => {
    const r = await send(srv.url, { body: modernRequest('x'), headers: { ...modernHeaders('x'), 'content-type': 'application/json; charset=utf-8' } });
    assert.equal(r.status, 200);
  });

  it('406 when Accept allows neither JSON nor SSE; missing Accept and */* allow both', async () => {
    const bad = await send(srv.url, { body: modernRequest('x'), headers: { ...modernHeaders('x'), accept: 'text/html' } });
    assert.equal(bad.status, 406);
    const star = await send(srv.url, { body: modernRequest('x'), headers: { ...modernHeaders('x'), accept: '*/*' } });
    assert.equal(star.status, 200);
    const h = modernHeaders('x');
    delete h.accept;
    const none = await send(srv.url, { body: modernRequest('x'), headers: h });
    assert.equal(none.status, 200);
  });

  it('413 from Content-Length alone, without reading the body', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ hostname: '127.0.0.1', port: srv.port, path: '/mcp', method: 'POST', headers: { ...JSON_CT, 'content-length': String(10 * 1024 * 1024) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"jsonrpc":'); // the rest never comes
    });
    assert.equal(status, 413);
  });

  it('413 for a chunked body that grows past the limit', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ hostname: '127.0.0.1', port: srv.port, path: '/mcp', method: 'POST', headers: { ...JSON_CT, 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('x'.repeat(800));
      setTimeout(() => req.write('x'.repeat(800)), 20);
    });
    assert.equal(status, 413);
  });

  it('400 with -32700 and no id for malformed JSON and for an empty body', async () => {
    for (const body of ['{"jsonrpc": "2.0", "id": 1,', '']) {
      const r = await send(srv.url, { body, headers: JSON_CT });
      assert.equal(r.status, 400);
      assert.equal(r.json.error.code, -32700);
      assert.equal('id' in r.json, false);
    }
  });

  it('405 with an Allow header for other HTTP methods', async () => {
    const r = await send(srv.url, { method: 'PUT', body: '{}', headers: JSON_CT });
    assert.equal(r.status, 405);
    assert.equal(r.headers.allow, 'GET, POST, DELETE');
  });

  it('404 for other paths', async () => {
    const r = await send(srv.url, { path: '/other', body: modernRequest('x'), headers: modernHeaders('x') });
    assert.equal(r.status, 404);
    assert.notEqual(r.json?.error?.code, -32601); // a -32601 body would claim a modern server
  });

  it('survives a client that aborts mid-body', async () => {
    await new Promise<void>((resolve) => {
      const req = http.request({ hostname: '127.0.0.1', port: srv.port, path: '/mcp', method: 'POST', headers: { ...JSON_CT, 'content-length': '500' } });
      req.on('error', () => resolve());
      req.write('{"jsonrpc":"2.0",');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 20);
    });
    const r = await post(srv.url, modernRequest('x'), modernHeaders('x'));
    assert.equal(r.status, 200);
  });
});

describe('parseAccept', () => {
  it('reads media ranges, wildcards and q=0', () => {
    assert.deepEqual(parseAccept(undefined), { json: true, sse: true });
    assert.deepEqual(parseAccept('application/json'), { json: true, sse: false });
    assert.deepEqual(parseAccept('text/event-stream'), { json: false, sse: true });
    assert.deepEqual(parseAccept('application/*, text/*'), { json: true, sse: true });
    assert.deepEqual(parseAccept('application/json;q=0, text/event-stream'), { json: false, sse: true });
    assert.deepEqual(parseAccept('text/html'), { json: false, sse: false });
  });
});
