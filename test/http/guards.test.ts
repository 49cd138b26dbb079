/**
 * Transport guards: DNS-rebinding protection (transports §Security Warning, conformance
 * dns-rebinding-protection), media types, body limit, methods and paths.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { parseAccept } from '../../src/transports/http/guards.js';
import type { HttpServerHandle } from '../../src/transports/http/index.js';
import { JSON_HEADERS } from '../support/http.js';
import { FakeCore, modernHeaders, modernRequest, modernRequestOfSize, post, send, start } from './support.js';

describe('DNS-rebinding protection on a loopback server (2025-11-25 transports §Security Warning)', () => {
  let srv: HttpServerHandle;
  before(async () => {
    srv = await start(new FakeCore());
  });
  after(() => srv.close());

  it('refuses a foreign Host with 403 and a JSON-RPC error body without id', async () => {
    const r = await send(srv.url, {
      body: modernRequest('server/discover'),
      headers: { ...modernHeaders('server/discover'), host: 'evil.example.com' },
    });
    assert.equal(r.status, 403);
    assert.equal(r.json.jsonrpc, '2.0');
    assert.equal(typeof r.json.error.code, 'number');
    assert.equal('id' in r.json, false);
  });

  it('refuses a foreign Origin with 403 even with a good Host', async () => {
    const r = await post(srv.url, modernRequest('server/discover'), {
      ...modernHeaders('server/discover'),
      origin: 'http://evil.example.com',
    });
    assert.equal(r.status, 403);
  });

  it('refuses Host with the wrong port and the opaque Origin "null"', async () => {
    const a = await send(srv.url, {
      body: modernRequest('server/discover'),
      headers: { ...modernHeaders('server/discover'), host: `127.0.0.1:${srv.port + 1}` },
    });
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
      const ok = await send(srv.url, {
        body: modernRequest('x'),
        headers: { ...modernHeaders('x'), host: 'mcp.example.com:1234', origin: 'https://mcp.example.com' },
      });
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
      const r = await send(srv.url, {
        body: modernRequest('x'),
        headers: { ...modernHeaders('x'), host: 'evil.example.com', origin: 'http://evil.example.com' },
      });
      assert.equal(r.status, 200);
    } finally {
      await srv.close();
    }
  });
});

describe('media types, body limit, methods and paths', () => {
  const LIMIT = 1024;
  let srv: HttpServerHandle;
  before(async () => {
    srv = await start(new FakeCore(), { maxBodyBytes: LIMIT });
  });
  after(() => srv.close());

  it('415 when Content-Type is not application/json', async () => {
    const r = await send(srv.url, { body: modernRequest('x'), headers: { ...modernHeaders('x'), 'content-type': 'text/plain' } });
    assert.equal(r.status, 415);
    assert.equal(r.json.error.code, -32600);
  });

  it('accepts application/json with parameters', async () => {
    const r = await send(srv.url, {
      body: modernRequest('x'),
      headers: { ...modernHeaders('x'), 'content-type': 'application/json; charset=utf-8' },
    });
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

  it('the limit is inclusive: a body of exactly maxBodyBytes is read, one byte more is 413 with -32600', async () => {
    const exact = await send(srv.url, { body: modernRequestOfSize(LIMIT), headers: modernHeaders('x') });
    assert.equal(exact.status, 200);
    const over = await send(srv.url, { body: modernRequestOfSize(LIMIT + 1), headers: modernHeaders('x') });
    assert.equal(over.status, 413);
    assert.equal(over.json.error.code, -32600);
  });

  // These two never finish their body: a server that waited for it would hang, hence the timeout
  // (which also aborts the request through t.signal, so the server can still close).
  it('413 from Content-Length alone (one byte over the limit), without reading the body', { timeout: 10_000 }, async (t) => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          hostname: '127.0.0.1',
          port: srv.port,
          path: '/mcp',
          method: 'POST',
          signal: t.signal,
          headers: { ...JSON_HEADERS, 'content-length': String(LIMIT + 1) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('{"jsonrpc":'); // the rest never comes
    });
    assert.equal(status, 413);
  });

  it('413 for a chunked body as soon as it grows one byte past the limit', { timeout: 10_000 }, async (t) => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          hostname: '127.0.0.1',
          port: srv.port,
          path: '/mcp',
          method: 'POST',
          signal: t.signal,
          headers: { ...JSON_HEADERS, 'transfer-encoding': 'chunked' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('x'.repeat(LIMIT));
      setTimeout(() => req.write('x'), 20);
    });
    assert.equal(status, 413);
  });

  it('400 with -32700 and no id for malformed JSON and for an empty body', async () => {
    for (const body of ['{"jsonrpc": "2.0", "id": 1,', '']) {
      const r = await send(srv.url, { body, headers: JSON_HEADERS });
      assert.equal(r.status, 400);
      assert.equal(r.json.error.code, -32700);
      assert.equal('id' in r.json, false);
    }
  });

  it('405 with an Allow header for other HTTP methods', async () => {
    const r = await send(srv.url, { method: 'PUT', body: '{}', headers: JSON_HEADERS });
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
      const req = http.request({
        hostname: '127.0.0.1',
        port: srv.port,
        path: '/mcp',
        method: 'POST',
        headers: { ...JSON_HEADERS, 'content-length': '500' },
      });
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
