/**
 * Each kind of event stream ends, as its revision allows, when its client stops reading (raw
 * sockets on 127.0.0.1 that stop reading after the response head, `maxStreamBufferBytes` at
 * 16 KiB): a 2025-11-25 session's GET stream is closed, so the session may open it again (a
 * second one is refused while the first is open); a 2024-11-05 HTTP+SSE stream is closed and its
 * session ends with it (a POST to it then gets 404); a 2026-07-28 POST answered as an event
 * stream is closed, which cancels its request (the handler's signal aborts). The listen stream's case,
 * with memory measured, is test/reliability/stalled-readers.test.ts.
 */
import assert from 'node:assert/strict';
import type net from 'node:net';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { modernMeta } from '../support/peer.js';
import { stalledRequest } from '../support/stalled-socket.js';
import { until } from '../support/wait.js';

const turn = () => new Promise((r) => setImmediate(r));

test('2025-11-25: a GET stream that is not read is closed past the bound; the session opens it again', { timeout: 120_000 }, async () => {
  const server = createServer({ name: 'stall', version: '1.0.0' });
  server.tool('t', () => 't');
  const http = await serveHttp(server, { host: '127.0.0.1', port: 0, maxStreamBufferBytes: 16 * 1024 });
  const stalled: net.Socket[] = [];
  try {
    const post = (body: object, sessionId?: string) =>
      fetch(http.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stalled', version: '1.0.0' } },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).status, 202);
    const getHead = `GET ${http.url.pathname} HTTP/1.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${sessionId}\r\nMCP-Protocol-Version: 2025-11-25\r\n`;
    const first = await stalledRequest(Number(http.url.port), getHead);
    stalled.push(first.socket);
    assert.match(first.received, /^HTTP\/1\.1 200/);
    const again = () => stalledRequest(Number(http.url.port), getHead);
    const second = await again();
    stalled.push(second.socket);
    assert.match(second.received, /^HTTP\/1\.1 409/, 'one GET stream per session while the first is open');

    // Far more than the socket's buffers and the bound take: the stream cannot keep all of it.
    for (let i = 0; i < 200_000; i++) {
      server.listChanged('tools');
      if (i % 1000 === 999) await turn();
    }
    const reopened = await until(async () => {
      const r = await again();
      stalled.push(r.socket);
      return /^HTTP\/1\.1 200/.test(r.received) && r;
    }, 'the stalled GET stream closed, so a new one opens');
    assert.match(reopened.received, /content-type: text\/event-stream/i);
  } finally {
    for (const s of stalled) s.destroy();
    await http.close();
    server.close();
  }
});

test('2024-11-05: an HTTP+SSE stream that is not read is closed past the bound, and its session ends', { timeout: 120_000 }, async () => {
  const server = createServer({ name: 'stall', version: '1.0.0' });
  server.tool('t', () => 't');
  const http = await serveHttp(server, { host: '127.0.0.1', port: 0, maxStreamBufferBytes: 16 * 1024 });
  let socket: net.Socket | undefined;
  try {
    const stalled = await stalledRequest(
      Number(http.url.port),
      `GET ${http.url.pathname} HTTP/1.1\r\nAccept: text/event-stream\r\n`,
      '',
      (r) => /event: endpoint\ndata: \S+\n\n/.test(r),
    );
    socket = stalled.socket;
    const endpoint = new URL(/event: endpoint\ndata: (\S+)\n/.exec(stalled.received)![1]!, http.url);
    const post = (body: object) =>
      fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'stalled', version: '1.0.0' } },
    };
    assert.equal((await post(initialize)).status, 202);
    assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);

    for (let i = 0; i < 200_000; i++) {
      server.listChanged('tools');
      if (i % 1000 === 999) await turn();
    }
    await until(async () => (await post({ jsonrpc: '2.0', id: 2, method: 'ping' })).status === 404, 'the session gone with its stream');
  } finally {
    socket?.destroy();
    await http.close();
    server.close();
  }
});

test('2026-07-28: a POST answered as an event stream that is not read is closed past the bound, which cancels its request', {
  timeout: 120_000,
}, async () => {
  const server = createServer({ name: 'stall', version: '1.0.0' });
  let outcome: 'cancelled' | 'finished' | undefined;
  server.tool('flood', async (_args, ctx) => {
    for (let i = 0; i < 200_000; i++) {
      if (ctx.signal.aborted) {
        outcome = 'cancelled';
        return 'cancelled';
      }
      ctx.progress(i, 200_000, 'flooding');
      if (i % 500 === 499) await turn();
    }
    outcome = 'finished';
    return 'finished';
  });
  const http = await serveHttp(server, { host: '127.0.0.1', port: 0, maxStreamBufferBytes: 16 * 1024 });
  let socket: net.Socket | undefined;
  try {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 'flood',
      method: 'tools/call',
      params: { name: 'flood', arguments: {}, _meta: { ...modernMeta(), progressToken: 'p' } },
    });
    const stalled = await stalledRequest(
      Number(http.url.port),
      `POST ${http.url.pathname} HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
        'MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: flood\r\n',
      body,
    );
    socket = stalled.socket;
    assert.match(stalled.received, /^HTTP\/1\.1 200[\s\S]*text\/event-stream/i);
    await until(() => outcome !== undefined, 'the flooding tool to end', 60_000);
    assert.equal(outcome, 'cancelled');
  } finally {
    socket?.destroy();
    await http.close();
    server.close();
  }
});
