/**
 * Exact stdio transcripts of the everything fixture, one session per revision, over a real
 * child process (docs/<rev>/basic/transports.mdx §stdio: newline-delimited JSON-RPC, nothing
 * but protocol on stdout). Every message the server writes is compared whole (ids included)
 * and checked against that revision's schema.json by the peer.
 *
 * Handshake era (docs/<rev>/basic/lifecycle.mdx): initialize → initialized → calls. The
 * initialize result carries only the fields the negotiated revision defines: `completions`
 * exists from 2025-03-26, `serverInfo.title` from 2025-06-18.
 * Stateless era (docs/2026-07-28/server/discover.mdx, basic/index.mdx §_meta, caching.mdx):
 * server/discover first; every result has resultType and serverInfo in `_meta`; discover and
 * resources/read carry ttlMs/cacheScope.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LEGACY_REVISIONS, META_SERVER, MODERN } from '../support/common.js';
import { CLIENT_INFO, modernMeta } from '../support/peer.js';
import { StdioPeer } from '../support/stdio-peer.js';
import { CLIENT_CAPS, INFO, INSTRUCTIONS, PROMPT, STATIC, TEXT, TITLE, serverCapabilities } from '../support/everything-fixture.js';
import { wireValidator } from '../support/wire-schema.js';

for (const v of LEGACY_REVISIONS) {
  test(`stdio transcript ${v}: initialize → initialized → tools/call → prompts/get → resources/read → ping (lifecycle.mdx)`, async () => {
    const peer = new StdioPeer({ revision: v });
    try {
      await peer.request('initialize', { protocolVersion: v, capabilities: CLIENT_CAPS[v], clientInfo: CLIENT_INFO });
      peer.notify('notifications/initialized');
      await peer.request('tools/call', { name: 'test_simple_text', arguments: {} });
      await peer.request('prompts/get', { name: 'test_simple_prompt' });
      await peer.request('resources/read', { uri: 'test://static-text' });
      await peer.request('ping');

      const serverInfo = v >= '2025-06-18' ? { ...INFO, title: TITLE } : INFO;
      assert.deepStrictEqual(peer.received, [
        {
          jsonrpc: '2.0',
          id: 1,
          result: { protocolVersion: v, capabilities: serverCapabilities(v), serverInfo, instructions: INSTRUCTIONS },
        },
        { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: TEXT }] } },
        { jsonrpc: '2.0', id: 3, result: { messages: [{ role: 'user', content: { type: 'text', text: PROMPT } }] } },
        { jsonrpc: '2.0', id: 4, result: { contents: [STATIC] } },
        { jsonrpc: '2.0', id: 5, result: {} },
      ]);
    } finally {
      await peer.close();
    }
  });
}

test('stdio transcript 2026-07-28: server/discover → tools/call → prompts/get → resources/read with the per-request _meta envelope', async () => {
  const peer = new StdioPeer({ revision: MODERN });
  try {
    const caps = { elicitation: { form: {} }, sampling: {} };
    await peer.modern('server/discover', {}, { caps });
    await peer.modern('tools/call', { name: 'test_simple_text', arguments: {} }, { caps });
    await peer.modern('prompts/get', { name: 'test_simple_prompt' }, { caps });
    await peer.modern('resources/read', { uri: 'test://static-text' }, { caps });

    const meta = { [META_SERVER]: { ...INFO, title: TITLE } };
    assert.deepStrictEqual(peer.received, [
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          resultType: 'complete',
          supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
          capabilities: serverCapabilities(MODERN),
          instructions: INSTRUCTIONS,
          ttlMs: 0,
          cacheScope: 'private',
          _meta: meta,
        },
      },
      { jsonrpc: '2.0', id: 2, result: { resultType: 'complete', content: [{ type: 'text', text: TEXT }], _meta: meta } },
      {
        jsonrpc: '2.0',
        id: 3,
        result: { resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: PROMPT } }], _meta: meta },
      },
      { jsonrpc: '2.0', id: 4, result: { resultType: 'complete', contents: [STATIC], ttlMs: 0, cacheScope: 'private', _meta: meta } },
    ]);
  } finally {
    await peer.close();
  }
});

test('stdio: a line that is not JSON gets -32700 with no id, and the session goes on (JSON-RPC 2.0 §5.1)', async () => {
  const peer = new StdioPeer({ revision: '2025-11-25' });
  try {
    await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO });
    peer.notify('notifications/initialized');
    peer.writeLine('{"jsonrpc":"2.0","id":99,"method":"ping"'); // truncated JSON
    const error = await peer.next((m) => 'error' in m);
    assert.deepStrictEqual(error, { jsonrpc: '2.0', error: { code: -32700, message: error.error.message } });
    assert.deepStrictEqual(await peer.request('ping'), { jsonrpc: '2.0', id: 2, result: {} });
  } finally {
    await peer.close();
  }
});

test('stdio: legacy elicitation round trip — test_elicitation sends elicitation/create, the answer reaches the result (2025-06-18 client/elicitation.mdx)', async () => {
  const peer = new StdioPeer({ revision: '2025-06-18' });
  try {
    await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: CLIENT_INFO });
    peer.notify('notifications/initialized');
    const call = peer.request('tools/call', { name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    const ask = await peer.next((m) => m.method === 'elicitation/create');
    assert.equal(ask.params.message, 'Who are you?');
    assert.equal(ask.params.mode, undefined, '2025-06-18 has no elicitation mode');
    assert.deepEqual(ask.params.requestedSchema.required, ['username', 'email']);
    peer.respond(ask.id, { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } });
    const r = await call;
    assert.deepStrictEqual(r.result, {
      content: [{ type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' }],
    });
  } finally {
    await peer.close();
  }
});

test('stdio: legacy sampling round trip — test_sampling sends sampling/createMessage and uses the answer (client/sampling.mdx)', async () => {
  const peer = new StdioPeer({ revision: '2025-03-26' });
  try {
    await peer.request('initialize', { protocolVersion: '2025-03-26', capabilities: { sampling: {} }, clientInfo: CLIENT_INFO });
    peer.notify('notifications/initialized');
    const call = peer.request('tools/call', { name: 'test_sampling', arguments: { prompt: 'Say hi' } });
    const ask = await peer.next((m) => m.method === 'sampling/createMessage');
    assert.deepStrictEqual(ask.params, { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 100 });
    peer.respond(ask.id, { role: 'assistant', content: { type: 'text', text: 'hi!' }, model: 'test-model' });
    assert.deepStrictEqual((await call).result, { content: [{ type: 'text', text: 'LLM response: hi!' }] });
  } finally {
    await peer.close();
  }
});

test('stdio: the server exits with code 0 once stdin closes (2026-07-28 transports/stdio.mdx §Lifecycle)', async () => {
  const peer = new StdioPeer({ revision: MODERN });
  await peer.request('server/discover', { _meta: modernMeta() });
  const exit = await peer.end();
  assert.deepStrictEqual(exit, { code: 0, signal: null });
  peer.assertClean();
});

test('stdio: once stdin closes no answer can arrive, so a pending elicitation/create fails at once, the call is answered and the server exits promptly (connect.ts contract; 2026-07-28 stdio.mdx §Lifecycle)', async () => {
  const peer = new StdioPeer({ revision: '2025-06-18', exitTimeoutMs: 2000 });
  try {
    await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: CLIENT_INFO });
    peer.notify('notifications/initialized');
    peer.sendRaw({
      jsonrpc: '2.0',
      id: 'call',
      method: 'tools/call',
      params: { name: 'test_elicitation', arguments: { message: 'Anyone?' } },
    });
    await peer.next((m) => m.method === 'elicitation/create');
    const started = Date.now();
    const exit = await peer.end();
    assert.deepStrictEqual(exit, { code: 0, signal: null }, `exit after ${Date.now() - started} ms`);
    assert.ok(
      peer.received.some((m) => (m as { id?: unknown }).id === 'call'),
      'the in-flight tools/call was answered before exit',
    );
  } finally {
    await peer.close();
  }
});

test('test peer: anything on stdout that is not a protocol message is a violation, and so is a schema-invalid message', async (_t) => {
  const lines = [
    'hello from the server',
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } },
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
  ].map((l) => JSON.stringify(typeof l === 'string' ? l : JSON.stringify(l)));
  const peer = new StdioPeer({ args: ['-e', lines.map((l) => `console.log(${l});`).join('')] });
  await peer.end();
  assert.equal(peer.violations.length, 2, peer.violations.join('\n'));
  assert.match(peer.violations[0]!, /nothing but protocol on stdout: non-JSON line "hello from the server"/);
  assert.match(peer.violations[1]!, /schema \[2025-11-25\].*progressToken/);
  assert.throws(() => peer.assertClean(), /broke the wire contract/);
});

test('the official wire schemas of all five revisions are loaded for these checks', () => {
  const v = wireValidator();
  for (const rev of [...LEGACY_REVISIONS, MODERN]) assert.ok(v.revisions.includes(rev), `${rev} in ${v.schemaDir}`);
});
