/**
 * Transport safety with the real server on a loopback bind:
 * - DNS-rebinding protection (2025-11-25 and 2026-07-28 transports §Security: validate Origin,
 *   403 when present and invalid; loopback binds check Host as well);
 * - body limit → 413, malformed JSON → 400 -32700, invalid envelope → -32600 (JSON-RPC 2.0 §5.1);
 * - sessions (2025-11-25 transports §Session Management items 2-3): missing → 400, unknown → 404;
 * - Content-Type and Accept (§Sending Messages items 1-2) → 415 / 406.
 * Every error body is a JSON-RPC error checked against the schema by the peer.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { MODERN } from '../support/common.js';
import { JSON_HEADERS } from '../support/http.js';
import { withClock } from '../support/wait.js';
import { HttpPeer, raw, rpc, serve, type Outcome, type RawInit } from './support.js';

const EVIL = 'evil.example.com';

function code(o: Outcome): number | undefined {
  return o.messages[0]?.error?.code;
}

test('Host and Origin on a loopback bind: evil.example.com → 403 (Host or Origin), the real host and loopback origins → 2xx', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  const discover = (headers: Record<string, string>) => {
    const body = peer.modernBody('server/discover');
    return peer.post(body, { ...peer.modernHeaders(body), ...headers });
  };
  try {
    const evilHost = await discover({ host: EVIL });
    const evilHostPort = await discover({ host: `${EVIL}:${s.http.port}` });
    const evilOrigin = await discover({ origin: `http://${EVIL}` });
    const nullOrigin = await discover({ origin: 'null' });
    assert.deepEqual([evilHost.status, evilHostPort.status, evilOrigin.status, nullOrigin.status], [403, 403, 403, 403]);
    for (const o of [evilHost, evilOrigin]) assert.equal(o.messages[0]!.id, undefined, '403 bodies carry an error without id');

    // A GET (legacy SSE / standalone stream) is guarded too, before anything opens.
    const evilGet = await peer.get({ host: EVIL });
    assert.equal(evilGet.status, 403);
    assert.equal(evilGet.isSse, false);
    await evilGet.text();
    assert.equal(s.sessions.size, 0, 'a refused GET opens no HTTP+SSE session');

    const real = await discover({ host: `127.0.0.1:${s.http.port}` });
    const localhost = await discover({ host: `localhost:${s.http.port}`, origin: 'http://localhost:5173' });
    const sameOrigin = await discover({ origin: `http://127.0.0.1:${s.http.port}` });
    assert.deepEqual([real.status, localhost.status, sameOrigin.status], [200, 200, 200]);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('a body over maxBodyBytes → 413, declared by Content-Length or streamed chunked; the server keeps answering', async () => {
  const s = await serve(createEverythingServer(), { maxBodyBytes: 512 });
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const big = peer.modernBody('tools/call', { name: 'test_simple_text', arguments: { pad: 'x'.repeat(2000) } });
    const headers = peer.modernHeaders(big);
    const declared = await peer.post(big, headers);
    assert.equal(declared.status, 413);
    assert.equal(code(declared), -32600);

    // Without Content-Length: the limit applies while reading.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = http.request(s.url, { method: 'POST', agent: false, headers: { ...JSON_HEADERS, ...headers } as Record<string, string> });
      req.once('error', reject);
      req.once('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      const text = JSON.stringify(big);
      for (let i = 0; i < text.length; i += 256) req.write(text.slice(i, i + 256));
      req.end();
    });
    assert.equal(chunked, 413);

    const small = await peer.modern('tools/call', { name: 'test_simple_text', arguments: {} });
    assert.equal(small.status, 200);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('malformed JSON → 400 -32700 without id, on both wires', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const send = async (init: RawInit) => peer.finish(await peer.send({ method: 'POST', ...init }));
    const modern = await send({
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"',
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    });
    const legacy = await send({ body: '{not json', headers: JSON_HEADERS });
    for (const o of [modern, legacy]) {
      assert.equal(o.status, 400);
      assert.deepEqual(o.messages[0], { jsonrpc: '2.0', error: { code: -32700, message: o.messages[0]!.error.message } });
    }
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('an invalid JSON-RPC envelope → -32600 (400 on the modern wire, inside a legacy session a JSON-RPC error)', async () => {
  const s = await serve();
  const modern = new HttpPeer(s.url, MODERN);
  const legacy = new HttpPeer(s.url, '2025-11-25');
  try {
    const hdr = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' };
    const noMethod = await modern.post({ jsonrpc: '2.0', id: 1 }, hdr);
    const wrongVersion = await modern.post({ jsonrpc: '1.0', id: 2, method: 'tools/list' }, hdr);
    const scalar = await modern.post(42, hdr);
    assert.deepEqual(
      [noMethod.status, code(noMethod), wrongVersion.status, code(wrongVersion), scalar.status, code(scalar)],
      [400, -32600, 400, -32600, 400, -32600],
    );

    await legacy.initialize();
    const inSession = await legacy.post({ jsonrpc: '2.0', id: 3, method: 42 });
    assert.equal(code(inSession), -32600);
    assert.ok(inSession.status === 200 || inSession.status === 400, `status ${inSession.status}`);
    const ping = await legacy.request('ping', undefined, { id: 4 });
    assert.deepEqual(ping.messages, [{ jsonrpc: '2.0', id: 4, result: {} }], 'the session survives');
    modern.assertClean();
    legacy.assertClean();
  } finally {
    await s.close();
  }
});

test('sessions: a legacy request without Mcp-Session-Id → 400; an unknown session id → 404 for POST, GET and DELETE', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-11-25');
  try {
    const missing = await peer.post(rpc(1, 'tools/list'));
    assert.deepEqual([missing.status, code(missing), missing.messages[0]!.id], [400, -32600, 1]);
    const missingNote = await peer.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(missingNote.status, 400);

    peer.sessionId = 'no-such-session';
    const unknown = await peer.post(rpc(2, 'tools/list'));
    assert.deepEqual([unknown.status, code(unknown)], [404, -32600]);
    const get = await peer.get();
    assert.equal(get.status, 404);
    await get.text();
    const del = await peer.send({ method: 'DELETE', headers: peer.sessionHeaders() });
    assert.equal(del.status, 404);
    await del.text();
    const sse = await peer.post(rpc(3, 'ping'), {}, new URL('/mcp?sessionId=no-such-session', s.url));
    assert.equal(sse.status, 404, 'an unknown HTTP+SSE session id');
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('Content-Type other than application/json → 415; a POST whose Accept allows neither JSON nor SSE → 406; a GET from a browser → 405, not a stream', async () => {
  const s = await serve();
  try {
    const body = JSON.stringify(rpc(1, 'server/discover'));
    const wrongType = await raw(s.url, { method: 'POST', body, headers: { ...JSON_HEADERS, 'content-type': 'text/plain' } });
    const wrongAccept = await raw(s.url, { method: 'POST', body, headers: { ...JSON_HEADERS, accept: 'text/html' } });
    const getHtml = await raw(s.url, { method: 'GET', headers: { accept: 'text/html' } });
    await Promise.all([wrongType.text(), wrongAccept.text(), getHtml.text()]);
    assert.deepEqual([wrongType.status, wrongAccept.status, getHtml.status], [415, 406, 405]);
    assert.equal(s.sessions.size, 0);
  } finally {
    await s.close();
  }
});

test('maxSessions: a full server answers initialize 503; a session idle past sessionIdleMs is swept to make room and then answers 404', async () => {
  // The session registry reads Date.now(): a clock moved by hand makes "idle" exact, however slow the machine.
  await withClock(async (clock) => {
    const s = await serve(createEverythingServer(), { maxSessions: 1, sessionIdleMs: 30_000 });
    const first = new HttpPeer(s.url, '2025-06-18');
    const second = new HttpPeer(s.url, '2025-06-18');
    try {
      await first.initialize();
      const full = await second.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      });
      assert.equal(full.status, 503);
      assert.equal(full.headers['mcp-session-id'], undefined);
      clock.now += 30_000; // idle exactly sessionIdleMs: not past it
      assert.equal(
        (await second.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } }))
          .status,
        503,
      );
      clock.now += 1; // first is idle past sessionIdleMs now
      await second.initialize();
      const expired = await first.request('ping');
      assert.equal(expired.status, 404);
      assert.equal(s.sessions.size, 1);
      first.assertClean();
      second.assertClean();
    } finally {
      await s.close();
    }
  });
});
