/**
 * The stdio line limit (`maxLineBytes`) counts bytes of UTF-8, and holds however a line
 * arrives: a line over it is answered with one -32700 and dropped, and the lines after it are
 * served as usual. Its `\r\n` ending is not part of the line. (The framing property test in
 * test/fuzz cuts the input at every byte; these are its cases spelled out.)
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { serveStdio } from '../../src/stdio/index.js';
import { until } from '../support/wait.js';

const LIMIT = 256;

/** A ping (served before initialize) padded in `_meta` to exactly `bytes` bytes of UTF-8, with `pad` then ASCII. */
function pingOf(id: number, bytes: number, pad = 'x'): string {
  const shell = (fill: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { _meta: { pad: fill } } });
  const room = bytes - Buffer.byteLength(shell(''));
  const unit = Buffer.byteLength(pad);
  const line = shell(pad.repeat(Math.floor(room / unit)) + 'x'.repeat(room % unit));
  assert.equal(Buffer.byteLength(line), bytes);
  return line;
}

async function serve(): Promise<{
  write(data: string | Buffer): void;
  answers: Array<{ id?: unknown; error?: { code: number } }>;
  end(): Promise<void>;
}> {
  const input = new PassThrough();
  const output = new PassThrough();
  const answers: Array<{ id?: unknown; error?: { code: number } }> = [];
  let rest = '';
  output.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    for (let nl = rest.indexOf('\n'); nl !== -1; nl = rest.indexOf('\n')) {
      answers.push(JSON.parse(rest.slice(0, nl)));
      rest = rest.slice(nl + 1);
    }
  });
  const connection = await serveStdio(createServer({ name: 'lines', version: '1.0.0' }), { input, output, maxLineBytes: LIMIT });
  return {
    write: (data) => input.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data),
    answers,
    end: async () => {
      input.end();
      await connection.close();
    },
  };
}

test('a line one byte over maxLineBytes, arriving whole with its newline, is one -32700; the next line is served', async () => {
  const s = await serve();
  try {
    s.write(`${pingOf(1, LIMIT + 1)}\n${pingOf(2, LIMIT)}\n`);
    await until(() => s.answers.length === 2, 'two answers');
    assert.equal(s.answers[0]!.error?.code, -32700);
    assert.deepEqual(s.answers[1], { jsonrpc: '2.0', id: 2, result: {} });
  } finally {
    await s.end();
  }
});

test('the limit counts UTF-8 bytes: a line of fewer characters than the limit but more bytes is refused', async () => {
  const s = await serve();
  try {
    const euros = pingOf(1, LIMIT + 3, '€'); // '€' is three bytes and one UTF-16 unit
    assert.ok(euros.length <= LIMIT, 'fewer characters than the limit');
    s.write(`${euros}\n${pingOf(2, LIMIT - 3, '€')}\n`);
    await until(() => s.answers.length === 2, 'two answers');
    assert.equal(s.answers[0]!.error?.code, -32700);
    assert.equal(s.answers[1]!.id, 2);
  } finally {
    await s.end();
  }
});

test('a line of exactly maxLineBytes is served, with \\n or \\r\\n, and a character cut between chunks is whole', async () => {
  const s = await serve();
  try {
    s.write(`${pingOf(1, LIMIT)}\r\n`);
    await until(() => s.answers.length === 1, 'the first answer');
    assert.deepEqual(s.answers[0], { jsonrpc: '2.0', id: 1, result: {} });
    const line = Buffer.from(`${pingOf(2, LIMIT, '€')}\n`, 'utf8');
    const inside = line.indexOf(Buffer.from('€')) + 1; // the second of the character's three bytes
    s.write(line.subarray(0, inside));
    s.write(line.subarray(inside));
    await until(() => s.answers.length === 2, 'the second answer');
    assert.deepEqual(s.answers[1], { jsonrpc: '2.0', id: 2, result: {} });
  } finally {
    await s.end();
  }
});
