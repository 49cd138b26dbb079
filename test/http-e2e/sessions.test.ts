/**
 * Sessions a server can act on (hooks and handles) over real HTTP on 127.0.0.1:
 * - the hooks: `onInitialized` after notifications/initialized, `onRootsChanged`,
 *   `onClosed` once per initialized session however it ends (the client's DELETE, one from
 *   outside, `server.close()`); a session that never finished its handshake fires nothing;
 *   `server.onSession` adds subscribers and removes them; a failing hook goes to `onError`;
 * - the handle outside any request, on the session's GET stream: notify, log (as the client's
 *   logging/setLevel allows), ping, and roots, elicit and sample answered by a real Janus
 *   client; a clear JanusError for what the revision or the client's capabilities do not
 *   allow, for a closed session, and at once for an HTTP session with no GET stream open;
 * - server pings (basic/utilities/ping.mdx): a client that answers keeps its session, one
 *   that stops is ended and answered 404 after (Streamable HTTP), or loses its stream
 *   (2024-11-05 HTTP+SSE);
 * - `ctx.session` and the middleware's `ctx.session` are the handle on the handshake era and
 *   undefined on 2026-07-28; `server.session(id)` (id = Mcp-Session-Id) and `server.stats()`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { connect } from '../../src/client/index.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import { JanusError } from '../../src/errors/index.js';
import { createServer, type ServerOptions, type SessionHandle } from '../../src/server/index.js';
import { askHandlers, textOf } from '../client/helpers.js';
import { recordingFetch } from '../client-e2e/support.js';
import type { Msg } from '../support/common.js';
import { until } from '../support/wait.js';
import { HttpPeer, nextMessage, rpc, serve, type Served } from './support.js';

interface Seen {
  initialized: SessionHandle[];
  rootsChanged: SessionHandle[];
  closed: SessionHandle[];
  /** `ctx.session` as the middleware saw it, per request method. */
  middleware: Array<{ method: string; session: SessionHandle | undefined }>;
}

/** A server whose hooks and middleware record what they see; `whoami` answers `ctx.session`'s id. */
function sessionsServer(options: Partial<ServerOptions> = {}): { server: ReturnType<typeof createServer>; seen: Seen } {
  const seen: Seen = { initialized: [], rootsChanged: [], closed: [], middleware: [] };
  const server = createServer({
    name: 'sessions',
    version: '1.0.0',
    ...options,
    sessions: {
      ...options.sessions,
      onInitialized: (s) => void seen.initialized.push(s),
      onRootsChanged: (s) => void seen.rootsChanged.push(s),
      onClosed: (s) => void seen.closed.push(s),
    },
  });
  server.use((ctx, next) => {
    if (ctx.kind === 'request') seen.middleware.push({ method: ctx.method, session: ctx.session });
    return next();
  });
  server.tool('whoami', (_args, ctx) => ctx.session?.id ?? 'none');
  return { server, seen };
}

const sessionIdOf = (rec: ReturnType<typeof recordingFetch>) => rec.posts('initialize')[0]?.responseHeaders?.['mcp-session-id'];

/** Deletes a Streamable HTTP session from outside, as an operator or another client might. */
async function deleteSession(s: Served, id: string): Promise<number> {
  const res = await fetch(s.url, { method: 'DELETE', headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' } });
  await res.arrayBuffer();
  return res.status;
}

/** Rejects with a JanusError of `code` whose message matches `message`. */
async function rejectsWith(p: Promise<unknown> | (() => unknown), code: string, message: RegExp): Promise<void> {
  const check = (e: unknown) => {
    assert.ok(e instanceof JanusError, `a JanusError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  };
  if (typeof p === 'function') assert.throws(p as () => unknown, check);
  else await assert.rejects(p, check);
}

/** Resolves once the session's GET stream is open: until then a ping fails at once (nothing can carry it). */
const streamOpen = (h: SessionHandle) =>
  until(
    () =>
      h.ping({ timeoutMs: 2000 }).then(
        () => true,
        () => false,
      ),
    'the session’s GET stream to open',
  );

test('HTTP: a Janus client’s session initializes, changes roots and closes (DELETE); hooks, ctx.session, server.session and stats agree', async (t) => {
  const { server, seen } = sessionsServer();
  const s = await serve(server);
  t.after(() => s.close({ allowErrors: true })); // a failed test still lets go of the port (close is idempotent)
  const rec = recordingFetch();
  let roots = [{ uri: 'file:///a', name: 'a' }];
  const client = await connect(s.url, {
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'hooks-client', version: '2.0.0' },
    fetch: rec.fetch,
    onRoots: () => roots,
  });
  t.after(() => client.close());
  try {
    const h = await until(() => seen.initialized[0], 'onInitialized');
    assert.equal(seen.initialized.length, 1);
    assert.equal(h.id, sessionIdOf(rec), 'the session id is the Mcp-Session-Id');
    assert.equal(h.protocolVersion, '2025-11-25');
    assert.equal(h.transport, 'http');
    assert.deepEqual(h.client.info, { name: 'hooks-client', version: '2.0.0' });
    assert.ok(h.client.capabilities.roots, 'the capabilities initialize declared');
    assert.equal(h.closed, false);
    assert.equal(server.session(h.id), h, 'one handle per session');
    assert.equal(server.session('no-such-session'), undefined);
    assert.deepEqual(server.stats(), { sessions: 1, listenStreams: 0 });
    h.state.user = 'ada';

    assert.equal(textOf(await client.callTool('whoami')), h.id);
    const call = seen.middleware.find((m) => m.method === 'tools/call');
    assert.equal(call?.session, h, 'the middleware’s ctx.session is the handle');
    assert.equal(seen.middleware.find((m) => m.method === 'initialize')?.session, undefined, 'no handle before the handshake ends');

    roots = [{ uri: 'file:///b', name: 'b' }];
    await client.rootsChanged();
    assert.equal(await until(() => seen.rootsChanged[0], 'onRootsChanged'), h);
    assert.deepEqual(
      (await h.roots()).map((r) => r.uri),
      ['file:///b'],
    );
    assert.deepEqual(seen.closed, []);
  } finally {
    await client.close();
  }
  const closed = await until(() => seen.closed[0], 'onClosed after the client’s DELETE');
  assert.equal(closed, seen.initialized[0]);
  assert.equal(closed.closed, true);
  assert.equal(closed.state.user, 'ada', 'its state is still there for onClosed');
  assert.equal(server.session(closed.id), undefined);
  assert.deepEqual(server.stats(), { sessions: 0, listenStreams: 0 });
  await s.close();
  assert.equal(seen.closed.length, 1, 'onClosed once');
});

test('HTTP: a DELETE from outside and server.close() fire onClosed; a session that never finished its handshake fires nothing; onSession subscribes and unsubscribes', async (t) => {
  const { server, seen } = sessionsServer();
  const s = await serve(server);
  t.after(() => s.close({ allowErrors: true })); // a failed test still lets go of the port (close is idempotent)
  const late: string[] = [];
  const stop = server.onSession({
    onInitialized: (h) => void late.push(`init ${h.id}`),
    onClosed: (h) => void late.push(`closed ${h.id}`),
  });
  const a = new HttpPeer(s.url, '2025-11-25');
  const half = new HttpPeer(s.url, '2025-11-25');
  const c = new HttpPeer(s.url, '2025-06-18');
  try {
    await a.initialize();
    const h = await until(() => seen.initialized[0], 'onInitialized');
    assert.equal(h.id, a.sessionId);
    assert.deepEqual(late, [`init ${a.sessionId}`], 'onSession subscribers hear it too');

    // A handshake that never ends (no notifications/initialized): no hook, before or at its end.
    const init = await half.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'half', version: '1' },
    });
    const halfId = init.headers['mcp-session-id'] as string;
    assert.equal(await deleteSession(s, halfId), 200);
    assert.equal(await deleteSession(s, a.sessionId!), 200);
    await until(() => seen.closed.length === 1, 'onClosed for the DELETEd session');
    assert.deepEqual(
      seen.closed.map((x) => x.id),
      [a.sessionId],
      'the half-open session fired nothing',
    );
    assert.equal(seen.initialized.length, 1);
    assert.equal((await a.request('ping')).status, 404, 'the DELETEd session is gone');

    stop();
    await c.initialize();
    await until(() => seen.initialized.length === 2, 'onInitialized for the second session');
  } finally {
    await s.close();
  }
  assert.deepEqual(
    seen.closed.map((x) => x.id),
    [a.sessionId, c.sessionId],
    'server.close() ended the open session',
  );
  assert.deepEqual(late, [`init ${a.sessionId}`, `closed ${a.sessionId}`], 'an unsubscribed hook hears nothing more');
  a.assertClean();
  c.assertClean();
});

test('HTTP: the handle outside any request notifies, logs as setLevel allows, pings, and gets roots, elicitation and sampling from a Janus client', async (t) => {
  const { server, seen } = sessionsServer();
  const s = await serve(server);
  t.after(() => s.close({ allowErrors: true })); // a failed test still lets go of the port (close is idempotent)
  const h = askHandlers();
  const notes: JsonRpcNotification[] = [];
  const client = await connect(s.url, { protocolVersion: '2025-11-25', ...h.options, onNotification: (n) => notes.push(n) });
  t.after(() => client.close());
  try {
    await client.setLogLevel('warning');
    const session = await until(() => seen.initialized[0], 'onInitialized');
    await streamOpen(session);

    session.log('info', 'below the level');
    session.log('error', { disk: 'full' }, 'storage');
    session.notify('notifications/tools/list_changed');
    await until(() => notes.some((n) => n.method === 'notifications/tools/list_changed'), 'the notification');
    // One stream, in order: the info line would have come before what followed it.
    assert.deepEqual(
      notes.filter((n) => n.method === 'notifications/message').map((n) => n.params),
      [{ level: 'error', data: { disk: 'full' }, logger: 'storage' }],
    );

    await session.ping();
    assert.deepEqual(await session.roots(), [{ uri: 'file:///work', name: 'work' }]);
    const answer = await session.elicit({ message: 'Who?', requestedSchema: z.object({ name: z.string() }) });
    assert.equal(answer.action, 'accept');
    if (answer.action === 'accept') assert.equal(answer.content.name, 'Ada');
    assert.deepEqual(h.seen.elicit[0], {
      mode: 'form',
      message: 'Who?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const sampled = await session.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    assert.deepEqual(sampled.content, { type: 'text', text: 'hi there' });
    assert.deepEqual(h.calls, { elicit: 1, sample: 1, roots: 1 });
  } finally {
    await client.close();
  }
  await s.close();
});

test('HTTP: clear JanusErrors for what the revision or the client does not allow, at once without a GET stream, and on a closed session', async (t) => {
  const { server, seen } = sessionsServer();
  const s = await serve(server);
  t.after(() => s.close({ allowErrors: true })); // a failed test still lets go of the port (close is idempotent)
  const old = new HttpPeer(s.url, '2025-03-26');
  const plain = new HttpPeer(s.url, '2025-06-18');
  const modern = new HttpPeer(s.url, '2025-11-25');
  try {
    // 2025-03-26: no elicitation, no URL elicitation, no elicitation/complete, whatever the client declares.
    await old.initialize({ roots: {}, elicitation: {} });
    const o = await until(() => seen.initialized[0], 'onInitialized');
    await rejectsWith(
      o.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }),
      'PROTOCOL',
      /elicitation needs protocol 2025-06-18 or later \(session uses 2025-03-26\)/,
    );
    await rejectsWith(
      o.elicitUrl({ message: 'x', url: 'https://example.com' }),
      'PROTOCOL',
      /URL elicitation needs protocol 2025-11-25 or later \(this session uses 2025-03-26\)/,
    );
    await rejectsWith(
      () => o.notify('notifications/elicitation/complete', { elicitationId: 'e' }),
      'PROTOCOL',
      /not a server notification of protocol 2025-03-26/,
    );
    await rejectsWith(() => o.notify('notifications/made_up'), 'PROTOCOL', /not a server notification/);

    // 2025-06-18, a client that declared nothing: nothing to ask it for.
    await plain.initialize({});
    const p = await until(() => seen.initialized[1], 'onInitialized');
    await rejectsWith(p.roots(), 'PROTOCOL', /did not declare the capability roots\/list needs/);
    await rejectsWith(p.sample({ messages: [], maxTokens: 1 }), 'PROTOCOL', /did not declare/);

    // 2025-11-25 with roots, but no GET stream yet: nothing can carry a request, so it fails now, not at its timeout (5 s).
    await modern.initialize({ roots: {} });
    const m = await until(() => seen.initialized[2], 'onInitialized');
    await rejectsWith(
      m.roots({ timeoutMs: 5000 }),
      'TRANSPORT_CLOSED',
      /roots\/list not sent: nothing reaches the client .* no GET stream open/,
    );
    await rejectsWith(m.ping({ timeoutMs: 5000 }), 'TRANSPORT_CLOSED', /ping not sent: .*no GET stream open/);
    // Once the GET stream is open, the same ask goes out on it and the answer comes back by POST.
    const get = await modern.get();
    const asking = m.roots();
    const request = await nextMessage(get);
    assert.equal(request.method, 'roots/list');
    assert.equal((await modern.post({ jsonrpc: '2.0', id: request.id, result: { roots: [{ uri: 'file:///x' }] } })).status, 202);
    assert.deepEqual(await asking, [{ uri: 'file:///x' }]);

    // A closed session: sends throw, asks reject, a log line is dropped quietly.
    m.close();
    assert.equal(m.closed, true);
    await get.rest(); // the stream ends with the session
    await rejectsWith(() => m.notify('notifications/tools/list_changed'), 'TRANSPORT_CLOSED', /is closed/);
    await rejectsWith(m.roots(), 'TRANSPORT_CLOSED', /closed/);
    await rejectsWith(m.ping(), 'TRANSPORT_CLOSED', /closed/);
    m.log('error', 'nobody hears this');
    assert.equal((await modern.request('ping')).status, 404, 'session.close() makes the transport forget the session');
    assert.deepEqual(
      seen.closed.map((x) => x.id),
      [modern.sessionId],
    );
  } finally {
    await s.close();
  }
  old.assertClean();
  plain.assertClean();
  modern.assertClean();
});

test('HTTP server pings: a Janus client that answers keeps its session; a peer that stops answering is ended and gets 404', async (t) => {
  const { server, seen } = sessionsServer({ sessions: { ping: { intervalMs: 50, timeoutMs: 1000 } } });
  const s = await serve(server);
  t.after(() => s.close({ allowErrors: true })); // a failed test still lets go of the port (close is idempotent)
  const rec = recordingFetch();
  const client = await connect(s.url, { protocolVersion: '2025-11-25', fetch: rec.fetch });
  t.after(() => client.close());
  const dead = new HttpPeer(s.url, '2025-11-25');
  try {
    const live = await until(() => seen.initialized[0], 'the live session');
    await dead.initialize();
    const get = await dead.get();
    const ping = await nextMessage(get);
    assert.equal(ping.method, 'ping');
    // Left unanswered: the session ends within its timeout, its GET stream with it.
    const ended = await until(() => seen.closed.find((x) => x.id === dead.sessionId), 'onClosed for the silent peer');
    assert.equal(ended.closed, true);
    await get.rest(); // the stream ends with the session
    assert.equal((await dead.request('ping')).status, 404, 'the transport forgot the session');
    assert.equal(server.session(dead.sessionId!), undefined);
    // Meanwhile the Janus client answers every ping it gets (each answer is a POST) and keeps its session.
    const answers = () => rec.posts().filter((e) => e.body !== undefined && !('method' in e.body) && 'result' in e.body).length;
    await until(() => answers() >= 3, 'three answered pings from the live client');
    assert.equal(live.closed, false);
    assert.equal(server.session(live.id), live);
    assert.deepEqual(server.stats(), { sessions: 1, listenStreams: 0 });
    assert.equal(textOf(await client.callTool('whoami')), live.id);
  } finally {
    await client.close();
    await s.close();
  }
  assert.deepEqual(s.errors, [], 'a dead client is reported nowhere');
  dead.assertClean();
});

test('2024-11-05 HTTP+SSE: the handle works on the event stream; an unanswered server ping ends the session and its stream', async (t) => {
  const { server, seen } = sessionsServer({ sessions: { ping: { intervalMs: 100, timeoutMs: 200 } } });
  const s = await serve(server);
  t.after(() => s.close({ allowErrors: true })); // a failed test still lets go of the port (close is idempotent)
  const peer = new HttpPeer(s.url, '2024-11-05');
  try {
    const stream = await peer.get();
    const endpoint = new URL((await stream.next()).data, s.url);
    const init = rpc(1, 'initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'sse', version: '1' } });
    assert.equal((await peer.post(init, {}, endpoint)).status, 202);
    assert.equal((await nextMessage(stream)).id, 1);
    assert.equal((await peer.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, {}, endpoint)).status, 202);
    const h = await until(() => seen.initialized[0], 'onInitialized');
    assert.equal(h.transport, 'sse');
    assert.equal(h.protocolVersion, '2024-11-05');
    h.log('notice', 'over the event stream');
    let next: Msg = await nextMessage(stream);
    assert.deepEqual(next.params, { level: 'notice', data: 'over the event stream' });
    next = await nextMessage(stream);
    assert.equal(next.method, 'ping');
    await until(() => seen.closed[0], 'onClosed after the unanswered ping');
    await stream.rest(); // the stream ends with the session
    assert.equal((await peer.post(rpc(2, 'ping'), {}, endpoint)).status, 404);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('HTTP: ctx.session is undefined on 2026-07-28; stats() counts listen streams; a failing hook goes to onError and dispatch goes on', async (t) => {
  const { server, seen } = sessionsServer();
  server.onSession({
    onInitialized() {
      throw new Error('sync hook failure');
    },
  });
  server.onSession({
    async onInitialized() {
      throw new Error('async hook failure');
    },
  });
  const s = await serve(server);
  t.after(() => s.close({ allowErrors: true })); // a failed test still lets go of the port (close is idempotent)
  const legacy = await connect(s.url, { protocolVersion: '2025-11-25' });
  t.after(() => legacy.close());
  const modern = await connect(s.url, { protocolVersion: '2026-07-28' });
  t.after(() => modern.close());
  const peer = new HttpPeer(s.url, '2026-07-28');
  try {
    // Later subscribers still ran, and the session works.
    const h = await until(() => seen.initialized[0], 'onInitialized');
    assert.equal(textOf(await legacy.callTool('whoami')), h.id);
    assert.equal(textOf(await modern.callTool('whoami')), 'none');
    assert.equal(
      seen.middleware.filter((m) => m.method === 'tools/call')[1]?.session,
      undefined,
      'no session in the modern middleware ctx',
    );
    await until(() => s.errors.length === 2, 'both hook failures reported');
    assert.deepEqual(s.errors.map((e) => (e as Error).message).sort(), ['async hook failure', 'sync hook failure']);

    const listen = await peer.openModern('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'L' });
    await until(() => server.stats().listenStreams === 1, 'the listen stream counted');
    assert.deepEqual(server.stats(), { sessions: 1, listenStreams: 1 });
    listen.abort();
    await until(() => server.stats().listenStreams === 0, 'the listen stream gone');
  } finally {
    await legacy.close();
    await modern.close();
    await s.close({ allowErrors: true });
  }
  assert.equal(seen.closed.length, 1);
});
