/**
 * Errors that name the cause and the fix, over real HTTP on 127.0.0.1: a refused port, a
 * host that does not resolve (the reserved `.invalid` TLD, RFC 6761 §6.4), a web page, a
 * URL where every step of era detection is refused (the probe, initialize, and the
 * 2024-11-05 HTTP+SSE GET of 2025-11-25 transports.mdx §Backwards Compatibility), and a
 * server that never answers. The fetch failure stays on `cause`.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ChannelError, JanusError } from '../../src/errors/index.js';
import { connect } from '../../src/client/index.js';
import { nodeServer, rawServer, recordingFetch } from './support.js';

/** A port on 127.0.0.1 that nothing listens on: bound, then closed. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function connectError(target: string | URL, options: Parameters<typeof connect>[1] = {}): Promise<unknown> {
  return connect(target, options).then(
    async (c) => (await c.close(), assert.fail('connect() succeeded')),
    (e: unknown) => e,
  );
}

/** The `code` somewhere along an error's causes. */
function causeCode(e: unknown): string | undefined {
  for (let x: unknown = e, i = 0; x && typeof x === 'object' && i < 5; x = (x as { cause?: unknown }).cause, i++) {
    if (typeof (x as { code?: unknown }).code === 'string') return (x as { code: string }).code;
  }
  return undefined;
}

test('nothing listening: "connection refused", with the URL, host and port, and what to check', async () => {
  const url = `http://127.0.0.1:${await freePort()}/mcp`;
  const e = await connectError(url, { timeoutMs: 10_000 });
  assert.ok(e instanceof ChannelError, `got ${String(e)}`);
  assert.ok(e.message.startsWith(`could not connect to ${url}: connection refused`), e.message);
  assert.match(e.message, /\(nothing is listening on 127\.0\.0\.1:\d+\)\. Check that the server is running/);
  assert.equal(causeCode(e), 'ECONNREFUSED', 'the fetch error (and its ECONNREFUSED) is the cause');
});

test('a host that does not resolve: "host not found", with the URL and the host name', async () => {
  // .invalid never resolves; here the lookup fails at once (ENOTFOUND). timeoutMs bounds it if a resolver stalls.
  const started = Date.now();
  const e = await connectError('http://nonexistent.invalid/mcp', { timeoutMs: 10_000 });
  assert.ok(e instanceof ChannelError, `got ${String(e)} after ${Date.now() - started} ms`);
  assert.ok(
    e.message.startsWith('could not connect to http://nonexistent.invalid/mcp: host not found (nonexistent.invalid does not resolve'),
    e.message,
  );
  assert.match(e.message, /Check the host name in the URL/);
});

test('an HTML page: "not an MCP endpoint", with the URL, the status, the content type and the page title', async (t) => {
  const s = await rawServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><html><head><title>Welcome to nginx!</title></head><body>hi</body></html>');
  });
  t.after(() => s.close());
  const e = await connectError(s.url);
  assert.ok(e instanceof ChannelError, `got ${String(e)}`);
  assert.ok(
    e.message.startsWith(
      `${s.url.href} is not an MCP endpoint: it answered POST server/discover with HTTP 200 text/html, an HTML page titled "Welcome to nginx!"`,
    ),
    e.message,
  );
  assert.match(e.message, /Check the URL/);
  assert.equal(e.status, 200);
  assert.match(e.body ?? '', /<title>Welcome to nginx!<\/title>/);
});

test('JSON that is not JSON-RPC (another API): "not an MCP endpoint", with what came back', async (t) => {
  const s = await rawServer(
    (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","version":"1.4"}'),
  );
  t.after(() => s.close());
  const e = await connectError(s.url);
  assert.ok(e instanceof ChannelError, `got ${String(e)}`);
  assert.match(
    e.message,
    /is not an MCP endpoint: it answered POST server\/discover with HTTP 200 application\/json, "\{\\"status\\":\\"ok\\",\\"version\\":\\"1\.4\\"\}"/,
  );
});

for (const status of [404, 405, 501]) {
  test(`every step answered ${status} (probe, initialize, HTTP+SSE GET): "not an MCP endpoint", listing what each step got`, async (t) => {
    const s = await rawServer((_req, res) => void res.writeHead(status).end());
    t.after(() => s.close());
    const rec = recordingFetch();
    const e = await connectError(s.url, { fetch: rec.fetch });
    assert.ok(e instanceof ChannelError, `got ${String(e)}`);
    assert.equal(e.status, status);
    assert.equal(
      e.message.split('. ')[0],
      `${s.url.href} is not an MCP endpoint: it answered POST server/discover with HTTP ${status}, POST initialize with HTTP ${status} and GET (the 2024-11-05 HTTP+SSE stream) with HTTP ${status}`,
    );
    assert.match(e.message, /Check the URL: it must be the server's MCP endpoint/);
    assert.ok(e.cause instanceof ChannelError, "the last step's own error is the cause");
    assert.deepEqual(
      rec.log.map((x) => `${x.method} ${x.body?.method ?? '-'} ${x.status}`),
      [`POST server/discover ${status}`, `POST initialize ${status}`, `GET - ${status}`],
    );
  });
}

test('a server that accepts and never answers: the timeout names the step (server/discover) and the duration', async (t) => {
  const s = await nodeServer(() => {}); // requests are read and left hanging
  t.after(() => s.close());
  const e = await connectError(s.url, { timeoutMs: 400 });
  assert.ok(e instanceof JanusError && e.code === 'TIMEOUT', `got ${String(e)}`);
  assert.match(e.message, /^server\/discover timed out: the server sent no answer within 400 ms\./);
});
