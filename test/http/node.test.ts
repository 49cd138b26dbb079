/** createNodeHandler as middleware: next() for other paths, `path: false`, pre-parsed bodies, close(). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler, type NodeHandler } from '../../src/transports/http/index.js';
import { FakeCore, modernHeaders, modernRequest, open, post } from './support.js';

async function listen(fn: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: URL; server: http.Server }> {
  const server = http.createServer(fn);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), server };
}

async function stop(server: http.Server, handler: NodeHandler): Promise<void> {
  await handler.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

describe('createNodeHandler', () => {
  it('calls next() for other paths and serves its own', async () => {
    const handler = createNodeHandler(new FakeCore());
    let nexted = 0;
    const { url, server } = await listen((req, res) =>
      handler(req, res, () => {
        nexted++;
        res.writeHead(418).end();
      }),
    );
    try {
      const other = await post(new URL('/other', url), modernRequest('tools/list'), modernHeaders('tools/list'));
      assert.equal(other.status, 418);
      assert.equal(nexted, 1);
      const own = await post(url, modernRequest('tools/list'), modernHeaders('tools/list'));
      assert.equal(own.status, 200);
    } finally {
      await stop(server, handler);
    }
  });

  it('path: false serves every path', async () => {
    const handler = createNodeHandler(new FakeCore(), { path: false });
    const { url, server } = await listen((req, res) => handler(req, res));
    try {
      const r = await post(new URL('/anything', url), modernRequest('tools/list'), modernHeaders('tools/list'));
      assert.equal(r.status, 200);
    } finally {
      await stop(server, handler);
    }
  });

  it('uses a body a parser already read (req.body) instead of reading again', async () => {
    const handler = createNodeHandler(new FakeCore());
    const { url, server } = await listen((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (text += c));
      req.on('end', () => {
        (req as IncomingMessage & { body?: unknown }).body = JSON.parse(text);
        handler(req, res);
      });
    });
    try {
      const r = await post(url, modernRequest('tools/list', {}, 77), modernHeaders('tools/list'));
      assert.equal(r.status, 200);
      assert.equal(r.json.id, 77);
    } finally {
      await stop(server, handler);
    }
  });

  it('close() ends open streams', async () => {
    const handler = createNodeHandler(new FakeCore());
    const { url, server } = await listen((req, res) => handler(req, res));
    const s = await open(url, { method: 'GET', headers: { accept: 'text/event-stream' } }); // HTTP+SSE stream
    await s.waitFor(1);
    await handler.close();
    await s.waitEnd();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
});
