/**
 * Slow clients and too many connections (before these bounds, a body sent one byte every 5 s
 * held a connection for 330 s, and nothing capped connections). The handler's body deadline
 * (`bodyTimeoutMs`, also inside the user's own server), `serveHttp`'s header and request
 * timeouts, and its connection cap (`maxConnections`), each answered with a clear status.
 * Raw sockets on 127.0.0.1, so the test decides exactly what arrives and when.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import net from 'node:net';
import { test } from 'node:test';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { createFetchHandler, createNodeHandler, serveHttp } from '../../src/transports/http/index.js';
import { JSON_HEADERS } from '../support/http.js';

/** A raw connection: what it received, and a promise for its end. */
function connect(port: number): Promise<{ socket: net.Socket; received: () => string; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('error', () => {});
    const ended = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, received: () => text, ended }));
    socket.once('error', reject);
  });
}

const POST_HEAD = (port: number, length: number) =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${length}\r\n\r\n`;

test('a body slower than bodyTimeoutMs gets 408 and the connection closes, in your own node:http server too', {
  timeout: 30_000,
}, async () => {
  const mcp = createNodeHandler(createEverythingServer(), { bodyTimeoutMs: 300 });
  const http = createHttpServer((req, res) => mcp(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as net.AddressInfo).port;
  try {
    const c = await connect(port);
    c.socket.write(`${POST_HEAD(port, 100)}{`); // one byte of a hundred, then nothing
    await c.ended;
    const text = c.received();
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.match(text, /bodyTimeoutMs/);
    assert.match(text, /"code":-32600/);
  } finally {
    await mcp.close();
    http.close();
  }
});

test('serveHttp: headers slower than headersTimeoutMs → 408 and closed; defaults 10 s headers, 60 s request', {
  timeout: 30_000,
}, async () => {
  const s = await serveHttp(createEverythingServer(), { headersTimeoutMs: 300 });
  const byDefault = await serveHttp(createEverythingServer());
  try {
    assert.equal(byDefault.httpServer.headersTimeout, 10_000);
    assert.equal(byDefault.httpServer.requestTimeout, 60_000);
    const c = await connect(s.port);
    c.socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // headers never finish
    await c.ended;
    assert.match(c.received(), /^HTTP\/1\.1 408 /);
  } finally {
    await s.close();
    await byDefault.close();
  }
});

test('serveHttp: a request slower than requestTimeoutMs is cut off even when the body deadline is longer', {
  timeout: 30_000,
}, async () => {
  const s = await serveHttp(createEverythingServer(), { headersTimeoutMs: 200, requestTimeoutMs: 400, bodyTimeoutMs: 600_000 });
  try {
    const c = await connect(s.port);
    c.socket.write(`${POST_HEAD(s.port, 100)}{`);
    await c.ended;
    assert.match(c.received(), /^HTTP\/1\.1 408 /);
  } finally {
    await s.close();
  }
});

test('serveHttp: a connection beyond maxConnections gets 503 with a JSON-RPC error naming the limit; a freed slot is reused', {
  timeout: 30_000,
}, async () => {
  const s = await serveHttp(createEverythingServer(), { maxConnections: 2 });
  try {
    const a = await connect(s.port);
    const b = await connect(s.port);
    const c = await connect(s.port);
    await c.ended;
    assert.match(c.received(), /^HTTP\/1\.1 503 /);
    assert.match(c.received(), /maxConnections/);
    assert.match(c.received(), /"code":-32600/);
    a.socket.destroy();
    await a.ended;
    // The server notices the closed connection asynchronously: retry until the slot is free.
    let answer = '';
    for (let i = 0; i < 50 && !answer.startsWith('HTTP/1.1 405'); i++) {
      const d = await connect(s.port);
      d.socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nConnection: close\r\n\r\n`);
      await d.ended;
      answer = d.received();
    }
    assert.match(answer, /^HTTP\/1\.1 405 /, 'a GET from a browser is answered again');
    b.socket.destroy();
  } finally {
    await s.close();
  }
});

test('the fetch handler applies bodyTimeoutMs to a body that stops arriving', { timeout: 30_000 }, async () => {
  const handler = createFetchHandler(createEverythingServer(), { bodyTimeoutMs: 300 });
  // A runtime's server keeps the process alive; here nothing else would (the deadline timer is unref'd).
  const alive = setInterval(() => {}, 1000);
  try {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{'));
      },
    });
    const res = await handler(
      new Request('http://127.0.0.1/mcp', { method: 'POST', headers: JSON_HEADERS, body, duplex: 'half' } as RequestInit),
    );
    assert.equal(res.status, 408);
    assert.match(await res.text(), /bodyTimeoutMs/);
  } finally {
    clearInterval(alive);
    await handler.close();
  }
});
