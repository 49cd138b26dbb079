/**
 * The SSE parser against the HTML Living Standard §9.2.6 "Interpreting an event stream"
 * (what every Streamable HTTP reply and the 2024-11-05 stream are made of).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser, type SseEvent } from '../../src/client/channels/sse-parser.js';

function parse(chunks: (string | Uint8Array)[]): { events: SseEvent[]; parser: SseParser } {
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e));
  for (const c of chunks) parser.push(c);
  parser.end();
  return { events, parser };
}

test('fields: event, multi-line data, id, retry; one leading space dropped; comments ignored', () => {
  const { events, parser } = parse([': keep-alive\nevent: update\nid: 7\nretry: 1500\ndata: first\ndata:  second\ndata\n\n']);
  assert.deepEqual(events, [{ type: 'update', data: 'first\n second\n', lastEventId: '7' }]);
  assert.equal(parser.retry, 1500);
  assert.equal(parser.lastEventId, '7');
});

test('an event without a type is a message; the id persists to later events', () => {
  const { events } = parse(['id: a\ndata: 1\n\ndata: 2\n\n']);
  assert.deepEqual(
    events.map((e) => [e.type, e.data, e.lastEventId]),
    [
      ['message', '1', 'a'],
      ['message', '2', 'a'],
    ],
  );
});

test('CRLF, CR and LF line ends, with a CRLF split across chunks', () => {
  const { events } = parse(['data: a\r', '\n\r', '\ndata: b\r\rdata: c\n\n']);
  assert.deepEqual(
    events.map((e) => e.data),
    ['a', 'b', 'c'],
  );
});

test('UTF-8 split inside a code point across chunks; a leading BOM is dropped', () => {
  const bytes = new TextEncoder().encode('\uFEFFdata: h\u00e9llo \u4e16\u754c \u{1F600}\n\n');
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 1) chunks.push(bytes.subarray(i, i + 1));
  const { events } = parse(chunks);
  assert.deepEqual(
    events.map((e) => e.data),
    ['h\u00e9llo \u4e16\u754c \u{1F600}'],
  );
});

test('a priming event (id, empty data) dispatches empty data and moves the cursor; an id-only block moves it too', () => {
  const { events, parser } = parse(['id: p1\nretry: 300\ndata:\n\n', 'id: p2\n\n']);
  assert.deepEqual(events, [{ type: 'message', data: '', lastEventId: 'p1' }]);
  assert.equal(parser.lastEventId, 'p2');
  assert.equal(parser.retry, 300);
});

test('an event cut off by the end of the stream is not dispatched and does not move the cursor', () => {
  const { events, parser } = parse(['id: 1\ndata: whole\n\nid: 2\ndata: half']);
  assert.deepEqual(
    events.map((e) => e.data),
    ['whole'],
  );
  assert.equal(parser.lastEventId, '1');
});

test('retry must be all digits; an id with NUL is ignored; unknown fields are ignored', () => {
  const { events, parser } = parse(['retry: 12a\nid: x\0y\nfoo: bar\ndata: d\n\n']);
  assert.equal(parser.retry, undefined);
  assert.equal(parser.lastEventId, '');
  assert.deepEqual(
    events.map((e) => e.data),
    ['d'],
  );
});

test('reset() drops a partial line but keeps the cursor and retry for the next connection', () => {
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e));
  parser.push('id: 5\nretry: 10\ndata: x\n\ndata: partial');
  parser.reset();
  parser.push('data: fresh\n\n');
  assert.deepEqual(
    events.map((e) => [e.data, e.lastEventId]),
    [
      ['x', '5'],
      ['fresh', '5'],
    ],
  );
  assert.equal(parser.retry, 10);
});
