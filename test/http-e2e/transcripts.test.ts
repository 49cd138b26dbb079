/**
 * Exact HTTP transcripts of the everything fixture, one session per revision, over real
 * loopback sockets (every server message schema-checked by the HttpPeer, see support.ts).
 *
 * - 2024-11-05: the deprecated HTTP+SSE transport on the MCP endpoint itself
 *   (docs/2024-11-05/basic/transports.mdx §HTTP with SSE): GET opens the stream, whose first
 *   event is `endpoint`; every POST there gets 202 and its answer is an SSE `message` event.
 * - 2025-03-26 … 2025-11-25: Streamable HTTP with sessions (docs/<rev>/basic/transports.mdx
 *   §Session Management: Mcp-Session-Id on the InitializeResult response, visible ASCII;
 *   202 for notifications; DELETE ends the session, then 404) and, from 2025-06-18,
 *   §Protocol Version Header (unsupported value → 400, absent → assume a default, accept).
 * - 2026-07-28: stateless POSTs with the `_meta` envelope and the Mcp-* request headers
 *   (docs/2026-07-28/basic/transports/streamable-http.mdx §Request Metadata).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MODERN, type Msg } from '../support/common.js';
import { handshake, MemoryPeer } from '../support/peer.js';
import {
  ALL_VERSIONS,
  CLIENT,
  CLIENT_CAPS,
  initializeResult,
  INSTRUCTIONS,
  MODERN_META,
  PROMPT,
  serverCapabilities,
  SIMPLE_TOOL,
  STATIC,
  TEXT,
} from '../support/everything-fixture.js';
import { HttpPeer, nextMessage, rpc, serve, type Outcome } from './support.js';

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const STREAMABLE = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

test('2024-11-05 HTTP+SSE transcript: GET → endpoint event; initialize → initialized → tools/list → tools/call → ping, each POST 202 and each answer an SSE message event', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2024-11-05');
  const stream = await peer.get(); // no Mcp-Session-Id: the HTTP+SSE stream
  try {
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    const endpoint = await stream.next();
    assert.equal(endpoint.event, 'endpoint');
    const m = /^\/mcp\?sessionId=(.+)$/.exec(endpoint.data);
    assert.ok(m, `endpoint event data: ${endpoint.data}`);
    assert.match(decodeURIComponent(m[1]!), VISIBLE_ASCII);
    const postUrl = new URL(endpoint.data, s.url);

    const statuses: number[] = [];
    const answers: Msg[] = [];
    const send = async (body: Msg) => {
      const o = await peer.post(body, {}, postUrl);
      statuses.push(o.status);
      assert.equal(o.kind, 'empty', 'a POST of the HTTP+SSE transport is answered on the stream, not in the body');
      if ('id' in body) answers.push(await nextMessage(stream));
    };
    await send(rpc(1, 'initialize', { protocolVersion: '2024-11-05', capabilities: CLIENT_CAPS['2024-11-05']!, clientInfo: CLIENT }));
    await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await send(rpc(2, 'tools/list'));
    await send(rpc(3, 'tools/call', { name: 'test_simple_text', arguments: {} }));
    await send(rpc(4, 'ping'));

    // The same server over an in-memory 2024-11-05 session lists the same tools.
    const ref = await MemoryPeer.connect(s.server, { revision: '2024-11-05' });
    await handshake(ref, '2024-11-05');
    const tools = (await ref.request('tools/list')).result;
    await ref.close();
    assert.deepEqual(tools.tools[0], SIMPLE_TOOL);

    assert.deepEqual(statuses, [202, 202, 202, 202, 202]);
    assert.deepEqual(answers, [
      { jsonrpc: '2.0', id: 1, result: initializeResult('2024-11-05') },
      { jsonrpc: '2.0', id: 2, result: tools },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: TEXT }] } },
      { jsonrpc: '2.0', id: 4, result: {} },
    ]);
    assert.equal(stream.events.length, 5, 'nothing but the endpoint event and the four answers');
    peer.assertClean();

    // The stream's end is the session's end.
    const sessions = s.sessions.size;
    stream.abort();
    await stream.ended;
    const gone = await peer.post(rpc(5, 'ping'), {}, postUrl);
    assert.equal(gone.status, 404);
    assert.equal(gone.messages[0]?.error?.code, -32600);
    assert.equal(s.sessions.size, sessions - 1);
  } finally {
    stream.abort();
    await s.close();
  }
});

/** Status, body kind and message of one step. */
function step(o: Outcome): [number, string, Msg | null] {
  return [o.status, o.kind, o.messages[0] ?? null];
}

for (const v of STREAMABLE) {
  test(`${v} Streamable HTTP transcript: initialize (Mcp-Session-Id) → initialized 202 → tools/call → prompts/get → resources/read → ping → DELETE, then 404`, async () => {
    const s = await serve();
    const peer = new HttpPeer(s.url, v);
    try {
      const init = await peer.request('initialize', { protocolVersion: v, capabilities: CLIENT_CAPS[v]!, clientInfo: CLIENT });
      const sid = init.headers['mcp-session-id'];
      assert.equal(typeof sid, 'string', 'the InitializeResult response carries Mcp-Session-Id');
      assert.match(sid as string, VISIBLE_ASCII);
      peer.sessionId = sid as string;
      const steps = [step(init)];
      steps.push(step(await peer.notify('notifications/initialized')));
      steps.push(step(await peer.request('tools/call', { name: 'test_simple_text', arguments: {} })));
      steps.push(step(await peer.request('prompts/get', { name: 'test_simple_prompt' })));
      steps.push(step(await peer.request('resources/read', { uri: 'test://static-text' })));
      steps.push(step(await peer.request('ping')));
      const del = await peer.send({ method: 'DELETE', headers: peer.sessionHeaders() });
      assert.equal(await del.text(), '');
      const after = await peer.request('ping');

      assert.deepEqual(steps, [
        [200, 'json', { jsonrpc: '2.0', id: 1, result: initializeResult(v) }],
        [202, 'empty', null],
        [200, 'json', { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: TEXT }] } }],
        [200, 'json', { jsonrpc: '2.0', id: 3, result: { messages: [{ role: 'user', content: { type: 'text', text: PROMPT } }] } }],
        [200, 'json', { jsonrpc: '2.0', id: 4, result: { contents: [STATIC] } }],
        [200, 'json', { jsonrpc: '2.0', id: 5, result: {} }],
      ]);
      assert.equal(del.status, 200);
      assert.equal(after.status, 404, 'a terminated session answers 404 (§Session Management item 3)');
      assert.equal(after.messages[0]?.id, 6);
      assert.equal(after.messages[0]?.error?.code, -32600);
      assert.equal(s.sessions.size, 0, 'DELETE closed the core session');
      peer.assertClean();
    } finally {
      await s.close();
    }
  });
}

for (const v of ['2025-06-18', '2025-11-25'] as const) {
  test(`${v} §Protocol Version Header: an unsupported MCP-Protocol-Version on a POST request → 400; absent → accepted`, async () => {
    const s = await serve();
    const peer = new HttpPeer(s.url, v);
    try {
      await peer.initialize();
      for (const bad of ['bogus', '2099-01-01', '2025-13-45']) {
        const o = await peer.request(
          'tools/call',
          { name: 'test_simple_text', arguments: {} },
          { headers: { 'mcp-protocol-version': bad } },
        );
        assert.equal(o.status, 400, `MCP-Protocol-Version: ${bad}`);
      }
      const absent = await peer.request('ping', undefined, { id: 50, headers: { 'mcp-protocol-version': undefined } });
      assert.deepEqual(step(absent), [200, 'json', { jsonrpc: '2.0', id: 50, result: {} }]);
      const right = await peer.request('ping', undefined, { id: 51 });
      assert.deepEqual(step(right), [200, 'json', { jsonrpc: '2.0', id: 51, result: {} }]);
      peer.assertClean();
    } finally {
      await s.close();
    }
  });

  test(`${v} §Protocol Version Header: a notification POSTed with an unsupported MCP-Protocol-Version → 400, not 202 (today it is accepted and silently dropped)`, async () => {
    const s = await serve();
    const peer = new HttpPeer(s.url, v);
    try {
      await peer.initialize();
      const note = await peer.post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, { 'mcp-protocol-version': 'bogus' });
      assert.equal(note.status, 400);
    } finally {
      await s.close();
    }
  });

  test(`${v} §Protocol Version Header: GET and DELETE with a valid session and an unsupported MCP-Protocol-Version → 400, not 405`, async () => {
    const s = await serve();
    const peer = new HttpPeer(s.url, v);
    try {
      await peer.initialize();
      const bogus = { 'mcp-protocol-version': 'bogus' };
      const get = await peer.get(bogus);
      get.abort();
      const del = await peer.send({ method: 'DELETE', headers: { ...peer.sessionHeaders(), ...bogus } });
      await del.text();
      assert.deepEqual({ get: get.status, delete: del.status }, { get: 400, delete: 400 });
    } finally {
      await s.close();
    }
  });
}

test('2026-07-28 transcript: server/discover → tools/call → prompts/get → resources/read with the _meta envelope and Mcp-* headers; JSON answers, no session', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const caps = { elicitation: { form: {} }, sampling: {} };
    const outcomes = [
      await peer.modern('server/discover', {}, { caps }),
      await peer.modern('tools/call', { name: 'test_simple_text', arguments: {} }, { caps }),
      await peer.modern('prompts/get', { name: 'test_simple_prompt' }, { caps }),
      await peer.modern('resources/read', { uri: 'test://static-text' }, { caps }),
    ];
    for (const o of outcomes) assert.equal(o.headers['mcp-session-id'], undefined, 'the stateless era mints no session');
    assert.deepEqual(outcomes.map(step), [
      [
        200,
        'json',
        {
          jsonrpc: '2.0',
          id: 1,
          result: {
            resultType: 'complete',
            supportedVersions: ALL_VERSIONS,
            capabilities: serverCapabilities(MODERN),
            instructions: INSTRUCTIONS,
            ttlMs: 0,
            cacheScope: 'private',
            _meta: MODERN_META,
          },
        },
      ],
      [
        200,
        'json',
        { jsonrpc: '2.0', id: 2, result: { resultType: 'complete', content: [{ type: 'text', text: TEXT }], _meta: MODERN_META } },
      ],
      [
        200,
        'json',
        {
          jsonrpc: '2.0',
          id: 3,
          result: { resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: PROMPT } }], _meta: MODERN_META },
        },
      ],
      [
        200,
        'json',
        {
          jsonrpc: '2.0',
          id: 4,
          result: { resultType: 'complete', contents: [STATIC], ttlMs: 0, cacheScope: 'private', _meta: MODERN_META },
        },
      ],
    ]);
    assert.equal(s.sessions.size, 0);
    peer.assertClean();
  } finally {
    await s.close();
  }
});
