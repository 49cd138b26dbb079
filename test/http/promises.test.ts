/**
 * Promises are the hot path's largest cost after the socket: a POST answered by a
 * synchronous tool makes two on the server, its body's and the step after it, in both eras,
 * and opening a listen stream makes the same two: nothing waits on an open stream by a promise.
 * Counted with async_hooks around one request from a raw socket whose client side makes none
 * (the count is read in the socket's data callback, as the answer arrives).
 */
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { MODERN, META_CAPS, META_CLIENT, META_VERSION } from '../support/common.js';

let promises = 0;
const hook = createHook({
  init: (_id, type) => {
    if (type === 'PROMISE') promises++;
  },
});

function post(port: number, headers: Record<string, string>, body: unknown): string {
  const text = JSON.stringify(body);
  const lines = Object.entries({
    host: `127.0.0.1:${port}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...headers,
  });
  return `POST /mcp HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}\r\n`).join('')}content-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
}

/** Sends one request and resolves with its response text and the promises made until it arrived. */
function counted(socket: Socket, request: string, complete: (text: string) => boolean): Promise<{ text: string; promises: number }> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (!complete(text)) return;
      hook.disable();
      socket.off('data', onData);
      resolve({ text, promises });
    };
    socket.on('data', onData);
    // On the next turn: the caller's own await (a promise while hooks are on) is behind us then.
    setImmediate(() => {
      promises = 0;
      hook.enable();
      socket.write(request);
    });
  });
}

const bodyOf = (text: string) => text.slice(text.indexOf('\r\n\r\n') + 4);
const jsonComplete = (text: string) => {
  const m = /content-length: (\d+)/i.exec(text);
  return m !== null && Buffer.byteLength(bodyOf(text)) >= Number(m[1]);
};

test('a tools/call answered by a synchronous tool makes two promises on the server, in both eras', async (t) => {
  const server = createServer({ name: 'promises', version: '1.0.0' });
  server.tool('echo', () => 'hi');
  const http = await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp' });
  const socket = connect({ port: http.port, host: '127.0.0.1' });
  t.after(async () => {
    socket.destroy();
    await http.close();
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  const meta = { [META_VERSION]: MODERN, [META_CAPS]: {}, [META_CLIENT]: { name: 't', version: '1' } };
  const modern = (id: number) =>
    post(
      http.port,
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: meta } },
    );
  await counted(socket, modern(1), jsonComplete); // warm
  const call = await counted(socket, modern(2), jsonComplete);
  assert.equal(JSON.parse(bodyOf(call.text)).result.content[0].text, 'hi');
  assert.equal(call.promises, 2, 'the body and the step after it');

  const init = await counted(
    socket,
    post(
      http.port,
      {},
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
    ),
    jsonComplete,
  );
  const sid = /mcp-session-id: (\S+)/i.exec(init.text)![1]!;
  const legacyHeaders = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  await counted(socket, post(http.port, legacyHeaders, { jsonrpc: '2.0', method: 'notifications/initialized' }), (text) =>
    text.startsWith('HTTP/1.1 202'),
  );
  const legacy = (id: number) =>
    post(http.port, legacyHeaders, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
  await counted(socket, legacy(2), jsonComplete); // warm
  const session = await counted(socket, legacy(3), jsonComplete);
  assert.equal(JSON.parse(bodyOf(session.text)).result.content[0].text, 'hi');
  assert.equal(session.promises, 2, 'the body and the step after it');
});

test('opening a listen stream makes the promises of a call and none that would wait for its end', async (t) => {
  const server = createServer({ name: 'promises', version: '1.0.0' });
  server.tool('echo', () => 'hi');
  const http = await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp' });
  const sockets = [connect({ port: http.port, host: '127.0.0.1' }), connect({ port: http.port, host: '127.0.0.1' })];
  t.after(async () => {
    for (const s of sockets) s.destroy();
    await http.close();
  });
  const meta = { [META_VERSION]: MODERN, [META_CAPS]: {}, [META_CLIENT]: { name: 't', version: '1' } };
  const listen = (id: number) =>
    post(
      http.port,
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
      { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } },
    );
  const acknowledged = (text: string) => text.includes('notifications/subscriptions/acknowledged');
  await counted(sockets[0]!, listen(1), acknowledged); // warm
  const open = await counted(sockets[1]!, listen(2), acknowledged);
  // The body's and the step after it, as for a call: the open stream holds the exchange through
  // `Inbound.watch`, so no promise waits for its end (nor a guard or a step behind that one).
  assert.equal(open.promises, 2);
});
