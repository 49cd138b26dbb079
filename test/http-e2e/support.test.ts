/**
 * The e2e harness itself: the SSE parser (WHATWG HTML §9.2.6) and the peer's schema check,
 * so that a passing e2e test means the server was right, not that the harness looked away.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser } from '../support/http.js';
import { HttpPeer } from './support.js';

test('SseParser: events split across chunks, CRLF and LF, comments, multi-line data, priming events with empty data', () => {
  const p = new SseParser();
  const out = [
    ...p.push(':\n\nid: s.1#1\nretry: 1000\ndata: \n\nevent: endpoint\r\ndata: /mcp?sessionId=a'),
    ...p.push('b\r\n\r\nevent: message\nid: s.1#2\ndata: {"a":\ndata: 1}\n'),
    ...p.push('\nretry: soon\ndata:x\n\n'),
  ];
  assert.deepEqual(out, [
    { event: 'message', data: '', id: 's.1#1', retry: 1000 },
    { event: 'endpoint', data: '/mcp?sessionId=ab' },
    { event: 'message', data: '{"a":\n1}', id: 's.1#2' },
    { event: 'message', data: 'x' },
  ]);
});

test('HttpPeer.check: a schema-invalid server message is a recorded violation, a valid one is not', () => {
  const peer = new HttpPeer(new URL('http://127.0.0.1/mcp'), '2025-11-25');
  peer.remember({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
  assert.equal(peer.check({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } }), undefined);
  assert.match(peer.check({ jsonrpc: '2.0', id: 1, result: { content: 'not an array' } }) ?? '', /CallToolResult/);
  assert.match(
    peer.check({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: {} }) ?? '',
    /not a server notification/,
  );
  assert.equal(peer.violations.length, 2);
  assert.throws(() => peer.assertClean(), /broke the wire contract/);
});
