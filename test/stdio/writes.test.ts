/**
 * How the stdio transport writes (stdio interop): a response never leaves in the
 * same write as the progress notifications before it, and it waits `progressGapMs` after the
 * last of them, so that a client reads them in separate chunks. The official TypeScript SDK
 * (v1 and v2) handles the responses of a chunk at once and its notifications a microtask later:
 * read together, the response ends the request and the last progress is dropped ("Received a
 * progress notification for an unknown token"). Bursts keep their coalesced writes
 * (docs/performance.md, scenario 4).
 */
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { StdioTransport } from '../../src/stdio/index.js';
import { until } from '../support/wait.js';

interface Write {
  at: number;
  lines: Array<Record<string, unknown>>;
}

/**
 * An output that records each write. `slow`: a reader that completes each write later (through
 * `finish`) and whose buffer holds `highWaterMark` bytes, so that the output fills up.
 */
function recorder(slow?: { highWaterMark: number; finish: (done: () => void) => void }): { output: Writable; writes: Write[] } {
  const writes: Write[] = [];
  const output = new Writable({
    ...(slow ? { highWaterMark: slow.highWaterMark } : {}),
    write(chunk: Buffer | string, _enc, done) {
      const lines = String(chunk)
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      writes.push({ at: performance.now(), lines });
      if (slow) slow.finish(() => done());
      else done();
    },
  });
  return { output, writes };
}

function progressServer() {
  const server = createServer({ name: 'progress', version: '1.0.0' });
  server.tool('count', async (_args, ctx) => {
    ctx.progress(1, 3);
    ctx.progress(2, 3);
    ctx.progress(3, 3);
    return 'counted'; // at once: the response follows the last progress in the same turn
  });
  server.tool('echo', () => 'echo');
  return server;
}

const line = (m: unknown) => `${JSON.stringify(m)}\n`;
const INIT = [
  {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];

async function connected(options: { progressGapMs?: number } = {}) {
  const input = new PassThrough();
  const { output, writes } = recorder();
  const server = progressServer();
  const connection = await server.connect(new StdioTransport({ input, output, ...options }));
  for (const m of INIT) input.write(line(m));
  await until(() => writes.some((w) => w.lines.some((l) => l.id === 0)), 'the initialize result');
  return { input, writes, server, connection };
}

for (const chunking of ['one message per chunk', 'the call in a burst chunk'] as const) {
  test(`a response is written apart from, and progressGapMs (default 50 ms) after, the progress before it (${chunking})`, async () => {
    const { input, writes, connection } = await connected();
    const from = writes.length;
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count', arguments: {}, _meta: { progressToken: 'p' } } };
    // A burst chunk (several messages) switches the transport to coalesced writes.
    input.write(chunking === 'one message per chunk' ? line(call) : line({ jsonrpc: '2.0', id: 9, method: 'ping' }) + line(call));
    await until(() => writes.some((w) => w.lines.some((l) => l.id === 1)), 'the tool result');
    const mine = writes.slice(from);
    const responseWrite = mine.findIndex((w) => w.lines.some((l) => l.id === 1));
    const progressWrites = mine.filter((w) => w.lines.some((l) => l.method === 'notifications/progress'));
    assert.equal(progressWrites.flatMap((w) => w.lines).filter((l) => l.method === 'notifications/progress').length, 3);
    assert.ok(
      mine[responseWrite]!.lines.every((l) => l.method !== 'notifications/progress'),
      'no progress notification in the write that carries the response',
    );
    const lastProgress = progressWrites.at(-1)!;
    assert.ok(mine.indexOf(lastProgress) < responseWrite, 'the progress went first');
    // Timers never fire before their time; the release allows 1 ms of rounding.
    assert.ok(mine[responseWrite]!.at - lastProgress.at >= 49, `${(mine[responseWrite]!.at - lastProgress.at).toFixed(2)} ms apart`);
    await connection.close();
  });
}

test('progressGapMs: 0 turns the wait off (the response still never shares a write with the progress of a lone call)', async () => {
  const { input, writes, connection } = await connected({ progressGapMs: 0 });
  const from = writes.length;
  input.write(
    line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count', arguments: {}, _meta: { progressToken: 'p' } } }),
  );
  await until(() => writes.some((w) => w.lines.some((l) => l.id === 1)), 'the tool result');
  assert.equal(writes.slice(from).flatMap((w) => w.lines).length, 4);
  await connection.close();
});

test('a burst without notifications is still answered in coalesced writes (docs/performance.md scenario 4)', async () => {
  const { input, writes, connection } = await connected();
  const from = writes.length;
  const n = 500;
  let burst = '';
  for (let i = 0; i < n; i++) burst += line({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'echo', arguments: {} } });
  input.write(burst);
  await until(() => writes.slice(from).flatMap((w) => w.lines).length === n, `${n} answers`);
  const count = writes.length - from;
  assert.ok(count <= 5, `${n} answers in ${count} writes`);
  await connection.close();
});

/** Records what the server hands the transport, before any holding or coalescing. */
class SpyTransport extends StdioTransport {
  readonly handed: unknown[] = [];
  override send(message: Parameters<StdioTransport['send']>[0]): Promise<void> {
    this.handed.push(message);
    return super.send(message);
  }
}

test('closing the transport writes held responses at once', async () => {
  const input = new PassThrough();
  const { output, writes } = recorder();
  const transport = new SpyTransport({ input, output, progressGapMs: 60_000 });
  const connection = await progressServer().connect(transport);
  for (const m of INIT) input.write(line(m));
  input.write(
    line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count', arguments: {}, _meta: { progressToken: 'p' } } }),
  );
  await until(() => transport.handed.some((m) => (m as { id?: unknown }).id === 1), 'the response handed to the transport');
  assert.equal(
    writes.some((w) => w.lines.some((l) => l.id === 1)),
    false,
    'held for a minute',
  );
  await connection.close();
  assert.ok(
    writes.some((w) => w.lines.some((l) => l.id === 1)),
    'the held response went out on close',
  );
});

test('a full output holds later messages until it drains, and they leave in order', async () => {
  const input = new PassThrough();
  // A slow reader: each write completes a turn later, and the buffer holds about one line.
  const { output, writes } = recorder({ highWaterMark: 64, finish: (done) => setImmediate(done) });
  const transport = new StdioTransport({ input, output });
  await transport.start({ onMessage: () => {} });
  const results: Array<Promise<void>> = [];
  let buffered = 0;
  for (let i = 0; i < 200; i++) {
    results.push(transport.send({ jsonrpc: '2.0', id: i, result: { i } }));
    buffered = Math.max(buffered, output.writableLength);
  }
  assert.ok(output.writableNeedDrain, 'the output filled up');
  // Held by the transport, not piled into the stream's buffer (200 lines are about 8 KB).
  assert.ok(buffered < 1024, `the stream buffered ${buffered} bytes`);
  await Promise.all(results);
  const seen = () => writes.flatMap((w) => w.lines.map((l) => l.id));
  await until(() => seen().length === 200, 'all 200 lines written');
  assert.deepEqual(
    seen(),
    Array.from({ length: 200 }, (_, i) => i),
  );
  await transport.close();
});

/** A transport that cannot write one answer (as JSON.stringify cannot write a BigInt). */
class FailingTransport extends StdioTransport {
  override send(message: Parameters<StdioTransport['send']>[0]): Promise<void> {
    if (!Array.isArray(message) && 'result' in message && message.id === 7)
      return Promise.reject(new TypeError('Do not know how to serialize a BigInt'));
    return super.send(message);
  }
}

test('an answer the transport cannot write is replaced by -32603, and the failure reported', async () => {
  const input = new PassThrough();
  const { output, writes } = recorder();
  const reported: unknown[] = [];
  const server = createServer({ name: 'failing', version: '1.0.0', onError: (e) => reported.push(e) });
  server.tool('echo', () => 'echo');
  const connection = await server.connect(new FailingTransport({ input, output }));
  for (const m of INIT) input.write(line(m));
  input.write(line({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: {} } }));
  await until(() => writes.some((w) => w.lines.some((l) => l.id === 7)), 'an answer to id 7');
  const answer = writes.flatMap((w) => w.lines).find((l) => l.id === 7);
  assert.deepEqual(answer, { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error' } });
  assert.ok(
    reported.some((e) => String((e as Error).cause).includes('BigInt')),
    'the write failure was reported',
  );
  await connection.close();
});

test('with the output full, a response still leaves apart from, and progressGapMs after, the progress before it', async () => {
  const input = new PassThrough();
  // A reader that takes one write at a time, slowly: every write fills the output.
  const { output, writes } = recorder({ highWaterMark: 1, finish: (done) => setTimeout(done, 3) });
  const connection = await progressServer().connect(new StdioTransport({ input, output }));
  for (const m of INIT) input.write(line(m));
  await until(() => writes.some((w) => w.lines.some((l) => l.id === 0)), 'the initialize result');
  input.write(
    line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count', arguments: {}, _meta: { progressToken: 't' } } }),
  );
  await until(() => writes.some((w) => w.lines.some((l) => l.id === 1)), 'the tool result');
  const progress = writes.filter((w) => w.lines.some((l) => l.method === 'notifications/progress'));
  const answer = writes.find((w) => w.lines.some((l) => l.id === 1))!;
  assert.equal(progress.flatMap((w) => w.lines).length, 3, 'three progress notifications, in writes of their own');
  assert.ok(!answer.lines.some((l) => l.method === 'notifications/progress'), 'the response shares no write with a progress notification');
  const lastProgress = Math.max(...progress.map((w) => w.at));
  assert.ok(answer.at - lastProgress >= 49, `the response left ${(answer.at - lastProgress).toFixed(1)} ms after the last progress`);
  await connection.close();
});
