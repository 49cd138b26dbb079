/**
 * The "changed since last fetched" marker for legacy HTTP sessions, against lost
 * notifications: a list change made while a session has no GET stream open used to never
 * reach it (2025-11-25 transports §Listening for Messages: unsolicited messages go on the GET
 * stream, if there is one). Now the session keeps the marker, and its response streams announce
 * `notifications/tools/list_changed` before their final response until the client fetches
 * `tools/list` again. With a GET stream open, the change goes there and is not repeated.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import type { Msg } from '../support/common.js';
import { HttpPeer, nextMessage, serve } from './support.js';

const LIST_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };

function toolServer() {
  const server = createServer({ name: 'lists', version: '1.0.0' });
  server.tool('a', () => 'a');
  return server;
}

const methods = (messages: Msg[]) => messages.map((m) => m.method ?? (m.error ? 'error' : 'result'));

test('a change the session missed is announced on each of its response streams until it fetches tools/list', async () => {
  const server = toolServer();
  const s = await serve(server);
  const peer = new HttpPeer(s.url, '2025-11-25');
  try {
    await peer.initialize();
    const before = await peer.request('tools/call', { name: 'a', arguments: {} });
    assert.equal(before.kind, 'json', 'nothing to announce yet: a plain JSON answer');

    server.tool('b', () => 'b'); // no GET stream is open: the live notification has nowhere to go

    const first = await peer.request('tools/call', { name: 'a', arguments: {} });
    assert.equal(first.kind, 'sse');
    assert.deepEqual(methods(first.messages), ['notifications/tools/list_changed', 'result']);
    assert.deepEqual(first.messages[0], LIST_CHANGED);

    const again = await peer.request('ping');
    assert.deepEqual(methods(again.messages), ['notifications/tools/list_changed', 'result'], 'announced until fetched');

    const list = await peer.request('tools/list');
    assert.deepEqual(methods(list.messages), ['result']);
    assert.deepEqual(
      (list.messages[0]!.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name),
      ['a', 'b'],
    );

    const after = await peer.request('tools/call', { name: 'b', arguments: {} });
    assert.equal(after.kind, 'json', 'fetched: nothing to announce any more');
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('with the GET stream open, the change is delivered there and not repeated on response streams', async () => {
  const server = toolServer();
  const s = await serve(server);
  const peer = new HttpPeer(s.url, '2025-11-25');
  try {
    await peer.initialize();
    const stream = await peer.get();
    assert.equal(stream.status, 200); // the stream is bound once its headers went out
    server.tool('b', () => 'b');
    assert.deepEqual(await nextMessage(stream), LIST_CHANGED);
    const next = await peer.request('tools/call', { name: 'a', arguments: {} });
    assert.equal(next.kind, 'json');
    stream.abort();
    peer.assertClean();
  } finally {
    await s.close();
  }
});
