/**
 * `maxStreamBufferBytes` on the web-standard handler (Bun, Deno, Workers): a listen stream
 * whose body nobody reads holds at most that much; past it the stream is closed and its
 * subscription ends, while a stream that is read gets every event. The Node handler's bound is
 * measured with real sockets in test/reliability/stalled-readers.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { createFetchHandler, createNodeHandler } from '../../src/transports/http/index.js';
import { modernMeta } from '../support/peer.js';
import { until } from '../support/wait.js';

function listenRequest(id: string): Request {
  return new Request('http://127.0.0.1:9/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: modernMeta() },
    }),
  });
}

test('fetch handler: an unread listen stream is closed past maxStreamBufferBytes; a read one gets every event', async () => {
  const server = createServer({ name: 'bound', version: '1.0.0' });
  server.tool('t', () => 't');
  const handler = createFetchHandler(server, { maxStreamBufferBytes: 16 * 1024 });
  try {
    const unread = await handler(listenRequest('unread'));
    const read = await handler(listenRequest('read'));
    assert.equal(server.stats().listenStreams, 2);
    const reader = read.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    const reading = (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) received += decoder.decode(r.value, { stream: true });
    })();
    const EVENTS = 2_000; // about 300 KB per stream: far past the bound
    for (let i = 0; i < EVENTS; i++) {
      server.listChanged('tools');
      if (i % 10 === 9) await new Promise((r) => setImmediate(r));
    }
    await until(() => (received.match(/notifications\/tools\/list_changed/g) ?? []).length === EVENTS, 'every event on the read stream');
    assert.equal(server.stats().listenStreams, 1, 'the unread stream ended its subscription');
    await assert.rejects(unread.text(), 'the unread stream was closed with an error, as a dropped connection');
    await reader.cancel();
    await reading;
  } finally {
    await handler.close();
    server.close();
  }
});

test('maxStreamBufferBytes must be a number of 0 or more', () => {
  const server = createServer({ name: 'bound', version: '1.0.0' });
  try {
    for (const create of [createFetchHandler, createNodeHandler]) {
      assert.throws(() => create(server, { maxStreamBufferBytes: -1 }), {
        name: 'TypeError',
        message: 'maxStreamBufferBytes must be a number of 0 or more, not -1',
      });
    }
  } finally {
    server.close();
  }
});
