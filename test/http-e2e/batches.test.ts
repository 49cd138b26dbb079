/**
 * 2025-03-26 batches over Streamable HTTP against the real server (JSON-RPC 2.0 §6: the
 * answers to a batch are one array, however many; a batch refused as a whole is one error):
 * - an item whose id cannot be read is answered with an error without id, still in an array;
 * - a batch is that revision's framing, so a 2026-07-28 `subscriptions/listen` in one is an
 *   unknown method there and holds none of the other answers back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { META_CAPS, META_VERSION, MODERN } from '../support/common.js';
import { HttpPeer, serve } from './support.js';

test('2025-03-26: a batch whose one answer is an error without id is an array of one, not a lone error', { timeout: 20_000 }, async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-03-26');
  try {
    await peer.initialize();
    const o = await peer.post([{}]);
    assert.equal(o.status, 200);
    assert.equal(o.kind, 'json');
    const answer = o.messages[0] as unknown;
    assert.ok(Array.isArray(answer), `an array: ${JSON.stringify(answer)}`);
    assert.equal(answer.length, 1);
    assert.equal(answer[0].error.code, -32600);
    assert.equal(answer[0].id, undefined);
    // Refused as a whole (empty) is still one error object.
    const empty = await peer.post([]);
    assert.equal(Array.isArray(empty.messages[0]), false);
    assert.equal(empty.messages[0]?.error?.code, -32600);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('2025-03-26: subscriptions/listen inside a batch is unknown there and holds back none of the other answers', {
  timeout: 20_000,
}, async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-03-26');
  try {
    await peer.initialize();
    const meta = { [META_VERSION]: MODERN, [META_CAPS]: {} };
    const o = await peer.post([
      { jsonrpc: '2.0', id: 'p', method: 'ping' },
      { jsonrpc: '2.0', id: 'l', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } },
    ]);
    assert.equal(o.status, 200);
    const answer = o.kind === 'json' ? (o.messages[0] as unknown as Array<Record<string, any>>) : o.messages;
    assert.deepEqual(
      answer.find((m) => m.id === 'p'),
      { jsonrpc: '2.0', id: 'p', result: {} },
    );
    assert.equal(answer.find((m) => m.id === 'l')?.error?.code, -32601);
    assert.equal(s.core.hub.size, 0, 'no listen stream was opened');
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('2025-03-26: an array inside a batch is one invalid item, not a batch of its own', { timeout: 20_000 }, async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-03-26');
  try {
    await peer.initialize();
    const o = await peer.post([{ jsonrpc: '2.0', id: 'p', method: 'ping' }, [{ jsonrpc: '2.0', id: 'inner', method: 'ping' }]]);
    assert.equal(o.status, 200);
    const answer = o.messages[0] as unknown as Array<Record<string, any>>;
    assert.ok(Array.isArray(answer), `an array: ${JSON.stringify(answer)}`);
    assert.equal(answer.length, 2);
    assert.deepEqual(
      answer.find((m) => m.id === 'p'),
      { jsonrpc: '2.0', id: 'p', result: {} },
    );
    assert.ok(
      answer.some((m) => m.id === undefined && m.error?.code === -32600),
      'the array item is answered -32600',
    );
    assert.ok(!answer.some((m) => m.id === 'inner'), 'nothing inside it ran');
    peer.assertClean();
  } finally {
    await s.close();
  }
});
