/**
 * The Node handler mounted inside a router under a prefix (Express `app.use('/api/mcp', …)`
 * cuts the prefix off `req.url`): every era still works through the mount, and the
 * HTTP+SSE endpoint event names the path the client used (`req.originalUrl`), so 2024-11-05
 * clients POST back through the same mount (docs/2024-11-05/basic/transports.mdx §HTTP with SSE).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import express from 'express';
import { connect } from '../../src/client/index.js';
import { createServer } from '../../src/server/index.js';
import { createNodeHandler } from '../../src/transports/http/index.js';
import { listen } from '../support/http.js';
import { raw } from './support.js';

function greeter() {
  const server = createServer({ name: 'mounted', version: '1.0.0' });
  server.tool('greet', { input: { type: 'object', properties: { name: { type: 'string' } } } }, (args) => `Hello, ${String(args.name)}!`);
  return server;
}

test('Express app.use("/api/mcp", handler) with path: false serves both eras through the mount', async () => {
  const handler = createNodeHandler(greeter(), { path: false });
  const app = express();
  app.use('/api/mcp', handler);
  const served = await listen(app, '/api/mcp');
  try {
    for (const era of ['modern', 'legacy'] as const) {
      const client = await connect(served.url, { era });
      assert.deepEqual((await client.callTool('greet', { name: era })).content, [{ type: 'text', text: `Hello, ${era}!` }]);
      await client.close();
    }
  } finally {
    await handler.close();
    await served.close();
  }
});

test('HTTP+SSE under an Express mount: the endpoint event keeps the mount prefix, and a 2024-11-05 client works through it', async () => {
  const handler = createNodeHandler(greeter(), { path: false });
  const app = express();
  // A front that offers only the old transport: Streamable HTTP POSTs (no sessionId) are refused.
  app.post('/api/mcp', (req, res, next) => (req.query.sessionId === undefined ? void res.status(404).end() : next()));
  app.use('/api/mcp', handler);
  const served = await listen(app, '/api/mcp');
  try {
    const stream = await raw(served.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    assert.equal(stream.status, 200);
    const first = await stream.next();
    assert.equal(first.event, 'endpoint');
    assert.match(first.data, /^\/api\/mcp\?sessionId=/);
    stream.abort();

    const client = await connect(served.url, { protocolVersion: '2024-11-05' });
    assert.equal(client.transportKind, 'sse');
    assert.deepEqual((await client.callTool('greet', { name: 'Ada' })).content, [{ type: 'text', text: 'Hello, Ada!' }]);
    await client.close();
  } finally {
    await handler.close();
    await served.close();
  }
});
