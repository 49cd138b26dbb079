/**
 * The GET streams of a legacy session belong to that session (2025-11-25 transports.mdx
 * §Session Management, §Listening for Messages, §Resumability and Redelivery): every GET
 * carries the id of the session it is for, never another's and never none. On a server that
 * also serves the deprecated HTTP+SSE transport, a GET without `Mcp-Session-Id` opens that
 * transport instead (2025-11-25 §Backwards Compatibility), and nothing of the session would
 * arrive on it. The hand-written server here answers such a GET the way ours does.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { ChannelError } from '../../src/client/channel.js';
import { HttpChannel } from '../../src/client/channels/http.js';
import { json } from '../support/http.js';
import { delay } from '../support/wait.js';
import { closed, frame, mockServer, Recorder, request, sseHead, type Mock, type Seen } from './mock.js';

const ok = (id: unknown) => ({ jsonrpc: '2.0', id, result: {} });

/** A legacy server: sessions s1, s2, …; `forget()` expires the current one; a GET without a session id opens HTTP+SSE. */
async function sessionServer(onRequest: (seen: Seen, res: ServerResponse, session: string | undefined) => boolean = () => false) {
  let n = 0;
  let live: string | undefined;
  const streams: ServerResponse[] = [];
  const mock = await mockServer((req, res, seen) => {
    const sid = seen.headers['mcp-session-id'];
    if (req.method === 'DELETE') return res.writeHead(sid === live ? 200 : 404).end();
    if (req.method === 'GET') {
      if (sid === undefined) {
        // The 2024-11-05 HTTP+SSE endpoint, as a dual-transport server answers a GET with no session.
        sseHead(res);
        return res.write(frame({ event: 'endpoint', data: '/mcp?sessionId=legacy' }));
      }
      if (sid !== live) return res.writeHead(404).end();
      sseHead(res);
      streams.push(res);
      return res.write(frame({ id: `${sid}-0`, data: '' }));
    }
    const m = JSON.parse(seen.body);
    if (m.method === 'initialize') {
      live = `s${++n}`;
      return json(res, 200, ok(m.id), { 'mcp-session-id': live });
    }
    if (sid !== live) return res.writeHead(404).end();
    if (onRequest(seen, res, live)) return;
    json(res, 200, ok(m.id));
  });
  return {
    mock,
    streams,
    forget: () => (live = undefined),
    gets: () => mock.seen.filter((s) => s.method === 'GET'),
  };
}

async function until(predicate: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await delay(5);
  }
}

test('the standalone stream ends with its session: after a 404 no GET goes out without the session id, and after a new initialize the stream opens again with the new id', async () => {
  const s = await sessionServer();
  const channel = new HttpChannel(s.mock.url, { reconnect: { initialDelayMs: 10, maxDelayMs: 20 } });
  await channel.start(new Recorder());
  try {
    await channel.request(request(1, 'initialize'));
    channel.openEventStream();
    await until(() => s.streams.length === 1, 'the standalone stream of s1');
    const first = s.streams[0]!;
    const firstGone = closed(first);

    s.forget(); // the server expired s1; its stream is still open
    await assert.rejects(channel.request(request(2, 'tools/call')), { name: 'HttpChannelError', status: 404 });
    // The client ends the dead session's stream itself. A client that kept it would reconnect
    // (10 ms) after the server ends it, while it has no session: give it that chance, bounded,
    // before the next initialize. A correct client makes no GET, so this waits the whole second.
    await Promise.race([firstGone, delay(2000)]);
    first.end();
    await firstGone;
    await Promise.race([until(() => s.gets().length > 1, 'a reconnect', 1000).catch(() => {}), delay(1000)]);

    await channel.request(request(3, 'initialize'));
    channel.openEventStream();
    await until(() => s.streams.length === 2, 'the standalone stream of s2');
    assert.deepEqual(
      s.gets().map((g) => g.headers['mcp-session-id']),
      ['s1', 's2'],
      'every GET carries the id of the session it is for',
    );
  } finally {
    await channel.close();
    await s.mock.close();
  }
});

test("a request's stream is resumed only in its own session: when the session expired meanwhile, the request fails and no GET goes out without the id", {
  timeout: 20_000,
}, async () => {
  let dropped = false;
  const s = await sessionServer((seen, res) => {
    if (JSON.parse(seen.body).method !== 'tools/call') return false;
    // SSE polling (2025-11-25 §Sending Messages 6): a priming event with an id, retry, then the server closes.
    sseHead(res);
    res.end(frame({ id: 'p1', retry: 1000, data: '' }));
    dropped = true;
    return true;
  });
  const channel = new HttpChannel(s.mock.url);
  await channel.start(new Recorder());
  try {
    await channel.request(request(1, 'initialize'));
    const call = channel.request(request(2, 'tools/call'));
    await until(() => dropped, 'the tools/call stream to close');
    s.forget();
    // Another request meets the 404 while the call waits its `retry` (1000 ms) to resume.
    await assert.rejects(channel.request(request(3, 'ping')), { status: 404 });
    await assert.rejects(
      call,
      (e: unknown) => e instanceof ChannelError && /session ended before the response to tools\/call/.test(e.message),
    );
    assert.deepEqual(
      s.gets().map((g) => g.headers['mcp-session-id']),
      [],
      'no resume was attempted without the session',
    );
  } finally {
    await channel.close();
    await s.mock.close();
  }
});

test('a sessionless server (no Mcp-Session-Id from initialize) gets its standalone GET without an id, as before', async () => {
  const mock: Mock = await mockServer((req, res, seen) => {
    if (req.method === 'GET') {
      sseHead(res);
      return res.write(frame({ data: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } }));
    }
    json(res, 200, ok(JSON.parse(seen.body).id));
  });
  const channel = new HttpChannel(mock.url);
  const rec = new Recorder();
  await channel.start(rec);
  try {
    await channel.request(request(1, 'initialize'));
    channel.openEventStream();
    await rec.until(() => rec.messages.length === 1);
    assert.equal(mock.seen.find((x) => x.method === 'GET')?.headers['mcp-session-id'], undefined);
  } finally {
    await channel.close();
    await mock.close();
  }
});
