/**
 * The SSE parser against the HTML Living Standard §9.2.6 "Interpreting an event stream"
 * (what every Streamable HTTP reply and the 2024-11-05 stream are made of): its fields, line
 * ends and chunk boundaries, in time linear in the stream, and the bound on one event
 * (`maxMessageBytes`, default 16 MiB).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
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

/**
 * A reference reading of §9.2.6, on the whole stream at once: the BOM dropped, lines split on
 * CRLF, CR or LF, the unterminated tail discarded, each line interpreted, a blank line dispatching.
 */
function reference(stream: string): { events: SseEvent[]; lastEventId: string; retry: number | undefined } {
  const lines = (stream.startsWith('\uFEFF') ? stream.slice(1) : stream).split(/\r\n|\r|\n/);
  lines.pop(); // an unterminated last line (or '' after the final line end) is not a line
  const events: SseEvent[] = [];
  let data: string[] | undefined;
  let type = '';
  let id = '';
  let lastEventId = '';
  let retry: number | undefined;
  for (const line of lines) {
    if (line === '') {
      lastEventId = id;
      if (data !== undefined) events.push({ type: type || 'message', data: data.join('\n'), lastEventId });
      data = undefined;
      type = '';
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') type = value;
    else if (field === 'data') (data ??= []).push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) retry = Number(value);
  }
  return { events, lastEventId, retry };
}

const LINE = fc.constantFrom(
  'data: a',
  'data:',
  'data:  two spaces',
  'event: update',
  'id: 7',
  'id: x\0y',
  'retry: 250',
  'retry: 1x',
  ': comment',
  '',
  '',
  'data: é 世界 😀',
  'field',
  'data',
);
const STREAM = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(LINE, fc.constantFrom('\n', '\r', '\r\n')), { maxLength: 40 }), fc.constantFrom('', 'data: tail'))
  .map(([bom, lines, tail]) => `${bom ? '\uFEFF' : ''}${lines.map(([l, end]) => l + end).join('')}${tail}`);

test('property: however the bytes are cut into chunks (CRLF and UTF-8 sequences split anywhere), the events are those of the stream read whole (§9.2.6)', () => {
  fc.assert(
    fc.property(STREAM, fc.array(fc.nat(), { maxLength: 12 }), (stream, cuts) => {
      const bytes = new TextEncoder().encode(stream);
      const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      const chunks = [0, ...at].map((start, i) => bytes.subarray(start, at[i] ?? bytes.length));
      const { events, parser } = parse(chunks);
      const want = reference(stream);
      assert.deepEqual(events, want.events);
      assert.equal(parser.lastEventId, want.lastEventId);
      assert.equal(parser.retry, want.retry);
    }),
    { numRuns: 500 },
  );
});

test('linear: a 32 MiB event in 16 KiB chunks is parsed in well under 5 s (a parser that rescans its buffer per chunk takes minutes)', {
  timeout: 120_000,
}, () => {
  const payload = 'x'.repeat(32 * 1024 * 1024);
  const bytes = new TextEncoder().encode(`data: ${payload}\n\n`);
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e), 64 * 1024 * 1024);
  const started = performance.now();
  for (let i = 0; i < bytes.length; i += 16 * 1024) parser.push(bytes.subarray(i, i + 16 * 1024));
  const ms = performance.now() - started;
  assert.equal(events.length, 1);
  assert.equal(events[0]!.data.length, payload.length);
  assert.ok(ms < 5000, `took ${Math.round(ms)} ms`);
});

test('an event larger than maxEventBytes is skipped up to its blank line and reported once; the events around it arrive; one at the bound passes', () => {
  const events: SseEvent[] = [];
  const over: number[] = [];
  const parser = new SseParser(
    (e) => events.push(e),
    16,
    (max) => over.push(max),
  );
  // 'data: 0123456789' is 16 bytes: at the bound.
  parser.push('data: 0123456789\n\nid: 9\ndata: 0123456789\ndata: more\n\ndata: after\n\n');
  assert.deepEqual(
    events.map((e) => [e.data, e.lastEventId]),
    [
      ['0123456789', ''],
      ['after', ''],
    ],
  );
  assert.deepEqual(over, [16]);
});

test('a single line over maxEventBytes is cut off while it arrives: its bytes are not kept, and the stream goes on after its event', () => {
  const events: SseEvent[] = [];
  let over = 0;
  const parser = new SseParser(
    (e) => events.push(e),
    1024,
    () => over++,
  );
  parser.push('data: ');
  for (let i = 0; i < 1000; i++) parser.push('y'.repeat(1024)); // ~1 MiB with no line end
  assert.equal(over, 1, 'reported as soon as the bound is passed, once');
  parser.push('\r\n\r\ndata: next\r\n\r\n');
  assert.deepEqual(
    events.map((e) => e.data),
    ['next'],
  );
});
