/**
 * `maxStreamBufferBytes` on the web-standard handler (Bun, Deno, Workers): a listen stream
 * whose body nobody reads holds at most that much; past it the stream is closed and its
 * subscription ends, while a stream that is read gets every event, also a burst larger than
 * the bound written within one turn (on both handlers). The Node handler's bound with stalled
 * sockets is test/reliability/stalled-readers.test.ts and test/http-e2e/stalled-streams.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { connect } from '../../src/client/index.js';
import { createFetchHandler, createNodeHandler, serveHttp } from '../../src/transports/http/index.js';
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

/** Reads a response's body as it comes: the text so far, the tools list_changed events in it, and a way to stop. */
function readAll(response: Response): { text(): string; changes(): number; stop(): Promise<void> } {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let received = '';
  const reading = (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) received += decoder.decode(r.value, { stream: true });
  })();
  return {
    text: () => received,
    changes: () => (received.match(/notifications\/tools\/list_changed/g) ?? []).length,
    async stop() {
      await reader.cancel();
      await reading;
    },
  };
}

test('fetch handler: an unread listen stream is closed past maxStreamBufferBytes; a read one gets every event', async () => {
  const server = createServer({ name: 'bound', version: '1.0.0' });
  server.tool('t', () => 't');
  const handler = createFetchHandler(server, { maxStreamBufferBytes: 16 * 1024 });
  try {
    const unread = await handler(listenRequest('unread'));
    const read = await handler(listenRequest('read'));
    assert.equal(server.stats().listenStreams, 2);
    const reading = readAll(read);
    const EVENTS = 2_000; // about 300 KB per stream: far past the bound
    for (let i = 0; i < EVENTS; i++) {
      server.listChanged('tools');
      if (i % 10 === 9) await new Promise((r) => setImmediate(r));
    }
    await until(() => reading.changes() === EVENTS, 'every event on the read stream');
    assert.equal(server.stats().listenStreams, 1, 'the unread stream ended its subscription');
    await assert.rejects(unread.text(), 'the unread stream was closed with an error, as a dropped connection');
    await reading.stop();
  } finally {
    await handler.close();
    server.close();
  }
});

test('fetch handler: a burst past the bound within one turn reaches a stream that is read', async () => {
  const server = createServer({ name: 'bound', version: '1.0.0' });
  server.tool('t', () => 't');
  const handler = createFetchHandler(server, { maxStreamBufferBytes: 16 * 1024 });
  try {
    const read = await handler(listenRequest('read'));
    const reading = readAll(read);
    await until(() => reading.text().includes('acknowledged'), 'the stream open');
    for (let i = 0; i < 2_000; i++) server.listChanged('tools'); // about 300 KB before the runtime can take any
    await until(() => reading.changes() === 2_000, 'the whole burst');
    assert.equal(server.stats().listenStreams, 1);
    await reading.stop();
  } finally {
    await handler.close();
    server.close();
  }
});

test('Node handler: a burst past the bound within one turn reaches a client that reads', async () => {
  const server = createServer({ name: 'bound', version: '1.0.0' });
  server.tool('t', () => 't');
  const http = await serveHttp(server, { host: '127.0.0.1', port: 0, maxStreamBufferBytes: 16 * 1024 });
  const client = await connect(http.url, { protocolVersion: '2026-07-28', maxQueuedNotifications: 10_000 });
  const stop = new AbortController();
  let heard = 0;
  const listening = (async () => {
    for await (const _ of client.listen({ toolsListChanged: true }, { signal: stop.signal })) heard++;
  })();
  try {
    await until(() => server.stats().listenStreams === 1, 'the stream open');
    for (let i = 0; i < 2_000; i++) server.listChanged('tools');
    await until(() => heard === 2_000, 'the whole burst');
    assert.equal(server.stats().listenStreams, 1, 'the stream stayed open');
  } finally {
    stop.abort();
    await listening;
    await client.close();
    await http.close();
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
