/**
 * `maxMessageBytes` (default 16 MiB): the largest message the client takes from a server, so
 * that no server can grow its memory without limit. Over HTTP it
 * bounds a JSON reply body (Content-Length or not, compressed or not) and one SSE event
 * (WHATWG HTML §9.2.6: an event is its lines up to a blank line); over stdio one line. A reply
 * over the bound fails its request with an error naming the option; an oversized event on a
 * legacy session's standalone stream is skipped and reported to `onWarning`; on the 2024-11-05
 * HTTP+SSE stream, which carries every answer, it ends the connection.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ChannelError } from '../../src/errors/index.js';
import { connect } from '../../src/client/index.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import type { Msg } from '../support/common.js';
import { until } from '../support/wait.js';
import { discoverResult, rawServer } from './support.js';

const MIB = 1024 * 1024;
const result = (id: unknown, text: string) => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'complete', content: [{ type: 'text', text }] },
});

/** A 2026-07-28 server whose tools/call reply is `reply(id, res)`; discover is answered normally. */
function modernServer(reply: (id: unknown, res: ServerResponse, text: string) => void) {
  return rawServer((_req, res, body) => {
    const m: Msg = JSON.parse(body);
    if (m.method === 'server/discover') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: discoverResult() }));
      return;
    }
    reply(m.id, res, String(m.params.arguments?.text ?? ''));
  });
}

const tooLarge = (what: RegExp, limit: string) => (e: unknown) =>
  e instanceof ChannelError &&
  what.test(e.message) &&
  e.message.includes(`larger than ${limit}`) &&
  /raise maxMessageBytes/.test(e.message);

for (const [name, send] of [
  [
    'chunked, no Content-Length',
    (res: ServerResponse, body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
  ],
  [
    'with Content-Length',
    (res: ServerResponse, body: string) =>
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body),
  ],
  [
    'gzip: a small Content-Length that decodes to more',
    (res: ServerResponse, body: string) => {
      const zipped = gzipSync(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': zipped.length }).end(zipped);
    },
  ],
] as const) {
  test(`a JSON reply larger than maxMessageBytes fails its request with a ChannelError naming the option (${name}); one at the bound is taken`, async () => {
    const server = await modernServer((id, res, text) => send(res, JSON.stringify(result(id, text))));
    const client = await connect(server.url, { maxMessageBytes: 4096 });
    try {
      const fits = 'x'.repeat(4096 - JSON.stringify(result(3, '')).length);
      assert.equal(JSON.stringify(result(3, fits)).length, 4096);
      await assert.rejects(client.callTool('big', { text: 'x'.repeat(5000) }), tooLarge(/^the reply to tools\/call/, '4 KiB'));
      const ok = await client.callTool('fits', { text: fits });
      assert.equal((ok.content[0] as { text: string }).text.length, fits.length);
    } finally {
      await client.close();
      await server.close();
    }
  });
}

test('by default a JSON reply over 16 MiB is refused', async () => {
  const server = await modernServer((id, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result(id, 'x'.repeat(16 * MIB)))),
  );
  const client = await connect(server.url);
  try {
    await assert.rejects(client.callTool('huge'), tooLarge(/^the reply to tools\/call/, '16 MiB'));
  } finally {
    await client.close();
    await server.close();
  }
});

test('an SSE event larger than maxMessageBytes on a request stream fails the request at once (not at its timeout)', async () => {
  const server = await modernServer((id, res, text) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'small' } })}\n\n`);
    // Written in pieces, as a big event arrives: the bound holds before the event is whole.
    const event = `data: ${JSON.stringify(result(id, text))}\n\n`;
    for (let i = 0; i < event.length; i += 1000) res.write(event.slice(i, i + 1000));
  });
  const client = await connect(server.url, { maxMessageBytes: 4096, timeoutMs: 600_000 });
  try {
    await assert.rejects(client.callTool('big', { text: 'x'.repeat(10_000) }), tooLarge(/^An event on the stream of tools\/call/, '4 KiB'));
    const ok = await client.callTool('small', { text: 'fine' });
    assert.equal((ok.content[0] as { text: string }).text, 'fine');
  } finally {
    await client.close();
    await server.close();
  }
});

test("an oversized event on a legacy session's standalone stream is skipped and reported; the events after it arrive", async () => {
  const notification = (method: string, data?: string) => JSON.stringify({ jsonrpc: '2.0', method, params: data ? { data } : {} });
  const server = await rawServer((req, res, body) => {
    if (req.method === 'DELETE') return res.writeHead(200).end();
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${notification('notifications/message', 'y'.repeat(8192))}\n\n`);
      return res.write(`data: ${notification('notifications/tools/list_changed')}\n\n`);
    }
    const m: Msg = JSON.parse(body);
    if (m.method !== 'initialize') return res.writeHead(202).end();
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'big-1' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: m.id,
        result: {
          protocolVersion: '2025-11-25',
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: 'big', version: '1' },
        },
      }),
    );
  });
  const warnings: string[] = [];
  const got: JsonRpcNotification[] = [];
  const client = await connect(server.url, {
    protocolVersion: '2025-11-25',
    maxMessageBytes: 4096,
    onWarning: (w) => warnings.push(w),
    onNotification: (n) => got.push(n),
  });
  try {
    await until(() => got.length > 0, 'the notification after the oversized event');
    assert.deepEqual(
      got.map((n) => n.method),
      ['notifications/tools/list_changed'],
    );
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /^An event on the session's standalone stream is larger than 4 KiB \(4096 bytes\).*maxMessageBytes.*The event was skipped\.$/,
    );
  } finally {
    await client.close();
    await server.close();
  }
});

test('an oversized event on the 2024-11-05 HTTP+SSE stream ends the connection: the waiting request fails with the reason', async () => {
  let stream: ServerResponse | undefined;
  const server = await rawServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET') {
      stream = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.write('event: endpoint\ndata: /mcp/messages\n\n');
    }
    if (url.pathname !== '/mcp/messages') return res.writeHead(404).end();
    res.writeHead(202).end();
    const m: Msg = JSON.parse(body);
    if (m.id === undefined) return;
    const answer =
      m.method === 'initialize'
        ? { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'old', version: '1' } }
        : { content: [{ type: 'text', text: 'z'.repeat(8192) }] };
    stream!.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: answer })}\n\n`);
  });
  const client = await connect(server.url, { protocolVersion: '2024-11-05', maxMessageBytes: 4096 });
  try {
    assert.equal(client.transportKind, 'sse');
    await assert.rejects(client.callTool('big'), tooLarge(/^An event on the HTTP\+SSE stream/, '4 KiB'));
  } finally {
    await client.close();
    await server.close();
  }
});

test('over stdio a line longer than maxMessageBytes is dropped and reported to onWarning', async () => {
  // A legacy stdio server whose tools/call answer is one 256 KiB line (it reaches the client in
  // several pipe reads: the stdio transport bounds a line as it accumulates across reads).
  const script = `
    const rl = require('node:readline').createInterface({ input: process.stdin });
    rl.on('line', (line) => {
      const m = JSON.parse(line);
      if (m.method === 'initialize') return console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'long', version: '1' } } }));
      if (m.method === 'tools/call') console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'l'.repeat(256 * 1024) }] } }));
    });`;
  const warnings: string[] = [];
  const client = await connect(
    { command: process.execPath, args: ['-e', script], stderr: 'ignore' },
    { protocolVersion: '2025-11-25', maxMessageBytes: 64 * 1024, onWarning: (w) => warnings.push(w) },
  );
  try {
    await assert.rejects(client.callTool('long', {}, { timeoutMs: 1000 }), { name: 'JanusError', code: 'TIMEOUT' });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /dropped a message from the server: line longer than 65536 bytes \(maxMessageBytes\)/);
  } finally {
    await client.close();
  }
});
