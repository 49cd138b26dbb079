/**
 * HttpChannel against hand-written servers: Streamable HTTP of 2025-03-26 … 2025-11-25
 * (docs/2025-11-25/basic/transports.mdx: sending messages, SSE replies, sessions, the
 * protocol version header, resumability and SSE polling, the standalone GET stream) and of
 * 2026-07-28 (basic/transports/streamable-http.mdx: JSON-RPC errors on 400/404, closing the
 * stream is cancellation, no resumption).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChannelError } from '../../src/client/channel.js';
import { HttpChannel, HttpChannelError, httpStatusOf } from '../../src/client/channels/http.js';
import { JanusError } from '../../src/protocol/errors.js';
import { json } from '../support/http.js';
import { delay } from '../support/wait.js';
import { closed, frame, mockServer, Recorder, request, sseHead, type Handler, type Mock } from './mock.js';

async function withServer(
  handler: Handler,
  fn: (mock: Mock, channel: HttpChannel, rec: Recorder) => Promise<void>,
  options: ConstructorParameters<typeof HttpChannel>[1] = {},
): Promise<void> {
  const mock = await mockServer(handler);
  const channel = new HttpChannel(mock.url, options);
  const rec = new Recorder();
  await channel.start(rec);
  try {
    await fn(mock, channel, rec);
  } finally {
    await channel.close();
    await mock.close();
  }
}

const ok = (id: unknown, result: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, result });

test('POST with a JSON reply: the response resolves; Content-Type, Accept and the extra headers are sent (§Sending Messages 1-2, 5)', async () => {
  await withServer(
    (_req, res, seen) => json(res, 200, ok(JSON.parse(seen.body).id, { tools: [] })),
    async (mock, channel) => {
      const r = await channel.request(request(1, 'tools/list'), { headers: { 'Mcp-Method': 'tools/list' } });
      assert.deepEqual(r, ok(1, { tools: [] }));
      assert.equal(httpStatusOf(r), 200);
      const h = mock.seen[0]!.headers;
      assert.equal(mock.seen[0]!.method, 'POST');
      assert.equal(h['content-type'], 'application/json');
      assert.equal(h.accept, 'application/json, text/event-stream');
      assert.equal(h['mcp-method'], 'tools/list');
      assert.equal(h.authorization, 'Bearer t');
      assert.equal(h['mcp-session-id'], undefined);
      assert.deepEqual(JSON.parse(mock.seen[0]!.body), request(1, 'tools/list'));
    },
    { headers: { Authorization: 'Bearer t' } },
  );
});

test('SSE reply: notifications, a server request and a stray response reach onMessage in order, before the response resolves', async () => {
  await withServer(
    async (_req, res) => {
      sseHead(res);
      res.write(frame({ id: '1', data: '' }));
      res.write(frame({ data: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } } }));
      // A CRLF-framed event split mid-line across writes.
      const req = JSON.stringify({ jsonrpc: '2.0', id: 's1', method: 'roots/list', params: {} });
      res.write(`event: message\r\ndata: ${req.slice(0, 10)}`);
      await delay(20);
      res.write(`${req.slice(10)}\r\n\r\n`);
      res.write(': comment\n\n');
      res.write(frame({ event: 'other', data: { ignored: true } }));
      res.write(frame({ data: ok(999) }));
      res.write(frame({ data: ok(7, { content: [] }) }));
      res.end();
    },
    async (_mock, channel, rec) => {
      const r = await channel.request(request(7, 'tools/call', { name: 'x' }));
      assert.deepEqual(r, ok(7, { content: [] }));
      // Delivered synchronously before the resolution, in stream order.
      assert.deepEqual(
        rec.messages.map((m) => ('method' in m ? m.method : `response ${String(m.id)}`)),
        ['notifications/progress', 'roots/list', 'response 999'],
      );
    },
  );
});

test('a 4xx carrying a JSON-RPC error resolves with it; httpStatusOf tells 400 from 404 (2026-07-28 §Backward Compatibility)', async () => {
  await withServer(
    (_req, res, seen) => {
      const { id, method } = JSON.parse(seen.body);
      if (method === 'server/discover')
        return json(res, 400, {
          jsonrpc: '2.0',
          id,
          error: { code: -32022, message: 'unsupported', data: { supported: ['2026-07-28'], requested: 'x' } },
        });
      if (method === 'nope') return json(res, 404, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
      // Header validation before the id was read: an error with no id.
      return (
        res.writeHead(400, { 'content-type': 'application/json' }),
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32020, message: 'mismatch' } }))
      );
    },
    async (_mock, channel) => {
      const a = await channel.request(request(1, 'server/discover'));
      assert.ok('error' in a && a.error.code === -32022);
      assert.equal(httpStatusOf(a), 400);
      const b = await channel.request(request(2, 'nope'));
      assert.ok('error' in b && b.error.code === -32601);
      assert.equal(httpStatusOf(b), 404);
      const c = await channel.request(request(3, 'tools/call'));
      assert.ok('error' in c && c.error.code === -32020);
    },
  );
});

test('401 and 403 reject with their status and headers even with a JSON-RPC body; other statuses without one reject with status and body', async () => {
  await withServer(
    (_req, res, seen) => {
      const { id, method } = JSON.parse(seen.body);
      if (method === 'a')
        return json(
          res,
          401,
          { jsonrpc: '2.0', id, error: { code: -32001, message: 'auth' } },
          { 'www-authenticate': 'Bearer resource_metadata="http://x/prm"' },
        );
      if (method === 'b') return json(res, 403, { jsonrpc: '2.0', error: { code: -32600, message: 'bad origin' } });
      if (method === 'c') return (res.writeHead(405, { allow: 'GET' }), res.end('Method Not Allowed'));
      return (res.writeHead(500), res.end('boom'));
    },
    async (_mock, channel) => {
      await assert.rejects(channel.request(request(1, 'a')), (e: unknown) => {
        assert.ok(e instanceof HttpChannelError && e instanceof ChannelError);
        assert.equal(e.status, 401);
        assert.equal(e.headers?.get('www-authenticate'), 'Bearer resource_metadata="http://x/prm"');
        return true;
      });
      await assert.rejects(channel.request(request(2, 'b')), (e: unknown) => e instanceof ChannelError && e.status === 403);
      await assert.rejects(
        channel.request(request(3, 'c')),
        (e: unknown) => e instanceof ChannelError && e.status === 405 && e.body === 'Method Not Allowed',
      );
      await assert.rejects(
        channel.request(request(4, 'd')),
        (e: unknown) => e instanceof ChannelError && e.status === 500 && e.body === 'boom',
      );
    },
  );
});

test('session: Mcp-Session-Id from the initialize reply goes back on every request; MCP-Protocol-Version only from 2025-06-18 (§Session Management, §Protocol Version Header)', async () => {
  await withServer(
    (req, res, seen) => {
      if (req.method === 'DELETE') return res.writeHead(200).end();
      const m = JSON.parse(seen.body);
      if (m.method === 'initialize') return json(res, 200, ok(m.id, { protocolVersion: '2025-11-25' }), { 'MCP-Session-Id': 'sess-1' });
      if (!('id' in m)) return (res.writeHead(202), res.end());
      return json(res, 200, ok(m.id));
    },
    async (mock, channel) => {
      await channel.request(request(1, 'initialize'));
      assert.equal(channel.sessionId, 'sess-1');
      await channel.request(request(2, 'tools/list'));
      channel.setLegacyVersion('2025-03-26');
      await channel.request(request(3, 'tools/list'));
      channel.setLegacyVersion('2025-11-25');
      await channel.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await channel.send({ jsonrpc: '2.0', id: 's1', result: {} });
      await channel.request(request(4, 'initialize'));
      const h = mock.seen.filter((s) => s.method === 'POST').map((s) => [s.headers['mcp-session-id'], s.headers['mcp-protocol-version']]);
      assert.deepEqual(h, [
        [undefined, undefined],
        ['sess-1', undefined],
        ['sess-1', undefined], // 2025-03-26 had no version header
        ['sess-1', '2025-11-25'],
        ['sess-1', '2025-11-25'],
        [undefined, undefined], // a new initialize starts a new session
      ]);
    },
  );
});

test('404 to a request carrying the session id: ChannelError 404 and the session is cleared (§Session Management 4); until a new initialize, requests fail the same way unsent, never without the id', async () => {
  let gone = false;
  await withServer(
    (_req, res, seen) => {
      const m = JSON.parse(seen.body);
      if (m.method === 'initialize') return json(res, 200, ok(m.id), { 'mcp-session-id': gone ? 'new' : 'old' });
      if (gone && seen.headers['mcp-session-id'] === 'old')
        return json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
      return json(res, 200, ok(m.id));
    },
    async (mock, channel) => {
      const expired = (e: unknown) => e instanceof ChannelError && e.status === 404;
      await channel.request(request(1, 'initialize'));
      gone = true;
      await assert.rejects(channel.request(request(2, 'tools/list')), expired);
      assert.equal(channel.sessionId, undefined);
      await assert.rejects(channel.request(request(3, 'tools/list')), expired);
      assert.equal(mock.seen.length, 2, 'nothing sent without the session id');
      await channel.request(request(4, 'initialize'));
      assert.equal(mock.seen[2]!.headers['mcp-session-id'], undefined, 'a new initialize carries no stale id');
      await channel.request(request(5, 'tools/list'));
      assert.equal(mock.seen[3]!.headers['mcp-session-id'], 'new');
    },
  );
});

test('SSE polling: priming event + retry 300 + close → GET with Last-Event-ID and the session after ~300 ms; the response comes from the resumed stream (2025-11-25 §Sending Messages 6)', async () => {
  let postEnded = 0;
  await withServer(
    (req, res, seen) => {
      if (req.method === 'POST') {
        const m = JSON.parse(seen.body);
        if (m.method === 'initialize') return json(res, 200, ok(m.id), { 'mcp-session-id': 's' });
        sseHead(res);
        res.write(frame({ id: 'stream-1/0', retry: 300, data: '' }));
        res.end(() => (postEnded = performance.now()));
        return;
      }
      if (req.method === 'GET') {
        sseHead(res);
        res.write(
          frame({
            id: 'stream-1/1',
            data: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'resumed' } },
          }),
        );
        res.write(frame({ id: 'stream-1/2', data: ok(2, { content: [{ type: 'text', text: 'done' }] }) }));
        res.end();
        return;
      }
      res.writeHead(405).end();
    },
    async (mock, channel, rec) => {
      await channel.request(request(1, 'initialize'));
      channel.setLegacyVersion('2025-11-25');
      const r = await channel.request(request(2, 'tools/call', { name: 'test_reconnection' }));
      assert.deepEqual(r, ok(2, { content: [{ type: 'text', text: 'done' }] }));
      const get = mock.seen.find((s) => s.method === 'GET')!;
      assert.equal(get.headers['last-event-id'], 'stream-1/0');
      assert.equal(get.headers.accept, 'text/event-stream');
      assert.equal(get.headers['mcp-session-id'], 's');
      assert.equal(get.headers['mcp-protocol-version'], '2025-11-25');
      const waited = get.at - postEnded;
      assert.ok(waited >= 270 && waited < 600, `reconnected after ${waited.toFixed(0)} ms`);
      assert.equal(rec.messages.length, 1);
    },
  );
});

test('resumption keeps polling while the server keeps priming, using the default delay without retry', async () => {
  let gets = 0;
  await withServer(
    (req, res) => {
      sseHead(res);
      if (req.method === 'POST') return res.end(frame({ id: 'e0', data: '' }));
      gets++;
      if (gets < 3) return res.end(frame({ id: `e${gets}`, data: '' }));
      res.end(frame({ id: 'e9', data: ok(1) }));
    },
    async (mock, channel) => {
      const r = await channel.request(request(1, 'tools/call'));
      assert.deepEqual(r, ok(1));
      assert.deepEqual(
        mock.seen.filter((s) => s.method === 'GET').map((s) => s.headers['last-event-id']),
        ['e0', 'e1', 'e2'],
      );
    },
    { reconnect: { initialDelayMs: 20, maxRetries: 1 } },
  );
});

test('a stream that ends before the response without an event id, or on the modern wire, rejects without reconnecting', async () => {
  await withServer(
    (req, res) => {
      sseHead(res);
      res.end(
        req.method === 'POST'
          ? frame({ id: 'x', data: { jsonrpc: '2.0', method: 'notifications/progress', params: {} } }).replace('id: x\n', '')
          : '',
      );
    },
    async (mock, channel) => {
      await assert.rejects(channel.request(request(1, 'tools/call')), ChannelError);
      assert.equal(mock.seen.filter((s) => s.method === 'GET').length, 0);
    },
  );
  await withServer(
    (_req, res) => {
      sseHead(res);
      res.end(frame({ id: 'x', data: '' }));
    },
    async (mock, channel) => {
      const modern = request(1, 'tools/call', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
      await assert.rejects(channel.request(modern), ChannelError);
      assert.equal(mock.seen.filter((s) => s.method === 'GET').length, 0);
    },
    { reconnect: { initialDelayMs: 10 } },
  );
});

test('a resume refused with 405 rejects with ChannelError 405; network failures are retried a bounded number of times', async () => {
  await withServer(
    (req, res) => {
      if (req.method === 'GET') return res.writeHead(405).end();
      sseHead(res);
      res.end(frame({ id: '1', data: '' }));
    },
    async (_mock, channel) => {
      await assert.rejects(channel.request(request(1, 'tools/call')), (e: unknown) => e instanceof ChannelError && e.status === 405);
    },
    { reconnect: { initialDelayMs: 10 } },
  );
  await withServer(
    (req, res) => {
      if (req.method === 'GET') return void res.socket?.destroy();
      sseHead(res);
      res.end(frame({ id: '1', data: '' }));
    },
    async (mock, channel) => {
      await assert.rejects(
        channel.request(request(1, 'tools/call')),
        (e: unknown) => e instanceof ChannelError && /resume/.test(e.message),
      );
      assert.equal(mock.seen.filter((s) => s.method === 'GET').length, 3);
    },
    { reconnect: { initialDelayMs: 5, maxDelayMs: 20, maxRetries: 2 } },
  );
});

test('standalone GET stream: delivers server messages, reconnects with Last-Event-ID after retry, and is closed with the channel, which DELETEs the session', async () => {
  let second: Promise<void> | undefined;
  await withServer(
    (req, res, seen) => {
      if (req.method === 'POST') {
        const m = JSON.parse(seen.body);
        return json(res, 200, ok(m.id), { 'mcp-session-id': 'sid' });
      }
      if (req.method === 'DELETE') return res.writeHead(200).end();
      sseHead(res);
      if (!seen.headers['last-event-id']) {
        res.write(frame({ id: 'g1', retry: 50, data: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } }));
        return res.end();
      }
      second = closed(res);
      res.write(frame({ id: 'g2', data: { jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: {} } }));
    },
    async (mock, channel, rec) => {
      await channel.request(request(1, 'initialize'));
      channel.openEventStream();
      channel.openEventStream(); // once only
      await rec.until(() => rec.messages.length === 2);
      assert.deepEqual(
        rec.messages.map((m) => ('method' in m ? m.method : '')),
        ['notifications/tools/list_changed', 'sampling/createMessage'],
      );
      const gets = mock.seen.filter((s) => s.method === 'GET');
      assert.equal(gets.length, 2);
      assert.equal(gets[0]!.headers['mcp-session-id'], 'sid');
      assert.equal(gets[1]!.headers['last-event-id'], 'g1');
      await channel.close();
      await second; // the server saw the stream go
      const del = mock.seen.find((s) => s.method === 'DELETE');
      assert.equal(del?.headers['mcp-session-id'], 'sid');
      assert.equal(rec.closes.length, 1);
    },
  );
});

test('standalone GET answered 405: the channel stops quietly; close without a session sends no DELETE', async () => {
  await withServer(
    (req, res, seen) => {
      if (req.method === 'GET') return res.writeHead(405).end();
      json(res, 200, ok(JSON.parse(seen.body).id));
    },
    async (mock, channel) => {
      channel.openEventStream();
      await delay(100);
      assert.equal(mock.seen.filter((s) => s.method === 'GET').length, 1);
      await channel.request(request(1, 'tools/list'));
      await channel.close();
      assert.equal(mock.seen.filter((s) => s.method === 'DELETE').length, 0);
    },
    { reconnect: { initialDelayMs: 10 } },
  );
});

test('close: DELETE answered 405 is fine; pending requests reject; later calls reject', async () => {
  await withServer(
    (req, res, seen) => {
      if (req.method === 'DELETE') return res.writeHead(405).end();
      const m = JSON.parse(seen.body);
      if (m.method === 'initialize') return json(res, 200, ok(m.id), { 'mcp-session-id': 'z' });
      sseHead(res); // never answers
    },
    async (mock, channel) => {
      await channel.request(request(1, 'initialize'));
      const pending = assert.rejects(channel.request(request(2, 'tools/call')), ChannelError);
      await delay(50);
      await channel.close();
      await pending;
      await assert.rejects(channel.request(request(3, 'tools/list')), ChannelError);
      await assert.rejects(channel.send({ jsonrpc: '2.0', method: 'notifications/x' }), ChannelError);
      assert.equal(mock.seen.filter((s) => s.method === 'DELETE').length, 1);
    },
  );
});

test('aborting the signal aborts the POST: the server sees the connection close (2026-07-28 §Cancellation) and the request rejects ABORTED', async () => {
  let gone: Promise<void> | undefined;
  await withServer(
    (_req, res) => {
      gone = closed(res);
      sseHead(res);
      res.write(frame({ data: { jsonrpc: '2.0', method: 'notifications/progress', params: {} } }));
    },
    async (_mock, channel, rec) => {
      const controller = new AbortController();
      const p = channel.request(request(1, 'tools/call'), { signal: controller.signal });
      await rec.until(() => rec.messages.length === 1);
      controller.abort();
      await assert.rejects(p, (e: unknown) => e instanceof JanusError && e.code === 'ABORTED');
      await gone;
    },
  );
});

test('send: 202 resolves; a refused notification rejects with its status', async () => {
  await withServer(
    (_req, res, seen) => {
      const m = JSON.parse(seen.body);
      if (m.method === 'notifications/bad')
        return res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'no' } }));
      res.writeHead(202).end();
    },
    async (mock, channel) => {
      await channel.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await assert.rejects(
        channel.send({ jsonrpc: '2.0', method: 'notifications/bad' }),
        (e: unknown) => e instanceof ChannelError && e.status === 400,
      );
      assert.equal(mock.seen[0]!.headers.accept, 'application/json, text/event-stream');
    },
  );
});
