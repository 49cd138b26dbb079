/**
 * MRTR `requestState` (2026-07-28 basic/patterns/mrtr.mdx §Server Requirements items 4-5,
 * §Security Considerations): accepted once (a one-time record in a `RequestStateStore`),
 * bound to the client it was issued to (the transport's authenticated principal, else the
 * declared clientInfo and capabilities), and sealed with AES-GCM so that the answers of earlier
 * rounds cannot be read from it. The everything fixture takes its secret from
 * JANUS_STATE_SECRET, else makes a random one: no secret is written in the code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { coreOf, InMemoryRequestStateStore, type Inbound, type RequestStateStore } from '../../src/spi/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import { McpError } from '../../src/errors/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { CLIENT_INFO, modernMeta, withMemoryPeer, type MemoryPeer } from '../support/peer.js';

const CAPS = { elicitation: {} };
const EMAIL = 'ada.lovelace@example.com';
const FORM = { type: 'object', properties: { value: { type: 'string' } } };
const answer = (value: string) => ({ action: 'accept', content: { value } });

function askingServer(options: Parameters<typeof createServer>[0]['requestState'] = {}): Server {
  const server = createServer({ name: 'asks', version: '1.0.0', requestState: options });
  server.tool('signup', async (_a, ctx) => {
    const email = await ctx.elicit({ message: 'Your e-mail?', requestedSchema: FORM }, { key: 'email' });
    const code = await ctx.elicit({ message: 'The code we sent?', requestedSchema: FORM }, { key: 'code' });
    return `${String(email.content?.value)} confirmed with ${String(code.content?.value)}`;
  });
  return server;
}

const signup = (peer: MemoryPeer, extra: Msg = {}, meta: Msg = {}) =>
  peer.modern('tools/call', { name: 'signup', arguments: {}, ...extra }, { caps: CAPS, meta });

/** Round 1 (asks the e-mail) and round 2 (asks the code, the e-mail inside the state). */
async function secondRound(peer: MemoryPeer): Promise<string> {
  const r1 = await signup(peer);
  const r2 = await signup(peer, { requestState: r1.result.requestState, inputResponses: { email: answer(EMAIL) } });
  assert.deepEqual(Object.keys(r2.result?.inputRequests ?? {}), ['code'], JSON.stringify(r2));
  return r2.result.requestState;
}

test('a requestState is accepted once: the same retry presented again is -32602 (mrtr.mdx: single use is enforced server-side)', async () => {
  await withMemoryPeer(
    askingServer(),
    async (peer) => {
      const state = await secondRound(peer);
      const done = await signup(peer, { requestState: state, inputResponses: { code: answer('1234') } });
      assert.deepEqual(done.result?.content, [{ type: 'text', text: `${EMAIL} confirmed with 1234` }]);
      const replay = await signup(peer, { requestState: state, inputResponses: { code: answer('1234') } });
      assert.equal(replay.error?.code, -32602, JSON.stringify(replay));
      assert.match(replay.error.message, /already used/);
    },
    { revision: MODERN },
  );
});

test('a requestState is bound to the client it was issued to: other clientInfo or capabilities are refused, and do not use it up', async () => {
  await withMemoryPeer(
    askingServer(),
    async (peer) => {
      const state = await secondRound(peer);
      const retry = { requestState: state, inputResponses: { code: answer('1234') } };
      const otherClient = await signup(peer, retry, { 'io.modelcontextprotocol/clientInfo': { name: 'mallory', version: '6.6.6' } });
      assert.equal(otherClient.error?.code, -32602);
      assert.match(otherClient.error.message, /issued to a different client/);
      const otherCaps = await peer.modern(
        'tools/call',
        { name: 'signup', arguments: {}, ...retry },
        { caps: { elicitation: {}, roots: {} } },
      );
      assert.match(otherCaps.error?.message, /issued to a different client/);
      const owner = await signup(peer, retry);
      assert.deepEqual(owner.result?.content, [{ type: 'text', text: `${EMAIL} confirmed with 1234` }], 'still good for its owner');
    },
    { revision: MODERN },
  );
});

test('with an authenticated principal (Inbound.principal) the state is bound to it: another principal is refused', async () => {
  const server = askingServer();
  const core = coreOf(server);
  const call = (principal: string, params: Msg) =>
    new Promise<Msg>((resolve) => {
      const inbound: Inbound = { transport: 'memory', principal, send: (m) => void ('id' in m && resolve(m)) };
      void core.handle(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'signup', arguments: {}, ...params, _meta: modernMeta(CAPS) } },
        inbound,
      );
    });
  const r1 = await call('alice', {});
  const retry = { requestState: r1.result.requestState, inputResponses: { email: answer(EMAIL) } };
  const bob = await call('bob', retry);
  assert.match(bob.error?.message, /issued to a different client/);
  const alice = await call('alice', retry);
  assert.equal(alice.result?.resultType, 'input_required', JSON.stringify(alice));
  server.close();
});

test('the state is sealed: the answers of earlier rounds cannot be read from it', async () => {
  await withMemoryPeer(
    askingServer(),
    async (peer) => {
      const state = await secondRound(peer);
      assert.match(state, /^v1\.[A-Za-z0-9_-]+$/);
      const bytes = Buffer.from(state.slice(3), 'base64url');
      // Words of five letters or more: a shorter one turns up in random ciphertext by chance
      // (/ada/i matched the base64 text about once in a hundred runs).
      for (const text of [bytes.toString('utf8'), bytes.toString('latin1'), state]) {
        assert.doesNotMatch(text, /lovelace|example\.com|email|signup/i);
      }
      assert.throws(() => JSON.parse(bytes.toString('utf8')));
    },
    { revision: MODERN },
  );
});

test('a pluggable store sees one claim per accepted retry, with the expiry; a store that says "used" refuses the state', async () => {
  const claims: Array<[string, number]> = [];
  let refuse = false;
  const store: RequestStateStore = {
    claim: async (id, expiresAt) => {
      claims.push([id, expiresAt]);
      return !refuse;
    },
  };
  const before = Date.now();
  await withMemoryPeer(
    askingServer({ store, ttlMs: 60_000 }),
    async (peer) => {
      await secondRound(peer);
      assert.equal(claims.length, 1);
      const [id, expiresAt] = claims[0]!;
      assert.match(id, /^[A-Za-z0-9_-]{22}$/);
      assert.ok(expiresAt >= before + 60_000 && expiresAt <= Date.now() + 60_000, 'expires ttlMs after it was issued');
      refuse = true;
      const r1 = await signup(peer);
      const r2 = await signup(peer, { requestState: r1.result.requestState, inputResponses: { email: answer(EMAIL) } });
      assert.match(r2.error?.message, /already used/);
    },
    { revision: MODERN },
  );
});

test('InMemoryRequestStateStore: one claim per id, records dropped once expired, full is a -32603 rather than forgetting one early', () => {
  let now = 1_000;
  const store = new InMemoryRequestStateStore({ maxEntries: 2, now: () => now });
  assert.equal(store.claim('a', 2_000), true);
  assert.equal(store.claim('a', 2_000), false);
  assert.equal(store.claim('b', 3_000), true);
  assert.throws(
    () => store.claim('c', 3_000),
    (e: unknown) => e instanceof McpError && e.code === -32603 && /retry later/.test(e.message),
  );
  now = 2_000; // 'a' expires
  assert.equal(store.claim('c', 4_000), true);
  assert.equal(store.size, 2);
  now = 5_000;
  assert.equal(store.claim('d', 6_000), true);
  assert.equal(store.size, 1, 'every expired record is gone');
});

test('the everything fixture has no fixed secret: a random key per process, or JANUS_STATE_SECRET when given ("new,old" rotates)', async () => {
  const roundOn = async (server: Server) => {
    let state = '';
    await withMemoryPeer(server, async (peer) => void (state = (await callFixture(peer)).result.requestState), { revision: MODERN });
    return state;
  };
  const retryOn = async (server: Server, state: string) => {
    let r: Msg = {};
    await withMemoryPeer(server, async (peer) => void (r = await callFixture(peer, { requestState: state })), { revision: MODERN });
    return r;
  };
  const saved = process.env.JANUS_STATE_SECRET;
  try {
    delete process.env.JANUS_STATE_SECRET;
    const stranger = await retryOn(createEverythingServer(), await roundOn(createEverythingServer()));
    assert.equal(stranger.error?.code, -32602, 'two fixtures without a secret do not share a key');
    process.env.JANUS_STATE_SECRET = 'old-secret';
    const state = await roundOn(createEverythingServer());
    process.env.JANUS_STATE_SECRET = 'new-secret,old-secret';
    const rotated = await retryOn(createEverythingServer(), state);
    assert.deepEqual(rotated.result?.content, [{ type: 'text', text: 'Hello, Ada!' }], JSON.stringify(rotated));
  } finally {
    if (saved === undefined) delete process.env.JANUS_STATE_SECRET;
    else process.env.JANUS_STATE_SECRET = saved;
  }
});

function callFixture(peer: MemoryPeer, extra: Msg = {}): Promise<Msg> {
  const inputResponses = extra.requestState ? { user_name: { action: 'accept', content: { name: 'Ada' } } } : undefined;
  return peer.modern(
    'tools/call',
    { name: 'test_input_required_result_elicitation', arguments: {}, ...extra, ...(inputResponses ? { inputResponses } : {}) },
    { caps: CAPS, meta: { 'io.modelcontextprotocol/clientInfo': CLIENT_INFO } },
  );
}

test('an empty secret fails createServer with a JanusError rather than sealing with a guessable key', () => {
  for (const secrets of [[''], [new Uint8Array(0)], ['good', '']]) {
    assert.throws(
      () => createServer({ name: 'x', version: '1', requestState: { secrets } }),
      (e: unknown) => e instanceof Error && e.name === 'JanusError' && /non-empty/.test(e.message),
    );
  }
});
