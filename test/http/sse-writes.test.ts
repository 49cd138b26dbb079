/**
 * How an SSE response reaches its socket (listen streams, fan-out). Its head goes out
 * with the first event when that event is written at once (a listen stream's acknowledgement):
 * one write, not two; a stream with nothing to say yet still sends its head right away. Later
 * events go to the socket as HTTP/1.1 chunks in one piece each, unless something wraps the
 * response's `write` (compression middleware), which then sees every byte. Real sockets, read
 * by the end-to-end peer (every message checked against the official schema); what the
 * server's socket hands the kernel is recorded at `_write`/`_writev` (pieces per write).
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type TestContext, test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { createNodeHandler } from '../../src/transports/http/index.js';
import { META_SUB, MODERN } from '../support/common.js';
import { HttpPeer, nextMessage, type RawReply, serve } from '../http-e2e/support.js';

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

/** A server with a tool (so it offers tools/list_changed). */
function toolServer() {
  const server = createServer({ name: 'sse-writes', version: '1.0.0' });
  server.tool('echo', () => 'hi');
  return server;
}

/** Opens a listen stream on `url` and reads its acknowledgement. */
async function openListen(t: TestContext, url: URL): Promise<RawReply> {
  const stream = await new HttpPeer(url, MODERN).openModern(
    'subscriptions/listen',
    { notifications: { toolsListChanged: true } },
    { id: 1 },
  );
  t.after(() => stream.abort());
  assert.equal(stream.status, 200);
  assert.equal(stream.headers['content-type'], 'text/event-stream');
  assert.equal((await nextMessage(stream)).method, 'notifications/subscriptions/acknowledged');
  return stream;
}

/** `toolServer` on serveHttp, its sockets' writes recorded, and a listen stream open on it. */
async function listening(t: TestContext) {
  const served = await serve(toolServer());
  t.after(() => served.close());
  const sockets: Socket[] = [];
  served.http.httpServer.on('connection', recordWrites(sockets));
  const stream = await openListen(t, served.url);
  return { server: served.server, sockets, stream };
}

test('a listen stream sends its head and acknowledgement in one write, and a later event in one piece', { timeout: 10_000 }, async (t) => {
  const { server, sockets, stream } = await listening(t);
  assert.equal(sockets.length, 1);
  assert.equal(writesOf(sockets[0]!).length, 1, 'the head and the acknowledgement went out in one write');

  server.tool('added', () => 'new');
  const changed = await nextMessage(stream);
  assert.equal(changed.method, 'notifications/tools/list_changed');
  assert.equal(changed.params._meta[META_SUB], 1);
  // Through res.write it would be four pieces (size, CRLF, data, CRLF) in a corked writev.
  assert.deepEqual(writesOf(sockets[0]!).slice(1), [1], 'the event went out as one framed chunk');
});

test('events of one tick after the first leave together, in order and framed', { timeout: 10_000 }, async (t) => {
  const { server, sockets, stream } = await listening(t);
  // Three registrations, three list_changed events in one tick.
  for (const name of ['a', 'b', 'c']) server.tool(name, () => name);
  for (let i = 0; i < 3; i++) assert.equal((await nextMessage(stream)).method, 'notifications/tools/list_changed');
  assert.deepEqual(writesOf(sockets[0]!).slice(1), [1, 2], 'the first at once, the next two in one write after it');
});

test('a response whose write is wrapped (compression middleware) sees every event', { timeout: 10_000 }, async (t) => {
  const server = toolServer();
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
  const stream = await openListen(t, new URL(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`));
  server.tool('added', () => 'new');
  assert.equal((await nextMessage(stream)).method, 'notifications/tools/list_changed');
  assert.equal(seen.length, 2, 'the acknowledgement and the event both went through the wrapper');
  assert.match(seen[1]!, /notifications\/tools\/list_changed/);
});

test('a stream with no event to write yet still sends its head at once', { timeout: 10_000 }, async (t) => {
  // No event store: no priming event either.
  const served = await serve(toolServer(), { eventStore: false });
  t.after(() => served.close());
  const peer = new HttpPeer(served.url, '2025-11-25');
  await peer.initialize();
  // The standalone GET stream: nothing is sent on it until the server has something to say.
  const stream = await peer.get();
  t.after(() => stream.abort());
  assert.equal(stream.status, 200);
  assert.equal(stream.headers['content-type'], 'text/event-stream');
});
