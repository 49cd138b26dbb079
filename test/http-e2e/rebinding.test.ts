/**
 * DNS-rebinding protection on every entry point and every bind (before it, with `serveHttp` on a
 * non-loopback address, or `createFetchHandler` by default, a request with Host and Origin
 * `evil.example.com` ran tools). Both transport specs say servers MUST validate Origin
 * (2025-11-25 transports §Security Warning; 2026-07-28 streamable-http.mdx §Security &
 * Endpoint). The defaults now allow loopback names only; anything else needs `allowedHosts` /
 * `allowedOrigins`, or `dnsRebindingProtection: false`, which warns once through `onWarning`.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { createFetchHandler, createNodeHandler, serveHttp } from '../../src/transports/http/index.js';
import { MODERN } from '../support/common.js';
import { JSON_HEADERS } from '../support/http.js';
import { modernMeta } from '../support/peer.js';
import { raw } from './raw.js';

const EVIL = 'evil.example.com';

/** A server whose one tool counts its calls: a refused request must not run it. */
function counted() {
  const calls: string[] = [];
  const server = createServer({ name: 'counted', version: '1.0.0' });
  server.tool('touch', () => {
    calls.push('touch');
    return 'touched';
  });
  return { server, calls };
}

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'touch', arguments: {}, _meta: modernMeta() } });
const CALL_HEADERS = { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'touch' };

function fetchCall(url: string, headers: Record<string, string> = {}): Request {
  return new Request(url, { method: 'POST', headers: { ...CALL_HEADERS, ...headers }, body: CALL });
}

test('fetch handler by default: a full rebinding request (Host and Origin evil) → 403 and no tool runs; loopback names pass', async () => {
  const { server, calls } = counted();
  const handler = createFetchHandler(server);
  try {
    const rebinding = await handler(fetchCall(`http://${EVIL}/mcp`, { host: EVIL, origin: `http://${EVIL}` }));
    assert.equal(rebinding.status, 403);
    assert.match(await rebinding.text(), /allowedHosts/);
    const urlOnly = await handler(fetchCall(`http://${EVIL}:8080/mcp`)); // no Host header: the URL's host is checked
    assert.equal(urlOnly.status, 403);
    await urlOnly.text();
    const evilOrigin = await handler(fetchCall('http://localhost:3000/mcp', { origin: `https://${EVIL}` }));
    assert.equal(evilOrigin.status, 403);
    await evilOrigin.text();
    assert.deepEqual(calls, [], 'no refused request ran the tool');

    const local = await handler(fetchCall('http://localhost:3000/mcp', { origin: 'http://localhost:5173' }));
    assert.equal(local.status, 200);
    assert.deepEqual(calls, ['touch']);
  } finally {
    await handler.close();
    server.close();
  }
});

test('fetch handler with allowedHosts / allowedOrigins: those names pass, others still 403', async () => {
  const { server, calls } = counted();
  const handler = createFetchHandler(server, { allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] });
  try {
    const ok = await handler(fetchCall('https://mcp.example.com/mcp', { origin: 'https://app.example.com' }));
    assert.equal(ok.status, 200);
    const localhost = await handler(fetchCall('http://localhost/mcp'));
    assert.equal(localhost.status, 403, 'allowedHosts replaces the loopback names');
    const otherOrigin = await handler(fetchCall('https://mcp.example.com/mcp', { origin: `https://${EVIL}` }));
    assert.equal(otherOrigin.status, 403);
    assert.deepEqual(calls, ['touch']);
  } finally {
    await handler.close();
    server.close();
  }
});

/** POSTs the tool call to a server listening on a Unix socket (a bind that is not loopback, and no network). */
function postUnix(socketPath: string, host: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...CALL_HEADERS, host };
    if (origin !== undefined) headers.origin = origin;
    const req = request({ socketPath, path: '/mcp', method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(CALL);
  });
}

test('Node handler on a non-loopback bind: Host must still be a loopback name (or in allowedHosts)', async () => {
  const { server, calls } = counted();
  const dir = mkdtempSync(join(tmpdir(), 'janus-rebind-'));
  const socketPath = join(dir, 'mcp.sock');
  const mcp = createNodeHandler(server);
  const http = createHttpServer((req, res) => mcp(req, res));
  await new Promise<void>((r) => http.listen(socketPath, r));
  try {
    assert.equal(await postUnix(socketPath, EVIL, `http://${EVIL}`), 403);
    assert.equal(await postUnix(socketPath, '192.0.2.10:3000'), 403, 'an address by IP is not a loopback name');
    assert.deepEqual(calls, []);
    assert.equal(await postUnix(socketPath, 'localhost:3000'), 200);
    assert.deepEqual(calls, ['touch']);
  } finally {
    await mcp.close();
    await new Promise((r) => http.close(r));
    rmSync(dir, { recursive: true, force: true });
    server.close();
  }
});

test('serveHttp on 0.0.0.0: a rebinding Host or Origin → 403; the loopback names on any port pass', async () => {
  const { server, calls } = counted();
  const s = await serveHttp(server, { host: '0.0.0.0' });
  const post = async (headers: Record<string, string>) => {
    const res = await raw(`http://127.0.0.1:${s.port}/mcp`, { method: 'POST', headers: { ...CALL_HEADERS, ...headers }, body: CALL });
    await res.text();
    return res.status;
  };
  try {
    assert.equal(await post({ host: EVIL }), 403);
    assert.equal(await post({ host: `localhost:${s.port}`, origin: `http://${EVIL}` }), 403);
    assert.deepEqual(calls, []);
    assert.equal(await post({ host: `127.0.0.1:${s.port}` }), 200);
  } finally {
    await s.close();
    server.close();
  }
});

test('dnsRebindingProtection: false turns the checks off and warns once through onWarning', async () => {
  const { server, calls } = counted();
  const warnings: string[] = [];
  const handler = createFetchHandler(server, { dnsRebindingProtection: false, onWarning: (m) => warnings.push(m) });
  try {
    assert.equal(warnings.length, 1, 'warned when the handler was made');
    assert.match(warnings[0]!, /dnsRebindingProtection/);
    for (let i = 0; i < 3; i++) {
      const res = await handler(fetchCall(`http://${EVIL}/mcp`, { host: EVIL, origin: `http://${EVIL}` }));
      assert.equal(res.status, 200);
    }
    assert.equal(warnings.length, 1, 'and only once');
    assert.equal(calls.length, 3);
  } finally {
    await handler.close();
    server.close();
  }
});
