/**
 * An HTTP error says what the server said: the client's message for a non-2xx reply carries
 * the request, the URL, the status and the server's own explanation (a JSON-RPC error's
 * message, else the first line of a text body, control characters stripped, capped), on every
 * path (era detection, legacy initialize, POSTs, the GET streams, the 2024-11-05 HTTP+SSE
 * transport, DELETE), while `status` and `body` stay on the error. Real sockets on 127.0.0.1
 * (and 127.0.0.2, a loopback address that is not one of the Host check's names).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { ChannelError } from '../../src/errors/index.js';
import { createServer } from '../../src/server/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { until } from '../support/wait.js';
import { mockServer, sseHead } from './mock.js';

const mcp = () => createServer({ name: 'explains', version: '1.0.0' });

async function failure(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => assert.fail('connected'),
    (e: unknown) => {
      assert.ok(e instanceof Error, String(e));
      return e;
    },
  );
}

test('a Janus server on 0.0.0.0 reached by another address: the 403 says why, and names allowedHosts', async () => {
  const http = await serveHttp(mcp(), { host: '0.0.0.0', onWarning: () => {} });
  try {
    const url = new URL(`http://127.0.0.2:${http.port}/mcp`);
    const e = await failure(connect(url));
    assert.ok(e instanceof ChannelError, String(e));
    assert.equal(e.status, 403);
    assert.match(e.message, new RegExp(`^POST server/discover to ${url.href.replace(/\./g, '\\.')} failed with HTTP 403 Forbidden: `));
    assert.match(
      e.message,
      /Host header '127\.0\.0\.2:\d+' not allowed: only localhost, 127\.0\.0\.1 and \[::1\] are allowed until allowedHosts names this server/,
    );
    assert.match(e.body ?? '', /allowedHosts/, 'the whole body stays on the error');
  } finally {
    await http.close();
  }
});

test('a wrong path on a Janus server: the error shows the endpoint the server names', async () => {
  const http = await serveHttp(mcp());
  try {
    const e = await failure(connect(new URL('/wrong', http.url), { timeoutMs: 30_000 }));
    assert.match(e.message, /Not an MCP endpoint: \/wrong\. This server's MCP endpoint is \/mcp/);
    assert.match(e.message, new RegExp(`http://127\\.0\\.0\\.1:${http.port}/wrong`));
  } finally {
    await http.close();
  }
});

test('an HTTP 500 to the probe: the URL and the first line of the text body, control characters stripped and capped', async () => {
  const body = `database \u001b[31mis down\u0007 ${'x'.repeat(1000)}\nat Object.<anonymous> (/srv/app.js:1:1)`;
  const server = await mockServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(body));
  try {
    const e = await failure(connect(server.url));
    assert.ok(e instanceof ChannelError, String(e));
    assert.equal(e.status, 500);
    assert.equal(e.body, body);
    const prefix = `POST server/discover to ${server.url.href} failed with HTTP 500 Internal Server Error: database [31mis down x`;
    assert.ok(e.message.startsWith(prefix), e.message);
    const reason = e.message.slice(e.message.indexOf(': ') + 2);
    assert.ok(reason.length <= 200, `the reason is capped: ${reason.length}`);
    assert.ok(reason.endsWith('…'));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them
    assert.doesNotMatch(e.message, /[\u0000-\u001f\u007f]/);
    assert.doesNotMatch(e.message, /anonymous/, 'the first line only');
  } finally {
    await server.close();
  }
});

test('legacy initialize refused with 503 and a JSON error: its message is in the error', async () => {
  const server = await mockServer((_req, res) =>
    res
      .writeHead(503, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'unavailable', message: 'Maintenance until 14:00 UTC' })),
  );
  try {
    const e = await failure(connect(server.url, { era: 'legacy' }));
    assert.ok(e instanceof ChannelError, String(e));
    assert.equal(e.status, 503);
    assert.equal(e.message, `POST initialize to ${server.url.href} failed with HTTP 503 Service Unavailable: Maintenance until 14:00 UTC`);
  } finally {
    await server.close();
  }
});

test('a POST after the session started, refused with 500 and a JSON-RPC error for another id: the error carries its message', async () => {
  const server = await mockServer((req, res, seen) => {
    if (req.method === 'GET') return res.writeHead(405).end();
    if (req.method === 'DELETE') return res.writeHead(204).end();
    const message = JSON.parse(seen.body) as { id?: number; method: string };
    if (message.method === 'initialize') {
      return res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'm', version: '1' } },
        }),
      );
    }
    if (message.id === undefined) return res.writeHead(202).end();
    res
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: 999, error: { code: -32603, message: 'tool index is rebuilding, retry in a minute' } }));
  });
  const client = await connect(server.url, { era: 'legacy' });
  try {
    const e = await failure(client.listTools());
    assert.ok(e instanceof ChannelError, String(e));
    assert.equal(
      e.message,
      `POST tools/list to ${server.url.href} failed with HTTP 500 Internal Server Error: tool index is rebuilding, retry in a minute`,
    );
  } finally {
    await client.close();
    await server.close();
  }
});

test('the standalone GET stream and DELETE refused: each refusal, with the server reason, goes to onWarning', async () => {
  const server = await mockServer((req, res, seen) => {
    if (req.method === 'GET') return res.writeHead(403, { 'content-type': 'text/plain' }).end('streams are off for this key');
    if (req.method === 'DELETE') return res.writeHead(500, { 'content-type': 'text/plain' }).end('session store unavailable');
    const message = JSON.parse(seen.body) as { id?: number; method: string };
    if (message.method === 'initialize') {
      return res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'm', version: '1' } },
        }),
      );
    }
    res.writeHead(202).end();
  });
  const warnings: string[] = [];
  const client = await connect(server.url, { era: 'legacy', onWarning: (m) => warnings.push(m) });
  try {
    await until(() => warnings.some((w) => w.startsWith('GET (the standalone stream)')), 'the standalone stream refused', 30_000);
    assert.ok(
      warnings.includes(
        `GET (the standalone stream) to ${server.url.href} failed with HTTP 403 Forbidden: streams are off for this key; the server's notifications outside requests will not arrive`,
      ),
      warnings.join('\n'),
    );
  } finally {
    await client.close();
    await server.close();
  }
  assert.ok(
    warnings.some((w) =>
      w.startsWith(
        `DELETE (ending the session) to ${server.url.href} failed with HTTP 500 Internal Server Error: session store unavailable`,
      ),
    ),
    warnings.join('\n'),
  );
});

test('the 2024-11-05 HTTP+SSE transport: a refused GET and a refused POST say what the server said', async () => {
  const refusedGet = await mockServer((req, res) => {
    if (req.method === 'GET') return res.writeHead(401, { 'content-type': 'text/plain' }).end('an API key is needed: send X-Api-Key');
    res.writeHead(405).end();
  });
  try {
    const e = await failure(connect(refusedGet.url, { era: 'legacy' }));
    assert.ok(e instanceof ChannelError, String(e));
    assert.equal(
      e.message,
      `GET (the HTTP+SSE event stream) to ${refusedGet.url.href} failed with HTTP 401 Unauthorized: an API key is needed: send X-Api-Key`,
    );
  } finally {
    await refusedGet.close();
  }
  const refusedPost = await mockServer((req, res) => {
    if (req.method === 'GET' && req.url === '/mcp') {
      sseHead(res);
      res.write('event: endpoint\ndata: /messages\n\n');
      return;
    }
    if (req.url === '/messages') return res.writeHead(500, { 'content-type': 'text/plain' }).end('the queue is full');
    res.writeHead(405).end();
  });
  try {
    const e = await failure(connect(refusedPost.url, { era: 'legacy' }));
    assert.ok(e instanceof ChannelError, String(e));
    assert.equal(
      e.message,
      `POST initialize to ${new URL('/messages', refusedPost.url).href} failed with HTTP 500 Internal Server Error: the queue is full`,
    );
  } finally {
    await refusedPost.close();
  }
});
