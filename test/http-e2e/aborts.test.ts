/**
 * Clients that go away mid-exchange, and server shutdown with streams open. The server must
 * not crash, report no errors, and leak nothing observable: legacy sessions
 * (`sessions`), listen streams (`core.hub`) and TCP connections return to baseline.
 * - 2026-07-28 streamable-http.mdx §Cancellation: closing the response stream IS cancellation.
 * - 2025-11-25 transports §Sending Messages item 6: a disconnect SHOULD NOT be read as
 *   cancellation; §Resumability: GET + Last-Event-ID replays the rest of that stream.
 * - 2024-11-05 §HTTP with SSE: the stream's end is the session's end.
 * - basic/patterns/subscriptions.mdx: a server ending a listen stream SHOULD answer it.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { createServer, type Server } from '../../src/server/index.js';
import { META_SERVER, META_SUB, MODERN } from '../support/common.js';
import { delay, until } from '../support/wait.js';
import { connections, HttpPeer, nextMessage, rpc, serve, type Served } from './support.js';

interface Counters {
  started: number;
  aborted: number;
}

/** A server whose `wait` tool reports progress once, then waits for its signal. */
function waitingServer(c: Counters): Server {
  const server = createServer({ name: 'abort-e2e', version: '1.0.0' });
  server.tool('wait', { description: 'Waits until cancelled' }, async (_args, ctx) => {
    c.started++;
    ctx.progress(0, 1);
    await new Promise((resolve) =>
      ctx.signal.aborted ? resolve(undefined) : ctx.signal.addEventListener('abort', resolve, { once: true }),
    );
    c.aborted++;
    return 'cancelled';
  });
  return server;
}

/** Sessions, listen streams and connections are back to `sessions` / 0 / 0. */
async function atBaseline(s: Served, sessions = 0): Promise<void> {
  await until(
    async () => s.sessions.size === sessions && s.core.hub.size === 0 && (await connections(s)) === 0,
    'sessions, listeners and connections to return to baseline',
  );
}

test('2026-07-28: closing the POST SSE stream cancels the request — its handler signal aborts — and the server keeps serving (§Cancellation)', async () => {
  const c: Counters = { started: 0, aborted: 0 };
  const s = await serve(waitingServer(c));
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const r = await peer.openModern('tools/call', { name: 'wait', arguments: {}, _meta: { progressToken: 'w' } }, { id: 1 });
    assert.equal(r.isSse, true);
    assert.equal((await nextMessage(r)).method, 'notifications/progress');
    r.abort();
    await until(() => c.aborted === 1, 'the handler to see the abort');
    await delay(20);
    assert.equal(r.events.length, 1, 'nothing was sent after the cancellation');
    const next = await peer.modern('server/discover', {}, { id: 2 });
    assert.equal(next.status, 200);
    await atBaseline(s);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('2026-07-28: a client that disconnects before any response byte also cancels the request', async () => {
  const c: Counters = { started: 0, aborted: 0 };
  const s = await serve(waitingServer(c));
  try {
    // No progressToken: nothing precedes the result, so the response has not started yet.
    const sock = net.connect(s.http.port, '127.0.0.1');
    const peer = new HttpPeer(s.url, MODERN);
    const body = JSON.stringify(peer.modernBody('tools/call', { name: 'wait', arguments: {} }));
    sock.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${s.http.port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
        `MCP-Protocol-Version: ${MODERN}\r\nMcp-Method: tools/call\r\nMcp-Name: wait\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await until(() => c.started === 1, 'the handler to start');
    sock.destroy();
    await until(() => c.aborted === 1, 'the handler to see the abort');
    await atBaseline(s);
  } finally {
    await s.close();
  }
});

test('2025-11-25: a client disconnect is not cancellation — the tool runs on and GET + Last-Event-ID replays the rest of the stream with the result', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-11-25');
  try {
    await peer.initialize();
    const r = await peer.open(rpc(5, 'tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p' } }));
    const priming = await r.next();
    const first = await r.next();
    assert.equal(first.message?.params?.progress, 0);
    r.abort();
    await delay(200); // the tool finishes meanwhile (3 × 50 ms)
    const resumed = await peer.get({ 'last-event-id': first.id });
    const rest = await resumed.rest();
    assert.deepEqual(
      rest.map((e) => e.message?.params?.progress ?? e.message?.result),
      [50, 100, { content: [{ type: 'text', text: 'Progress test completed' }] }],
    );
    assert.ok(rest.every((e) => e.id !== undefined && e.id !== priming.id));
    await atBaseline(s, 1);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('a connection dropped in the middle of a request body does not crash the server', async () => {
  const s = await serve();
  try {
    const sock = net.connect(s.http.port, '127.0.0.1');
    await new Promise((resolve) => sock.once('connect', resolve));
    sock.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${s.http.port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":"2.0","id":1,`,
    );
    await delay(20);
    sock.destroy();
    const peer = new HttpPeer(s.url, MODERN);
    assert.equal((await peer.modern('server/discover')).status, 200);
    await atBaseline(s);
  } finally {
    await s.close();
  }
});

test('2024-11-05: aborting the HTTP+SSE stream ends its session; its POST endpoint then answers 404', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2024-11-05');
  try {
    const stream = await peer.get();
    const endpoint = new URL((await stream.next()).data, s.url);
    assert.equal(s.sessions.size, 1);
    stream.abort();
    await atBaseline(s);
    const late = await peer.post(rpc(1, 'ping'), {}, endpoint);
    assert.equal(late.status, 404);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('2025-11-25: an aborted standalone GET stream can be reopened at once (no 409), again and again', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-11-25');
  try {
    await peer.initialize();
    for (let i = 0; i < 3; i++) {
      const get = await peer.get();
      assert.equal(get.status, 200, `attempt ${i}`);
      await get.next(); // priming: the stream is bound
      get.abort();
      await until(async () => (await connections(s)) === 0, 'the GET connection to close');
    }
    const get = await peer.get();
    await get.next();
    s.server.tool('late_tool', () => 'x');
    assert.equal((await nextMessage(get)).method, 'notifications/tools/list_changed');
    get.abort();
    await atBaseline(s, 1);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('a burst of aborted listens, progress calls and HTTP+SSE streams leaves nothing behind', async () => {
  const s = await serve();
  const modern = new HttpPeer(s.url, MODERN);
  const legacy = new HttpPeer(s.url, '2024-11-05');
  try {
    const replies = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) =>
        modern.openModern('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: `l${i}` }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        modern.openModern('tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: i } }, { id: 100 + i }),
      ),
      ...Array.from({ length: 5 }, () => legacy.get()),
    ]);
    await Promise.all(replies.map((r) => r.next()));
    assert.equal(s.core.hub.size, 10);
    assert.equal(s.sessions.size, 5);
    for (const r of replies) r.abort();
    await atBaseline(s);
    const after = await modern.modern('tools/call', { name: 'test_trigger_tool_change', arguments: {} });
    assert.equal(after.status, 200);
    modern.assertClean();
    legacy.assertClean();
  } finally {
    await s.close();
  }
});

test('closing the HTTP server ends each listen stream with its graceful result and drops the listener from the core (subscriptions.mdx §Ending a subscription)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const listen = await peer.openModern('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'L' });
    await nextMessage(listen); // the ack
    await s.http.close(); // the Server itself lives on (it may serve other transports)
    await listen.ended;
    assert.equal(s.core.hub.size, 0, 'the listener of a closed HTTP stream is still registered');
    assert.deepEqual(listen.events.at(-1)?.message, {
      jsonrpc: '2.0',
      id: 'L',
      result: {
        resultType: 'complete',
        _meta: { [META_SUB]: 'L', [META_SERVER]: { name: 'janus-everything', version: '0.1.0', title: 'Janus MCP everything fixture' } },
      },
    });
  } finally {
    await s.close();
  }
});

test('closing the HTTP server cancels in-flight 2026-07-28 requests (their response streams are gone)', async () => {
  const c: Counters = { started: 0, aborted: 0 };
  const s = await serve(waitingServer(c));
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const r = await peer.openModern('tools/call', { name: 'wait', arguments: {}, _meta: { progressToken: 1 } });
    await nextMessage(r);
    await s.http.close();
    await r.ended;
    await until(() => c.aborted === 1, 'the handler to be told');
  } finally {
    await s.close();
  }
});
