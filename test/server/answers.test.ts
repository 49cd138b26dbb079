/**
 * Every request with an id gets an answer, whatever happens while it is served (JSON-RPC 2.0
 * §5: a Response for each Request), and a message nested deeper
 * than the server's JSON depth limit (`limits.maxJsonDepth`, default 64 levels) is refused
 * with -32600 before anything walks it (JSON-RPC 2.0 §5.1: valid JSON, not a valid Request).
 * Over stdio (a real child process), over HTTP (a real socket) and through the transport seam.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coreOf, type Inbound } from '../../src/spi/index.js';
import { createServer } from '../../src/server/index.js';
import { META_LOG, MODERN, type Msg } from '../support/common.js';
import { JSON_HEADERS } from '../support/http.js';
import { modernMeta, withMemoryPeer } from '../support/peer.js';
import { StdioPeer } from '../support/stdio-peer.js';
import { HttpPeer, serve } from '../http-e2e/support.js';

/** `[[[…"x"…]]]`, `levels` arrays deep, as text: JSON.stringify itself overflows on such values. */
const nested = (levels: number): string => `${'['.repeat(levels)}"x"${']'.repeat(levels)}`;

/** A 2026-07-28 tools/list whose `_meta` log level is `levelJson` (raw JSON text). */
function deepRequest(id: number, levelJson: string): string {
  const meta = JSON.stringify(modernMeta()).slice(0, -1);
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${meta},"${META_LOG}":${levelJson}}}}`;
}

const TOO_DEEP = /^Invalid Request: JSON nested more than 64 levels deep$/;

test('stdio: a request whose _meta log level nests 5,000 arrays deep is answered -32600 with its id, nothing on stderr, and the channel goes on', async () => {
  const peer = new StdioPeer({ revision: MODERN });
  try {
    const answer = peer.expectResponse(1, 'tools/list');
    peer.writeLine(deepRequest(1, nested(5000)));
    const r = await answer;
    assert.equal(r.error?.code, -32600, JSON.stringify(r));
    assert.match(r.error.message, TOO_DEEP);
    const after = await peer.modern('tools/list');
    assert.ok(Array.isArray(after.result?.tools), 'the next request is served');
  } finally {
    await peer.close();
  }
  assert.equal(peer.stderr, '', 'a client mistake prints nothing (no stack) on stderr');
});

test('HTTP: the same request gets 400 with -32600 and its id; the server reports nothing', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const reply = await peer.send({
      method: 'POST',
      body: deepRequest(7, nested(5000)),
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    });
    const o = await peer.finish(reply);
    assert.equal(o.status, 400);
    assert.equal(o.messages[0]?.id, 7);
    assert.equal(o.messages[0]?.error?.code, -32600);
    assert.match(o.messages[0]?.error?.message, TOO_DEEP);
  } finally {
    await s.close(); // fails if the server reported anything to onError
  }
});

test('the limit is 64 levels below the message by default, and limits.maxJsonDepth moves it', async () => {
  // params(1) › _meta(2) › log level(3) › the nested arrays: 64 levels reached at 61 arrays.
  const answers = async (peer: StdioPeer, levels: number) => {
    const id = peer.id();
    const answer = peer.expectResponse(id, 'tools/list');
    peer.writeLine(deepRequest(id, nested(levels)));
    return (await answer).error;
  };
  const peer = new StdioPeer({ revision: MODERN });
  try {
    assert.equal((await answers(peer, 61))?.code, -32602, '64 levels: read, then refused as a log level');
    assert.equal((await answers(peer, 62))?.code, -32600, '65 levels: refused before it is read');
  } finally {
    await peer.close();
  }
  const server = createServer({ name: 'shallow', version: '1.0.0', limits: { maxJsonDepth: 4 } });
  server.tool('echo', () => 'ok');
  await withMemoryPeer(
    server,
    async (peer) => {
      // params(1) › arguments(2) › a(3) › b(4): at the limit; one more level is refused.
      const ok = await peer.modern('tools/call', { name: 'echo', arguments: { a: { b: 1 } } });
      assert.deepEqual(ok.result?.content, [{ type: 'text', text: 'ok' }]);
      const deep = await peer.modern('tools/call', { name: 'echo', arguments: { a: { b: { c: 1 } } } });
      assert.equal(deep.error?.code, -32600);
      assert.equal(deep.error.message, 'Invalid Request: JSON nested more than 4 levels deep');
    },
    { revision: MODERN },
  );
});

test('a deep notification is dropped; a deep answer to a server request fails that request at once rather than at its timeout', async () => {
  const server = createServer({ name: 'asks', version: '1.0.0', limits: { maxJsonDepth: 8 } });
  server.tool('roots', async (_a, ctx) => `roots: ${(await ctx.roots({ timeoutMs: 60_000 })).length}`);
  await withMemoryPeer(
    server,
    async (peer) => {
      peer.notify('notifications/roots/list_changed', { deep: [[[[[[[[[['x']]]]]]]]]] });
      const call = peer.request('tools/call', { name: 'roots', arguments: {} });
      const ask = await peer.next((m) => m.method === 'roots/list');
      peer.respond(ask.id, { roots: [], deep: [[[[[[[[[['x']]]]]]]]]] });
      const r = await call;
      assert.equal(r.error?.code, -32600, JSON.stringify(r));
    },
    { revision: '2025-11-25', handshake: { roots: {} } },
  );
});

test('a prompt whose messages JSON cannot carry (a cycle) is answered -32603 and reported, never left without an answer', async () => {
  const errors: unknown[] = [];
  const server = createServer({ name: 'cyclic', version: '1.0.0', onError: (e) => errors.push(e) });
  server.prompt('loop', () => {
    const content: Record<string, unknown> = { type: 'text', text: 'hi' };
    content.self = content;
    return [{ role: 'user', content: content as never }];
  });
  await withMemoryPeer(
    server,
    async (peer) => {
      for (const r of [await peer.request('prompts/get', { name: 'loop' }), await peer.modern('prompts/get', { name: 'loop' })]) {
        assert.deepEqual(r.error, { code: -32603, message: 'Internal error' }, JSON.stringify(r));
      }
    },
    { revision: '2025-11-25', handshake: {} },
  );
  assert.equal(errors.length, 2);
  assert.match(String(errors[0]), /prompt "loop" returned a value nested deeper than 256 levels \(or a cycle\)/);
});

test('a transport whose send throws on an answer still gets a -32603 for that request; the failure goes to onError', async () => {
  const errors: unknown[] = [];
  const server = createServer({ name: 'seam', version: '1.0.0', onError: (e) => errors.push(e) });
  const sent: Msg[] = [];
  let refuse = true;
  const inbound: Inbound = {
    transport: 'memory',
    send(message) {
      if (refuse && 'result' in message) {
        refuse = false;
        throw new Error('socket buffer full');
      }
      sent.push(message);
    },
  };
  await coreOf(server).handle({ jsonrpc: '2.0', id: 'a', method: 'server/discover', params: { _meta: modernMeta() } }, inbound);
  assert.deepEqual(sent, [{ jsonrpc: '2.0', id: 'a', error: { code: -32603, message: 'Internal error' } }]);
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /socket buffer full/);
  server.close();
});
