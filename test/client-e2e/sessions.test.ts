/**
 * Sessions, auth failures and shutdown over real HTTP:
 * - a session the server ended answers 404; the client re-initializes and retries the call
 *   (docs/2025-11-25/basic/transports.mdx §Session Management 3-4);
 * - 401/403 are ChannelErrors with their status and never era evidence (no fallback to
 *   initialize or HTTP+SSE, no re-initialize): authorization is not a protocol verdict;
 * - close() DELETEs a legacy session (§Session Management 5), sends nothing on the modern
 *   wire, and leaves no socket carrying a request; a client process exits on its own.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ChannelError } from '../../src/errors/index.js';
import { connect } from '../../src/client/index.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { createNodeHandler } from '../../src/transports/http/index.js';
import { askHandlers, textOf } from '../client/helpers.js';
import { buildFixtureServer } from '../fixtures/client-server/server.js';
import { until } from '../support/wait.js';
import { nodeServer, recordingFetch, serveFixture, type Exchange } from './support.js';

const sessionOf = (rec: { log: Exchange[] }) =>
  rec.log.find((e) => e.body?.method === 'initialize' && e.responseHeaders?.['mcp-session-id'])?.responseHeaders?.['mcp-session-id'];

for (const rev of ['2025-03-26', '2025-06-18', '2025-11-25'] as ProtocolVersion[]) {
  test(`[${rev}] a session the server ended (404) is re-initialized transparently and the call retried once`, async (t) => {
    const s = await serveFixture();
    t.after(() => s.close());
    const rec = recordingFetch();
    const h = askHandlers();
    const client = await connect(s.url, { protocolVersion: rev, fetch: rec.fetch, ...h.options });
    try {
      assert.equal(textOf(await client.callTool('echo', { text: 'one' })), 'echo: one');
      const first = sessionOf(rec)!;
      assert.ok(first);
      // The server ends the session (as an idle timeout or a restart would): a DELETE from outside.
      const del = await fetch(s.url, { method: 'DELETE', headers: { 'mcp-session-id': first, 'mcp-protocol-version': rev } });
      assert.equal(del.status, 200);
      const mark = rec.log.length;
      assert.equal(textOf(await client.callTool('echo', { text: 'two' })), 'echo: two');
      const posts = rec.log.slice(mark).filter((e) => e.method === 'POST');
      assert.deepEqual(
        posts.map((e) => `${e.body?.method} ${e.status}`),
        ['tools/call 404', 'initialize 200', 'notifications/initialized 202', 'tools/call 200'],
      );
      const second = posts[1]!.responseHeaders!['mcp-session-id'];
      assert.ok(second && second !== first, 'a new session id');
      assert.equal(posts[0]!.headers['mcp-session-id'], first);
      assert.equal(posts[1]!.headers['mcp-session-id'], undefined, 're-initialize carries no stale session');
      assert.equal(posts[3]!.headers['mcp-session-id'], second);
      assert.equal(posts[3]!.body!.params.arguments.text, 'two');
      assert.equal(client.protocolVersion, rev);
      // The new session works for everything after it, server-to-client requests included.
      assert.equal(textOf(await client.callTool('ask', { sample: true, roots: true })), '["hi there",["file:///work"]]');
    } finally {
      await client.close();
      await s.conns.settled();
      await s.close();
    }
  });
}

const expire = (url: URL, sid: string) =>
  fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
const alive = async (url: URL, sid: string) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await res.text();
  return res.status !== 404;
};

test("three calls that meet the same expired session share one re-initialize; close() leaves none of the client's sessions alive", async (t) => {
  const s = await serveFixture();
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { protocolVersion: '2025-11-25', fetch: rec.fetch });
  let reinits = 0;
  try {
    await client.listTools();
    await expire(s.url, sessionOf(rec)!);
    const mark = rec.log.length;
    const texts = await Promise.all(['1', '2', '3'].map(async (x) => textOf(await client.callTool('echo', { text: x }))));
    assert.deepEqual(texts, ['echo: 1', 'echo: 2', 'echo: 3']);
    reinits = rec.log.slice(mark).filter((e) => e.body?.method === 'initialize').length;
  } finally {
    await client.close();
  }
  // Whatever the client opened, it must not leave orphaned sessions on the server.
  const minted = rec.posts('initialize').map((e) => e.responseHeaders!['mcp-session-id']!);
  const orphans = [];
  for (const sid of minted) if (await alive(s.url, sid)) orphans.push(sid);
  assert.deepEqual(orphans, [], `${orphans.length} of the ${minted.length} sessions the client opened outlived close()`);
  assert.equal(reinits, 1, 'one re-initialize, not one per call');
});

test('a call made while the re-initialize is under way waits for the new session: nothing goes out without Mcp-Session-Id', async (t) => {
  const s = await serveFixture();
  t.after(() => s.close());
  const rec = recordingFetch();
  let late: Promise<unknown> | undefined;
  let lateCall: (() => Promise<unknown>) | undefined;
  // Holds the re-initialize until the late call has gone out, or has had every chance to.
  const gated: typeof fetch = async (input, init) => {
    const reinit = lateCall !== undefined && typeof init?.body === 'string' && init.body.includes('"method":"initialize"');
    if (!reinit) return rec.fetch(input, init);
    const mark = rec.log.length;
    late = lateCall!();
    late.catch(() => {}); // awaited below
    lateCall = undefined;
    for (let turn = 0; turn < 20 && rec.log.length === mark; turn++) await new Promise((r) => setImmediate(r));
    return rec.fetch(input, init);
  };
  const client = await connect(s.url, { protocolVersion: '2025-11-25', fetch: gated });
  try {
    await client.listTools();
    const first = sessionOf(rec)!;
    await expire(s.url, first);
    const mark = rec.log.length;
    lateCall = () => client.callTool('echo', { text: 'late' });
    assert.equal(textOf(await client.callTool('echo', { text: 'early' })), 'echo: early');
    assert.ok(late, 'the re-initialize was never sent');
    assert.equal(textOf((await late) as Parameters<typeof textOf>[0]), 'echo: late');
    const posts = rec.log.slice(mark).filter((e) => e.method === 'POST' && e.body?.method !== 'initialize');
    const without = posts.filter((e) => e.headers['mcp-session-id'] === undefined).map((e) => e.body?.method);
    assert.deepEqual(without, [], 'requests sent without a session id');
    assert.equal(rec.posts('initialize').length, 2, 'one re-initialize');
  } finally {
    await client.close();
  }
});

test('after a transparent re-initialize the logLevel option still holds: logging/setLevel is sent on the new session too', async (t) => {
  const s = await serveFixture();
  t.after(() => s.close());
  const rec = recordingFetch();
  const levels: string[] = [];
  const client = await connect(s.url, {
    protocolVersion: '2025-11-25',
    fetch: rec.fetch,
    logLevel: 'error',
    onNotification: (n) => void (n.method === 'notifications/message' && levels.push(String(n.params?.level))),
  });
  try {
    await client.callTool('log');
    assert.deepEqual(levels.splice(0), ['error']);
    await expire(s.url, sessionOf(rec)!);
    await client.callTool('log');
    assert.equal(rec.posts('logging/setLevel').length, 2, 'the new session never got logging/setLevel');
    assert.deepEqual(levels, ['error'], 'debug and info lines arrived after the re-initialize');
  } finally {
    await client.close();
  }
});

/** This project's server behind a bearer-token check: 401 (or 403 with a JSON-RPC-looking body) otherwise. */
async function guarded(status: 401 | 403, eras?: { legacy?: boolean; modern?: boolean }) {
  const server = buildFixtureServer({ eras });
  const handler = createNodeHandler(server);
  const allowed = new Set(['Bearer good']);
  const front = await nodeServer((req: IncomingMessage, res: ServerResponse) => {
    if (!allowed.has(String(req.headers.authorization))) {
      req.resume();
      // A body that looks like a modern -32601: were it taken as era evidence, detection would say "modern".
      res.writeHead(status, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="mcp"' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } }));
    }
    handler(req, res);
  });
  return { ...front, allowed, close: async () => (await handler.close(), await front.close(), await server.close()) };
}

const isAuth = (status: number) => (e: unknown) => {
  assert.ok(e instanceof ChannelError, `not a ChannelError: ${String(e)}`);
  assert.equal(e.status, status);
  assert.equal((e as ChannelError & { headers?: Headers }).headers?.get('www-authenticate'), 'Bearer realm="mcp"');
  return true;
};

for (const status of [401, 403] as const) {
  test(`${status} to the probe: connect() rejects with ChannelError ${status}; no initialize, no HTTP+SSE GET`, async (t) => {
    const s = await guarded(status);
    t.after(() => s.close());
    const rec = recordingFetch();
    await assert.rejects(connect(s.url, { fetch: rec.fetch }), isAuth(status));
    assert.deepEqual(
      rec.log.map((e) => `${e.method} ${e.body?.method}`),
      ['POST server/discover'],
    );
    await s.conns.settled();
    await s.close();
  });

  test(`${status} to a pinned legacy initialize: ChannelError ${status}, no fallback to HTTP+SSE`, async (t) => {
    const s = await guarded(status);
    t.after(() => s.close());
    const rec = recordingFetch();
    await assert.rejects(connect(s.url, { protocolVersion: '2025-11-25', fetch: rec.fetch }), isAuth(status));
    assert.deepEqual(
      rec.log.map((e) => `${e.method} ${e.body?.method}`),
      ['POST initialize'],
    );
    await s.close();
  });

  test(`${status} in mid-session: ChannelError ${status}, taken neither as expiry (no re-initialize) nor as a modern server`, async (t) => {
    const s = await guarded(status);
    t.after(() => s.close());
    const rec = recordingFetch();
    const client = await connect(s.url, { protocolVersion: '2025-11-25', fetch: rec.fetch, headers: { Authorization: 'Bearer good' } });
    try {
      assert.equal(textOf(await client.callTool('echo', { text: 'a' })), 'echo: a');
      s.allowed.clear(); // the token is revoked
      const mark = rec.log.length;
      await assert.rejects(client.callTool('echo', { text: 'b' }), isAuth(status));
      assert.deepEqual(
        rec.log
          .slice(mark)
          .filter((e) => e.method === 'POST')
          .map((e) => e.body?.method),
        ['tools/call'],
      );
      assert.equal(client.era, 'legacy');
      s.allowed.add('Bearer good');
      assert.equal(textOf(await client.callTool('echo', { text: 'c' })), 'echo: c', 'the session survived');
    } finally {
      await client.close();
      await s.close();
    }
  });

  test(`${status} on the modern wire: a pinned modern client gets ChannelError ${status} from its first request`, async (t) => {
    const s = await guarded(status);
    t.after(() => s.close());
    const client = await connect(s.url, { protocolVersion: '2026-07-28' });
    try {
      await assert.rejects(client.listTools(), isAuth(status));
    } finally {
      await client.close();
      await s.close();
    }
  });
}

test('the headers option reaches every request: with the token, detection, the session GET stream and DELETE all pass the guard', async (t) => {
  const s = await guarded(401, { modern: false });
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { fetch: rec.fetch, headers: { Authorization: 'Bearer good' } });
  assert.equal(client.era, 'legacy');
  assert.equal(textOf(await client.callTool('echo', { text: 'x' })), 'echo: x');
  await client.close();
  const kinds = new Set(rec.log.map((e) => e.method));
  assert.deepEqual([...kinds].sort(), ['DELETE', 'GET', 'POST']);
  assert.ok(
    rec.log.every((e) => e.headers.authorization === 'Bearer good' && e.status !== 401),
    'a request without the token',
  );
  await s.conns.settled();
  await s.close();
});

test('close() on a legacy session: DELETE with the session id (and version header), the server forgets it, and no socket keeps a request open', async (t) => {
  const s = await serveFixture();
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { protocolVersion: '2025-11-25', fetch: rec.fetch });
  await client.listTools();
  const sid = sessionOf(rec)!;
  // The standalone GET stream is open while the session lives.
  assert.ok(rec.log.some((e) => e.method === 'GET' && e.headers['mcp-session-id'] === sid));
  await client.close();
  const deletes = rec.log.filter((e) => e.method === 'DELETE');
  assert.equal(deletes.length, 1);
  assert.equal(deletes[0]!.headers['mcp-session-id'], sid);
  assert.equal(deletes[0]!.headers['mcp-protocol-version'], '2025-11-25');
  assert.equal(deletes[0]!.status, 200);
  const after = await fetch(s.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await after.text();
  assert.equal(after.status, 404, 'the session still exists after close()');
  await client.close(); // idempotent: no second DELETE
  assert.equal(rec.log.filter((e) => e.method === 'DELETE').length, 1);
  await s.conns.settled();
  await s.close();
});

test('close() on the modern wire sends nothing (no session, no DELETE) and leaves no open request, even with a listen stream open', async (t) => {
  const s = await serveFixture();
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { fetch: rec.fetch });
  const stream = client.listen({ toolsListChanged: true });
  await until(() => s.conns.active() > 0, 'the listen stream to open on the server');
  assert.equal(s.conns.active(), 1, 'the listen stream is open on the server');
  const mark = rec.log.length;
  await client.close();
  assert.deepEqual(rec.log.slice(mark), []);
  assert.deepEqual(await stream.next(), { value: undefined, done: true });
  await s.conns.settled();
  await s.close();
});

const PROBE = join(dirname(fileURLToPath(import.meta.url)), 'exit-probe.js');

for (const mode of ['legacy', 'modern', 'sse'] as const) {
  test(`a client process exits by itself within 2 s of close() (${mode}: streams, timers and sockets all released)`, async (t) => {
    const s = await serveFixture();
    t.after(() => s.close());
    const child = spawn(process.execPath, [PROBE, s.url.href, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 8000).unref())]);
      assert.notEqual(code, 'hung', `the client process is still alive: ${out}`);
      assert.equal(code, 0, out);
      const closedAt = Number(/closed (\d+)/.exec(out)?.[1]);
      assert.ok(Date.now() - closedAt < 2000, `exit came ${Date.now() - closedAt} ms after close()`);
    } finally {
      if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
      await s.close();
    }
  });
}
