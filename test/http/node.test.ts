/** createNodeHandler as middleware: next() for other paths, `path: false`, pre-parsed bodies, close(). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { createNodeHandler, type NodeHandler } from '../../src/transports/http/index.js';
import { listen, readingBody, type Listening } from '../support/http.js';
import { FakeCore, modernHeaders, modernRequest, open, post } from './support.js';

async function stop(server: Listening, handler: NodeHandler): Promise<void> {
  await handler.close();
  await server.close();
}

describe('createNodeHandler', () => {
  it('calls next() for other paths and serves its own', async () => {
    const handler = createNodeHandler(new FakeCore());
    let nexted = 0;
    const server = await listen((req, res) =>
      handler(req, res, () => {
        nexted++;
        res.writeHead(418).end();
      }),
    );
    try {
      const other = await post(new URL('/other', server.url), modernRequest('tools/list'), modernHeaders('tools/list'));
      assert.equal(other.status, 418);
      assert.equal(nexted, 1);
      const own = await post(server.url, modernRequest('tools/list'), modernHeaders('tools/list'));
      assert.equal(own.status, 200);
    } finally {
      await stop(server, handler);
    }
  });

  it('path: false serves every path', async () => {
    const handler = createNodeHandler(new FakeCore(), { path: false });
    const server = await listen((req, res) => handler(req, res));
    try {
      const r = await post(new URL('/anything', server.url), modernRequest('tools/list'), modernHeaders('tools/list'));
      assert.equal(r.status, 200);
    } finally {
      await stop(server, handler);
    }
  });

  it('uses a body a parser already read (req.body) instead of reading again', async () => {
    const handler = createNodeHandler(new FakeCore());
    const server = await listen(
      readingBody((req, res, text) => {
        (req as IncomingMessage & { body?: unknown }).body = JSON.parse(text);
        return handler(req, res);
      }),
    );
    try {
      const r = await post(server.url, modernRequest('tools/list', {}, 77), modernHeaders('tools/list'));
      assert.equal(r.status, 200);
      assert.equal(r.json.id, 77);
    } finally {
      await stop(server, handler);
    }
  });

  it('close() ends open streams', async () => {
    const handler = createNodeHandler(new FakeCore());
    const server = await listen((req, res) => handler(req, res));
    const s = await open(server.url, { method: 'GET', headers: { accept: 'text/event-stream' } }); // HTTP+SSE stream
    await s.waitFor(1);
    await handler.close();
    await s.waitEnd();
    await server.close();
  });
});
