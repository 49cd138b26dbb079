/**
 * `createFetchHandler` (web-standard Request → Response) answers like the Node handler behind
 * `serveHttp`: same statuses, content types, session header and messages, for a 2026-07-28
 * tools/call (JSON and SSE) and a legacy session (initialize → initialized → tools/call).
 * Fetch answers are schema-checked by the same HttpPeer checks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFetchHandler, type FetchHandler } from '../../src/transports/http/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { CLIENT } from '../support/everything-fixture.js';
import { JSON_HEADERS, SseParser } from '../support/http.js';
import { HttpPeer, rpc, serve, type Outcome } from './support.js';

/** The comparable part of an answer: status, media type, whether a session id came back, messages. */
interface Seen {
  status: number;
  type: string;
  session: boolean;
  messages: Msg[];
}

function seen(o: Outcome): Seen {
  return {
    status: o.status,
    type: String(o.headers['content-type'] ?? '').split(';')[0]!,
    session: typeof o.headers['mcp-session-id'] === 'string',
    messages: o.messages,
  };
}

async function viaFetch(
  fetchHandler: FetchHandler,
  peer: HttpPeer,
  body: Msg,
  headers: Record<string, string | undefined>,
): Promise<Seen & { sessionId: string | null }> {
  peer.remember(body);
  const h = new Headers();
  for (const [k, v] of Object.entries({ ...JSON_HEADERS, ...headers })) if (v !== undefined) h.set(k, v);
  const res = await fetchHandler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: h, body: JSON.stringify(body) }));
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
  const text = await res.text();
  let messages: Msg[] = [];
  if (type === 'text/event-stream') {
    messages = new SseParser().push(text).flatMap((e) => (e.data === '' ? [] : [JSON.parse(e.data) as Msg]));
  } else if (text !== '') {
    messages = [JSON.parse(text) as Msg];
  }
  for (const m of messages) {
    const problem = peer.check(m);
    assert.equal(problem, undefined, problem);
  }
  const sessionId = res.headers.get('mcp-session-id');
  return { status: res.status, type: text === '' ? '' : type, session: sessionId !== null, messages, sessionId };
}

test('fetch handler = Node handler for 2026-07-28 tools/call: JSON answer, and an SSE answer with progress before the result', async () => {
  const s = await serve();
  const fetchHandler = createFetchHandler(s.server);
  const peer = new HttpPeer(s.url, MODERN);
  try {
    for (const [name, meta] of [
      ['test_simple_text', {}],
      ['test_tool_with_progress', { progressToken: 'f' }],
    ] as const) {
      const body = peer.modernBody('tools/call', { name, arguments: {}, _meta: meta }, { id: 1 });
      const node = seen(await peer.post(body, peer.modernHeaders(body)));
      const { sessionId: _, ...web } = await viaFetch(fetchHandler, peer, body, peer.modernHeaders(body));
      assert.deepEqual(web, node, name);
      assert.equal(node.session, false);
    }
    assert.equal((await viaFetch(fetchHandler, peer, rpc(2, 'server/discover', {}), { 'mcp-protocol-version': MODERN })).status, 400);
    peer.assertClean();
  } finally {
    await fetchHandler.close();
    await s.close();
  }
});

test('fetch handler = Node handler for a legacy 2025-11-25 session: initialize (Mcp-Session-Id) → initialized 202 → tools/call', async () => {
  const s = await serve();
  const fetchHandler = createFetchHandler(s.server);
  const nodePeer = new HttpPeer(s.url, '2025-11-25');
  const webPeer = new HttpPeer(s.url, '2025-11-25');
  try {
    const init = rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT });
    const nodeInit = await nodePeer.post(init);
    const webInit = await viaFetch(fetchHandler, webPeer, init, {});
    nodePeer.sessionId = nodeInit.headers['mcp-session-id'] as string;
    assert.match(webInit.sessionId ?? '', /^[\x21-\x7e]+$/);
    webPeer.sessionId = webInit.sessionId!;
    const { sessionId: _, ...web } = webInit;
    assert.deepEqual(web, seen(nodeInit));

    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const call = rpc(2, 'tools/call', { name: 'test_simple_text', arguments: {} });
    for (const body of [initialized, call]) {
      const node = seen(await nodePeer.post(body));
      const { sessionId: __, ...w } = await viaFetch(fetchHandler, webPeer, body, webPeer.sessionHeaders());
      assert.deepEqual(w, node, String(body.method));
    }
    const unknown = await viaFetch(fetchHandler, webPeer, rpc(3, 'ping'), { 'mcp-session-id': 'nope' });
    assert.equal(unknown.status, 404);
    nodePeer.assertClean();
    webPeer.assertClean();
  } finally {
    await fetchHandler.close();
    await s.close();
  }
});
