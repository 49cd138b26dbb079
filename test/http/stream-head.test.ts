/**
 * An SSE response's head goes out with the stream's first event when that event is written
 * at once (a listen stream's acknowledgement): one write to the socket, not two. A stream with
 * nothing to say yet still sends its head right away. Real sockets; the server-side socket's
 * writes are counted at `_write`/`_writev`, where Node hands data to the kernel.
 */
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { MODERN, META_CAPS, META_CLIENT, META_VERSION } from '../support/common.js';
import { JSON_HEADERS, SseParser } from '../support/http.js';

type Sink = (this: Socket, ...args: unknown[]) => unknown;
type Counted = Socket & { writes: number; _write: Sink; _writev: Sink };

/** Counts what each accepted socket hands to the kernel. */
function countWrites(sockets: Socket[]): (socket: Socket) => void {
  return (socket) => {
    sockets.push(socket);
    const counted = socket as Counted;
    counted.writes = 0;
    const counting = (inner: Sink): Sink =>
      function (this: Socket, ...args: unknown[]) {
        counted.writes++;
        return inner.apply(this, args);
      };
    counted._write = counting(counted._write);
    counted._writev = counting(counted._writev);
  };
}

const writesOf = (s: Socket) => (s as Counted).writes;

test('a listen stream sends its head and acknowledgement in one write', { timeout: 10_000 }, async (t) => {
  const server = createServer({ name: 'stream-head', version: '1.0.0' });
  server.tool('echo', () => 'hi');
  const http = await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp' });
  t.after(() => http.close());
  const sockets: Socket[] = [];
  http.httpServer.on('connection', countWrites(sockets));

  const abort = new AbortController();
  t.after(() => abort.abort());
  const res = await fetch(`http://127.0.0.1:${http.port}/mcp`, {
    method: 'POST',
    signal: abort.signal,
    headers: { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: {
        notifications: { toolsListChanged: true },
        _meta: { [META_VERSION]: MODERN, [META_CAPS]: {}, [META_CLIENT]: { name: 't', version: '1' } },
      },
    }),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const parser = new SseParser();
  const reader = res.body!.getReader();
  const events = [];
  while (events.length === 0) {
    const { value, done } = await reader.read();
    assert.equal(done, false, 'the stream stays open');
    events.push(...parser.push(Buffer.from(value!).toString('utf8')));
  }
  assert.equal(JSON.parse(events[0]!.data).method, 'notifications/subscriptions/acknowledged');
  assert.equal(sockets.length, 1);
  assert.equal(writesOf(sockets[0]!), 1, 'the head and the acknowledgement went out in one write');

  // Later events are written as they come, one write each.
  server.tool('added', () => 'new');
  while (events.length < 2) {
    const { value } = await reader.read();
    events.push(...parser.push(Buffer.from(value!).toString('utf8')));
  }
  assert.equal(JSON.parse(events[1]!.data).method, 'notifications/tools/list_changed');
  assert.equal(writesOf(sockets[0]!), 2);
});

test('a stream with no event to write yet still sends its head at once', { timeout: 10_000 }, async (t) => {
  const server = createServer({ name: 'stream-head', version: '1.0.0' });
  // No event store: no priming event either.
  const http = await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp', eventStore: false });
  t.after(() => http.close());
  const url = `http://127.0.0.1:${http.port}/mcp`;
  const init = await fetch(url, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  const sid = init.headers.get('mcp-session-id');
  assert.ok(sid);
  await init.text();
  const abort = new AbortController();
  t.after(() => abort.abort());
  // The standalone GET stream: nothing is sent on it until the server has something to say.
  const stream = await fetch(url, {
    signal: abort.signal,
    headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
  });
  assert.equal(stream.status, 200);
  assert.equal(stream.headers.get('content-type'), 'text/event-stream');
});
