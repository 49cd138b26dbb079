/**
 * `client.listen()` and the response cache over real HTTP.
 * - 2026-07-28 (basic/patterns/subscriptions.mdx): list_changed and resources/updated
 *   arrive on the listen POST's own SSE stream, stamped with the listen id; when the server
 *   drops the stream no state survives, so the client re-issues the listen (new id).
 * - Legacy sessions: the same filter served from the session's standalone GET stream
 *   (2025-11-25 transports.mdx §Listening for Messages), which reconnects after `retry`.
 * - Cache (server/utilities/caching.mdx): fresh while now < received + ttlMs; never on a
 *   legacy session (no hints there); a relevant list_changed drops it at once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type Client } from '../../src/client/index.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import { until } from '../support/wait.js';
import { recordingFetch, serveFixture, type Exchange, type Served } from './support.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';
const subOf = (n: JsonRpcNotification) => (n.params?._meta as Record<string, unknown> | undefined)?.[SUB];

/** The next item, or a failure after `ms` (the pending next() stays the iterator's only waiter). */
async function within<T>(p: Promise<T>, ms = 2000, what = 'a notification'): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until the n-th exchange matching `pick` got its reply headers (the server holds the stream). */
const streamOpen = (log: Exchange[], pick: (e: Exchange) => boolean, n: number) =>
  until(() => log.filter((e) => pick(e) && e.status === 200).length >= n, `stream #${n} to open`);

const isListen = (e: Exchange) => e.body?.method === 'subscriptions/listen';

test('modern: listen yields list_changed and resources/updated from its own SSE stream, and is re-issued (new id) when the server drops the stream', async (t) => {
  const s = await serveFixture();
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { fetch: rec.fetch });
  try {
    assert.equal(client.era, 'modern');
    const stream = client.listen({ toolsListChanged: true, resourceSubscriptions: ['fixture://static'] });
    await streamOpen(rec.log, isListen, 1);
    const first = rec.posts('subscriptions/listen')[0]!;
    assert.equal(first.headers['mcp-method'], 'subscriptions/listen');
    assert.match(first.responseHeaders!['content-type']!, /^text\/event-stream/);
    assert.deepEqual(first.body!.params.notifications, { toolsListChanged: true, resourceSubscriptions: ['fixture://static'] });

    s.server.tool('late1', () => 'x');
    const a = await within(stream.next());
    assert.equal(a.value.method, 'notifications/tools/list_changed');
    assert.equal(subOf(a.value), first.body!.id);
    s.server.resourceUpdated('fixture://static');
    const b = await within(stream.next());
    assert.deepEqual([b.value.method, b.value.params?.uri], ['notifications/resources/updated', 'fixture://static']);

    // The server drops every connection (a restart, a proxy timeout): the listen must come back.
    s.handle.httpServer.closeAllConnections();
    await streamOpen(rec.log, isListen, 2);
    const second = rec.posts('subscriptions/listen')[1]!;
    assert.notEqual(second.body!.id, first.body!.id, 'a re-issued listen has a new id');
    assert.deepEqual(second.body!.params.notifications, first.body!.params.notifications);
    s.server.tool('late2', () => 'x');
    const c = await within(stream.next());
    assert.equal(c.value.method, 'notifications/tools/list_changed');
    assert.equal(subOf(c.value), second.body!.id);

    // Ending the iterator closes the stream: the server holds no request afterwards.
    await stream.return!();
    await until(() => s.conns.active() === 0, 'the listen stream to close on the server');
    assert.equal(rec.posts('subscriptions/listen').length, 2, 'no re-issue after return()');
  } finally {
    await client.close();
    await s.close();
  }
});

test('legacy session (2025-11-25): listen yields list_changed from the standalone GET stream, which reconnects after the server drops it', async (t) => {
  const s = await serveFixture({}, { retryMs: 50 });
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { protocolVersion: '2025-11-25', fetch: rec.fetch });
  const isGet = (e: Exchange) => e.method === 'GET';
  try {
    const stream = client.listen({ toolsListChanged: true, resourceSubscriptions: ['fixture://static'] });
    await streamOpen(rec.log, isGet, 1);
    await until(
      () => rec.posts('resources/subscribe').length === 1 && rec.posts('resources/subscribe')[0]!.status === 200,
      'resources/subscribe',
    );
    s.server.tool('late1', () => 'x');
    assert.equal((await within(stream.next())).value.method, 'notifications/tools/list_changed');
    s.server.resourceUpdated('fixture://static');
    const upd = await within(stream.next());
    assert.deepEqual([upd.value.method, upd.value.params?.uri], ['notifications/resources/updated', 'fixture://static']);

    s.handle.httpServer.closeAllConnections();
    await streamOpen(rec.log, isGet, 2);
    const gets = rec.log.filter(isGet);
    assert.equal(gets[1]!.headers['mcp-session-id'], gets[0]!.headers['mcp-session-id'], 'the same session');
    s.server.tool('late2', () => 'x');
    assert.equal((await within(stream.next())).value.method, 'notifications/tools/list_changed');
    await stream.return!();
    await until(() => rec.posts('resources/unsubscribe').length === 1, 'resources/unsubscribe on return()');
  } finally {
    await client.close();
    await s.conns.settled();
    await s.close();
  }
});

test('legacy session: after a transparent re-initialize (the server expired the session), listen re-sends resources/subscribe and updates keep coming', async (t) => {
  const s = await serveFixture({}, { retryMs: 50 });
  t.after(() => s.close());
  const rec = recordingFetch();
  const client = await connect(s.url, { protocolVersion: '2025-11-25', fetch: rec.fetch });
  const isGet = (e: Exchange) => e.method === 'GET';
  try {
    const stream = client.listen({ resourceSubscriptions: ['fixture://static'] });
    await until(() => rec.posts('resources/subscribe')[0]?.status === 200, 'resources/subscribe');
    // The first session's stream is open before the server forgets the session (or its GET could meet the 404 instead).
    await streamOpen(rec.log, isGet, 1);
    const sid = rec.posts('initialize')[0]!.responseHeaders!['mcp-session-id']!;
    await fetch(s.url, { method: 'DELETE', headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
    await client.callTool('echo', { text: 'x' }); // meets the 404, re-initializes
    assert.equal(rec.posts('initialize').length, 2);
    const fresh = rec.posts('initialize')[1]!.responseHeaders!['mcp-session-id']!;
    assert.notEqual(fresh, sid);
    // The new session's standalone stream: a GET with the new id, answered with a stream.
    await streamOpen(rec.log, (e) => isGet(e) && e.headers['mcp-session-id'] === fresh, 1);
    const resubscribed = () => rec.posts('resources/subscribe').some((e) => e.headers['mcp-session-id'] === fresh && e.status === 200);
    await until(resubscribed, "resources/subscribe on the new session (the old session's subscription died with it)");
    s.server.resourceUpdated('fixture://static');
    const upd = await within(stream.next(), 5000, 'resources/updated after the re-initialize');
    assert.equal(upd.value.params?.uri, 'fixture://static');
    // 2025-11-25 transports.mdx §Session Management: every GET carried a session id; one without
    // would have opened the deprecated HTTP+SSE transport, where nothing of the session arrives.
    assert.deepEqual(
      rec.log.filter((e) => isGet(e) && e.headers['mcp-session-id'] === undefined).map((e) => e.url),
      [],
    );
    await stream.return!();
  } finally {
    await client.close();
  }
});

const HINTS = { 'tools/list': { ttlMs: 150, scope: 'public' as const }, 'resources/read': { ttlMs: 60_000, scope: 'private' as const } };

async function cached(
  s: Served,
  options: { cache?: boolean; protocolVersion?: '2025-11-25' } = {},
): Promise<{ client: Client; rec: ReturnType<typeof recordingFetch> }> {
  const rec = recordingFetch();
  return { client: await connect(s.url, { fetch: rec.fetch, ...options }), rec };
}

test('cache: a tools/list is served from cache while ttlMs lasts and fetched again after it; resources/read is keyed by URI', async (t) => {
  const s = await serveFixture({ cache: HINTS });
  t.after(() => s.close());
  const { client, rec } = await cached(s, { cache: true });
  try {
    const a = await client.listTools();
    const b = await client.listTools();
    assert.deepEqual(b, a);
    assert.equal(rec.posts('tools/list').length, 1, 'the second list came from the cache');
    await new Promise((r) => setTimeout(r, 200));
    await client.listTools();
    assert.equal(rec.posts('tools/list').length, 2, 'after ttlMs the list is fetched again');

    await client.readResource('fixture://static');
    await client.readResource('fixture://static');
    await client.readResource('fixture://items/1');
    await client.readResource('fixture://items/2');
    await client.readResource('fixture://items/1');
    assert.deepEqual(
      rec.posts('resources/read').map((e) => e.body!.params.uri),
      ['fixture://static', 'fixture://items/1', 'fixture://items/2'],
    );
    // Calls are never cached.
    await client.callTool('echo', { text: 'a' });
    await client.callTool('echo', { text: 'a' });
    assert.equal(rec.posts('tools/call').length, 2);
  } finally {
    await client.close();
    await s.close();
  }
});

test('cache: a list_changed from a listen stream drops the cached list before its ttlMs ends', async (t) => {
  const s = await serveFixture({ cache: { 'tools/list': { ttlMs: 60_000, scope: 'public' } } });
  t.after(() => s.close());
  const { client, rec } = await cached(s, { cache: true });
  try {
    await client.listTools();
    const stream = client.listen({ toolsListChanged: true });
    await streamOpen(rec.log, isListen, 1);
    s.server.tool('late', () => 'x');
    await within(stream.next());
    const after = await client.listTools();
    assert.equal(rec.posts('tools/list').length, 2);
    assert.ok(after.tools.some((t) => t.name === 'late'));
    await stream.return!();
  } finally {
    await client.close();
    await s.close();
  }
});

for (const c of [
  { name: 'without cache: true', hints: HINTS, options: {} },
  { name: 'when the server says ttlMs 0', hints: {}, options: { cache: true } },
  { name: 'on a legacy session (no hints there)', hints: HINTS, options: { cache: true, protocolVersion: '2025-11-25' as const } },
]) {
  test(`cache: nothing is cached ${c.name}`, async (t) => {
    const s = await serveFixture({ cache: c.hints });
    t.after(() => s.close());
    const { client, rec } = await cached(s, c.options);
    try {
      await client.listTools();
      await client.listTools();
      await client.readResource('fixture://static');
      await client.readResource('fixture://static');
      assert.equal(rec.posts('tools/list').length, 2);
      assert.equal(rec.posts('resources/read').length, 2);
    } finally {
      await client.close();
      await s.close();
    }
  });
}
