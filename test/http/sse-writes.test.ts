/**
 * How an SSE response reaches its socket (issue 15: listen streams, fan-out). Its head goes out
 * with the first event when that event is written at once (a listen stream's acknowledgement):
 * one write, not two; a stream with nothing to say yet still sends its head right away. Later
 * events go to the socket as HTTP/1.1 chunks in one piece each, unless something wraps the
 * response's `write` (compression middleware), which then sees every byte. Real sockets; what
 * the server's socket hands the kernel is recorded at `_write`/`_writev` (pieces per write).
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type TestContext, test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { createNodeHandler, serveHttp } from '../../src/transports/http/index.js';
import { MODERN, META_CAPS, META_CLIENT, META_VERSION } from '../support/common.js';
import { JSON_HEADERS, SseParser } from '../support/http.js';

type Sink = (this: Socket, ...args: unknown[]) => unknown;
type Recorded = Socket & { writes: number[]; _write: Sink; _writev: Sink };

/** Records, for each accepted socket, how many pieces each of its writes carried. */
function recordWrites(sockets: Socket[]): (socket: Socket) => void {
  return (socket) => {
    sockets.push(socket);
    const recorded = socket as Recorded;
    recorded.writes = [];
    const write = recorded._write;
    const writev = recorded._writev;
    recorded._write = function (this: Socket, ...args: unknown[]) {
      recorded.writes.push(1);
      return write.apply(this, args);
    };
    recorded._writev = function (this: Socket, ...args: unknown[]) {
      recorded.writes.push((args[0] as unknown[]).length);
      return writev.apply(this, args);
    };
  };
}

const writesOf = (s: Socket) => (s as Recorded).writes;
const meta = { [META_VERSION]: MODERN, [META_CAPS]: {}, [META_CLIENT]: { name: 't', version: '1' } };

/** Opens a listen stream and reads up to its acknowledgement. */
async function openListen(url: string, signal: AbortSignal) {
  const res = await fetch(url, {
    method: 'POST',
    signal,
    headers: { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: meta },
    }),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const parser = new SseParser();
  const reader = res.body!.getReader();
  const events: Array<{ data: string }> = [];
  const until = async (n: number) => {
    while (events.length < n) {
      const { value, done } = await reader.read();
      assert.equal(done, false, 'the stream stays open');
      events.push(...parser.push(Buffer.from(value!).toString('utf8')));
    }
    return events.map((e) => JSON.parse(e.data));
  };
  return { until };
}

/** A server with a tool (so a stream takes tools/list_changed) on serveHttp, its sockets' writes recorded, and a listen stream open on it. */
async function listening(t: TestContext) {
  const server = createServer({ name: 'sse-writes', version: '1.0.0' });
  server.tool('echo', () => 'hi');
  const http = await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp' });
  t.after(() => http.close());
  const sockets: Socket[] = [];
  http.httpServer.on('connection', recordWrites(sockets));
  const abort = new AbortController();
  t.after(() => abort.abort());
  const stream = await openListen(`http://127.0.0.1:${http.port}/mcp`, abort.signal);
  return { server, sockets, stream };
}

test('a listen stream sends its head and acknowledgement in one write, and a later event in one piece', { timeout: 10_000 }, async (t) => {
  const { server, sockets, stream } = await listening(t);
  assert.equal((await stream.until(1))[0].method, 'notifications/subscriptions/acknowledged');
  assert.equal(sockets.length, 1);
  assert.equal(writesOf(sockets[0]!).length, 1, 'the head and the acknowledgement went out in one write');

  server.tool('added', () => 'new');
  const events = await stream.until(2);
  assert.equal(events[1].method, 'notifications/tools/list_changed');
  assert.equal(events[1].params._meta['io.modelcontextprotocol/subscriptionId'], 1);
  // Through res.write it would be four pieces (size, CRLF, data, CRLF) in a corked writev.
  assert.deepEqual(writesOf(sockets[0]!).slice(1), [1], 'the event went out as one framed chunk');
});

test('events of one tick after the first leave together, in order and framed', { timeout: 10_000 }, async (t) => {
  const { server, sockets, stream } = await listening(t);
  await stream.until(1);

  // Three registrations, three list_changed events in one tick.
  for (const name of ['a', 'b', 'c']) server.tool(name, () => name);
  const events = await stream.until(4);
  assert.deepEqual(
    events.slice(1).map((e) => e.method),
    ['notifications/tools/list_changed', 'notifications/tools/list_changed', 'notifications/tools/list_changed'],
  );
  assert.deepEqual(writesOf(sockets[0]!).slice(1), [1, 2], 'the first at once, the next two in one write after it');
});

test('a response whose write is wrapped (compression middleware) sees every event', { timeout: 10_000 }, async (t) => {
  const server = createServer({ name: 'sse-writes', version: '1.0.0' });
  server.tool('echo', () => 'hi');
  const handler = createNodeHandler(server);
  const seen: string[] = [];
  const httpServer = createHttpServer((req, res) => {
    const write = res.write;
    res.write = function (this: ServerResponse, ...args: unknown[]) {
      seen.push(String(args[0]));
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    } as typeof res.write;
    handler(req, res);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    await handler.close();
    httpServer.closeAllConnections();
    await new Promise((resolve) => httpServer.close(resolve));
  });
  const abort = new AbortController();
  t.after(() => abort.abort());
  const stream = await openListen(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`, abort.signal);
  await stream.until(1);
  server.tool('added', () => 'new');
  assert.equal((await stream.until(2))[1].method, 'notifications/tools/list_changed');
  assert.equal(seen.length, 2, 'the acknowledgement and the event both went through the wrapper');
  assert.match(seen[1]!, /notifications\/tools\/list_changed/);
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
