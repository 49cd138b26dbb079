/**
 * LegacySseChannel: the deprecated HTTP+SSE transport of 2024-11-05
 * (docs/2024-11-05/basic/transports.mdx §HTTP with SSE): the `endpoint` event, POSTs to
 * it, every server message (responses too) on the one stream; the last step of era
 * fallback (2025-11-25 transports.mdx §Backwards Compatibility).
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { ChannelError } from '../../src/client/channel.js';
import { LegacySseChannel } from '../../src/client/legacy/sse-channel.js';
import { JanusError } from '../../src/protocol/errors.js';
import { json } from '../support/http.js';
import { delay } from '../support/wait.js';
import { closed, frame, mockServer, Recorder, request, sseHead, type Mock } from './mock.js';

interface Legacy {
  mock: Mock;
  stream(): ServerResponse;
  streamClosed(): Promise<void>;
}

/** A 2024-11-05 server: GET /sse opens the stream and names `endpoint`; POSTs are answered on the stream by `answer`. */
async function legacyServer(
  endpoint: string,
  answer: (m: Record<string, unknown>, stream: ServerResponse, res: ServerResponse) => void,
): Promise<Legacy> {
  let sse: ServerResponse | undefined;
  let gone: Promise<void> | undefined;
  const mock = await mockServer((req, res, seen) => {
    if (req.method === 'GET' && req.url === '/sse') {
      sse = res;
      gone = closed(res);
      sseHead(res);
      res.write(frame({ event: 'endpoint', data: endpoint }));
      return;
    }
    if (req.method === 'POST' && req.url === '/messages?sessionId=abc' && sse) return answer(JSON.parse(seen.body), sse, res);
    res.writeHead(404).end();
  }, '/sse');
  return { mock, stream: () => sse!, streamClosed: () => gone! };
}

test('endpoint discovery: the relative URI resolves against the SSE URL; requests POST there and their responses arrive on the stream', async () => {
  const legacy = await legacyServer('/messages?sessionId=abc', (m, stream, res) => {
    res.writeHead(202).end('Accepted');
    if (!('id' in m)) return;
    if (m.method === 'tools/call') {
      stream.write(frame({ event: 'message', data: { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } } }));
      stream.write(frame({ event: 'message', data: { jsonrpc: '2.0', id: 'srv', method: 'roots/list' } }));
    }
    stream.write(frame({ event: 'message', data: { jsonrpc: '2.0', id: m.id, result: { echo: m.method } } }));
  });
  const channel = new LegacySseChannel(legacy.mock.url, { headers: { Authorization: 'Bearer t' } });
  const rec = new Recorder();
  try {
    await channel.start(rec);
    assert.equal(channel.endpoint?.href, new URL('/messages?sessionId=abc', legacy.mock.url).href);
    const get = legacy.mock.seen[0]!;
    assert.equal(get.headers.accept, 'text/event-stream');
    assert.equal(get.headers.authorization, 'Bearer t');
    const [a, b] = await Promise.all([channel.request(request(1, 'initialize')), channel.request(request(2, 'tools/call'))]);
    assert.deepEqual(a, { jsonrpc: '2.0', id: 1, result: { echo: 'initialize' } });
    assert.deepEqual(b, { jsonrpc: '2.0', id: 2, result: { echo: 'tools/call' } });
    assert.deepEqual(
      rec.messages.map((m) => ('method' in m ? m.method : '')),
      ['notifications/progress', 'roots/list'],
    );
    await channel.send({ jsonrpc: '2.0', id: 'srv', result: { roots: [] } });
    const posts = legacy.mock.seen.filter((s) => s.method === 'POST');
    assert.equal(posts.length, 3);
    assert.equal(posts[0]!.headers['content-type'], 'application/json');
    assert.equal(posts[0]!.headers.authorization, 'Bearer t');
    assert.deepEqual(JSON.parse(posts[2]!.body), { jsonrpc: '2.0', id: 'srv', result: { roots: [] } });
    await channel.close();
    await legacy.streamClosed();
    assert.equal(rec.closes.length, 1);
    await assert.rejects(channel.request(request(3, 'tools/list')), ChannelError);
  } finally {
    await channel.close();
    await legacy.mock.close();
  }
});

test('an endpoint on another origin is refused and the stream is dropped', async () => {
  for (const endpoint of ['http://evil.example/messages?sessionId=abc', '//localhost:1/messages']) {
    const legacy = await legacyServer(endpoint, () => {});
    const channel = new LegacySseChannel(legacy.mock.url);
    try {
      await assert.rejects(channel.start(new Recorder()), (e: unknown) => e instanceof ChannelError && /origin/.test(e.message));
      await legacy.streamClosed();
    } finally {
      await channel.close();
      await legacy.mock.close();
    }
  }
});

test('start() rejects with the status when the GET fails (the last step of era fallback)', async () => {
  const mock = await mockServer((_req, res) => res.writeHead(405, { allow: 'POST' }).end('nope'));
  try {
    await assert.rejects(
      new LegacySseChannel(mock.url).start(new Recorder()),
      (e: unknown) => e instanceof ChannelError && e.status === 405 && e.body === 'nope',
    );
  } finally {
    await mock.close();
  }
});

test('start() rejects when the stream names no endpoint in time, or ends first', async () => {
  let gone: Promise<void> | undefined;
  const mock = await mockServer((req, res) => {
    sseHead(res);
    if (req.url === '/sse?end') return res.end(frame({ data: 'hello' }));
    gone = closed(res);
    res.write(': waiting\n\n');
  }, '/sse');
  try {
    await assert.rejects(
      new LegacySseChannel(mock.url, { endpointTimeoutMs: 100 }).start(new Recorder()),
      (e: unknown) => e instanceof ChannelError && /endpoint/.test(e.message),
    );
    await gone;
    await assert.rejects(
      new LegacySseChannel(new URL('?end', mock.url)).start(new Recorder()),
      (e: unknown) => e instanceof ChannelError && /ended/.test(e.message),
    );
  } finally {
    await mock.close();
  }
});

test('the stream closing ends the channel: pending requests reject, onClose gets the error', async () => {
  const legacy = await legacyServer('/messages?sessionId=abc', (_m, stream, res) => {
    res.writeHead(202).end();
    stream.end();
  });
  const channel = new LegacySseChannel(legacy.mock.url);
  const rec = new Recorder();
  try {
    await channel.start(rec);
    await assert.rejects(channel.request(request(1, 'tools/list')), ChannelError);
    await rec.until(() => rec.closes.length === 1);
    assert.ok(rec.closes[0] instanceof ChannelError);
  } finally {
    await channel.close();
    await legacy.mock.close();
  }
});

test('a refused POST rejects with its status (or resolves with its JSON-RPC error); an aborted request rejects ABORTED', async () => {
  const legacy = await legacyServer('/messages?sessionId=abc', (m, _stream, res) => {
    if (m.method === 'bad') return res.writeHead(400).end('bad');
    if (m.method === 'rpc') return json(res, 400, { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'no' } });
    res.writeHead(202).end(); // never answered on the stream
  });
  const channel = new LegacySseChannel(legacy.mock.url);
  try {
    await channel.start(new Recorder());
    await assert.rejects(
      channel.request(request(1, 'bad')),
      (e: unknown) => e instanceof ChannelError && e.status === 400 && e.body === 'bad',
    );
    const r = await channel.request(request(2, 'rpc'));
    assert.ok('error' in r && r.error.code === -32602);
    const controller = new AbortController();
    const p = channel.request(request(3, 'slow'), { signal: controller.signal });
    await delay(30);
    controller.abort();
    await assert.rejects(p, (e: unknown) => e instanceof JanusError && e.code === 'ABORTED');
  } finally {
    await channel.close();
    await legacy.mock.close();
  }
});
