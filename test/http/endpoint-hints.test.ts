/**
 * A Janus server says where its endpoint is: a request to another path gets a 404 whose
 * message names the path asked for and the MCP endpoint (Node handler and fetch handler alike);
 * `serveHttp` on a wildcard address gives a URL a client can use, and says once that requests by
 * other names are refused until `allowedHosts` names them.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { createServer } from '../../src/server/index.js';
import { createFetchHandler, createNodeHandler, type HttpServerHandle, serveHttp } from '../../src/transports/http/index.js';

const mcp = () => createServer({ name: 'hints', version: '1.0.0' });

async function notFoundMessage(res: Response): Promise<string> {
  assert.equal(res.status, 404);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = (await res.json()) as { jsonrpc: string; error: { code: number; message: string } };
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.error.code, -32600);
  return body.error.message;
}

test('serveHttp: a 404 names the path asked for and the MCP endpoint', async () => {
  const http = await serveHttp(mcp(), { path: '/api/mcp' });
  try {
    const wrong = new URL('/wrong', http.url);
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await fetch(wrong, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      assert.equal(await notFoundMessage(res), "Not an MCP endpoint: /wrong. This server's MCP endpoint is /api/mcp", method);
    }
    const long = `/${'x'.repeat(5000)}`;
    const message = await notFoundMessage(await fetch(new URL(long, http.url)));
    assert.ok(message.length < 300, `the echoed path is capped: ${message.length} characters`);
  } finally {
    await http.close();
  }
});

test('createNodeHandler under node:http: the same 404 message', async () => {
  const handler = createNodeHandler(mcp());
  const listener = createHttpServer(handler);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = listener.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/sse?x=1`);
    assert.equal(await notFoundMessage(res), "Not an MCP endpoint: /sse. This server's MCP endpoint is /mcp");
  } finally {
    await handler.close();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
});

test('createFetchHandler: the same 404 message', async () => {
  const handler = createFetchHandler(mcp());
  try {
    const res = await handler(new Request('http://localhost:8787/mcp/extra', { method: 'POST', body: '{}' }));
    assert.equal(await notFoundMessage(res), "Not an MCP endpoint: /mcp/extra. This server's MCP endpoint is /mcp");
  } finally {
    await handler.close();
  }
});

test('serveHttp on 0.0.0.0: the url is a loopback one a client connects to, and one notice names allowedHosts', async () => {
  const warnings: string[] = [];
  const http = await serveHttp(mcp(), { host: '0.0.0.0', onWarning: (m) => warnings.push(m) });
  try {
    assert.equal(http.url.hostname, '127.0.0.1');
    assert.equal(http.url.href, `http://127.0.0.1:${http.port}/mcp`);
    const client = await connect(http.url);
    await client.close();
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /every interface \(0\.0\.0\.0:\d+\)/);
    assert.match(warnings[0]!, /refused with 403/);
    assert.match(warnings[0]!, /until the allowedHosts option names it, e\.g\. serveHttp\(server, \{ host: '0\.0\.0\.0', allowedHosts: \[/);
  } finally {
    await http.close();
  }
});

test('serveHttp on 0.0.0.0 without onWarning: the notice goes where the server sends its warnings', async () => {
  const warned: string[] = [];
  const server = createServer({
    name: 'hints',
    version: '1.0.0',
    logger: { debug() {}, info() {}, warn: (m: string) => warned.push(m), error() {} },
  });
  const http = await serveHttp(server, { host: '0.0.0.0' });
  await http.close();
  assert.equal(warned.filter((m) => m.includes('allowedHosts')).length, 1, warned.join('\n'));
});

test('serveHttp on :: gives an [::1] url; with allowedHosts, or on loopback, there is nothing to say', async (t) => {
  const warnings: string[] = [];
  const onWarning = (m: string) => warnings.push(m);
  let v6: HttpServerHandle;
  try {
    v6 = await serveHttp(mcp(), { host: '::', onWarning });
  } catch (e) {
    t.skip(`no IPv6 here: ${String(e)}`);
    return;
  }
  try {
    assert.equal(v6.url.hostname, '[::1]');
    assert.equal(warnings.length, 1);
  } finally {
    await v6.close();
  }
  const allowed = await serveHttp(mcp(), { host: '0.0.0.0', allowedHosts: ['127.0.0.1', 'mcp.example.com'], onWarning });
  await allowed.close();
  const local = await serveHttp(mcp(), { onWarning });
  await local.close();
  assert.equal(warnings.length, 1, warnings.join('\n'));
});
