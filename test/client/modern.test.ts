/**
 * 2026-07-28 specifics of the client: the per-request `_meta` envelope (basic/index.mdx
 * §_meta), logging through `_meta` logLevel (server/utilities/logging.mdx), `resultType`
 * (basic/index.mdx §ResultType), the MRTR retry (basic/patterns/mrtr.mdx §Client retry),
 * subscriptions/listen (basic/patterns/subscriptions.mdx) and the response cache
 * (server/utilities/caching.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type ConnectOptions } from '../../src/client/index.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import { buildFixtureServer } from '../fixtures/client-server/server.js';
import { META_CAPS, META_CLIENT, META_LOG, META_VERSION, type Msg } from '../support/common.js';
import { askHandlers, inMemory, scripted, textOf } from './helpers.js';

const INFO = { name: 'modern-tester', version: '9.9.9' };
const h = askHandlers().options;

const CAPABILITY_CASES: Array<[string, ConnectOptions, Record<string, unknown>]> = [
  ['no handlers', {}, {}],
  ['onElicit only', { onElicit: h.onElicit }, { elicitation: { form: {}, url: {} } }],
  ['onSample only', { onSample: h.onSample }, { sampling: {} }],
  // 2026-07-28 roots capability has no listChanged (its schema.json: ClientCapabilities.roots has no properties).
  ['all three', h, { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }],
];

for (const [label, options, caps] of CAPABILITY_CASES) {
  test(`every modern request carries the _meta envelope: protocolVersion, clientInfo, and clientCapabilities of the handlers present (${label})`, async () => {
    const { client, wire, close } = await inMemory(buildFixtureServer(), { ...options, clientInfo: INFO });
    try {
      await client.listTools();
      await client.callTool('echo', { text: 'x' });
      await client.listPrompts();
      await client.getPrompt('greet', { name: 'A' });
      await client.listResources();
      await client.readResource('fixture://static');
      await client.listResourceTemplates();
      await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: '' });
      const requests = wire.sent().filter((m) => m.id !== undefined);
      assert.equal(requests.length, 9);
      for (const m of requests) {
        const meta = m.params?._meta;
        assert.equal(meta?.[META_VERSION], '2026-07-28', m.method);
        // tools/call also declares the tasks extension (ext-tasks §Capability Negotiation: per request, where a task may come back).
        const expected = m.method === 'tools/call' ? { ...caps, extensions: { 'io.modelcontextprotocol/tasks': {} } } : caps;
        assert.deepEqual(meta[META_CAPS], expected, m.method);
        assert.deepEqual(meta[META_CLIENT], INFO, m.method);
        assert.equal(META_LOG in meta, false, `${m.method}: logLevel without the option`);
      }
    } finally {
      await close();
    }
  });
}

test('logLevel option → _meta logLevel on every modern request; log notifications at or above it reach onNotification', async () => {
  const got: JsonRpcNotification[] = [];
  const { client, wire, close } = await inMemory(buildFixtureServer(), { logLevel: 'info', onNotification: (n) => got.push(n) });
  try {
    assert.equal(textOf(await client.callTool('log')), 'logged');
    for (const m of wire.sent()) assert.equal(m.params._meta[META_LOG], 'info', m.method);
    assert.deepEqual(
      got.filter((n) => n.method === 'notifications/message').map((n) => [n.params!.level, n.params!.data]),
      [
        ['info', 'info line'],
        ['error', 'error line'],
      ],
    );
    assert.equal(wire.sent('logging/setLevel').length, 0, 'logging/setLevel does not exist in 2026-07-28');
  } finally {
    await close();
  }
});

test('without logLevel the modern server sends no log notifications (logging.mdx: MUST NOT without _meta logLevel)', async () => {
  const got: JsonRpcNotification[] = [];
  const { client, close } = await inMemory(buildFixtureServer(), { onNotification: (n) => got.push(n) });
  try {
    await client.callTool('log');
    assert.deepEqual(
      got.filter((n) => n.method === 'notifications/message'),
      [],
    );
  } finally {
    await close();
  }
});

test('legacy: logLevel option → logging/setLevel after the handshake, and the session logs reach onNotification', async () => {
  const got: JsonRpcNotification[] = [];
  const { client, wire, close } = await inMemory(buildFixtureServer(), {
    protocolVersion: '2025-11-25',
    logLevel: 'error',
    onNotification: (n) => got.push(n),
  });
  try {
    assert.deepEqual(
      wire.sent().map((m) => m.method),
      ['initialize', 'notifications/initialized', 'logging/setLevel'],
    );
    assert.deepEqual(wire.sent('logging/setLevel')[0]!.params, { level: 'error' });
    await client.callTool('log');
    assert.deepEqual(
      got.filter((n) => n.method === 'notifications/message').map((n) => n.params!.data),
      ['error line'],
    );
  } finally {
    await close();
  }
});

/** A modern scripted server (the client is told `era: 'modern'`, so no probe). */
async function modernScripted(answer: Parameters<typeof scripted>[0], options: ConnectOptions = {}) {
  const s = scripted(answer);
  const client = await connect(s.transport, { era: 'modern', ...options });
  return { ...s, client };
}

test('a result without resultType counts as complete (basic/index.mdx §ResultType: legacy servers)', async () => {
  const { client } = await modernScripted(() => ({ content: [{ type: 'text', text: 'no resultType' }] }));
  try {
    assert.equal(textOf(await client.callTool('any')), 'no resultType');
  } finally {
    await client.close();
  }
});

for (const resultType of ['task', 'bogus', 42]) {
  test(`an unrecognized resultType (${JSON.stringify(resultType)}) is an error, not a result (basic/index.mdx §ResultType)`, async () => {
    const { client } = await modernScripted(() => ({ resultType, content: [{ type: 'text', text: 'x' }] }));
    try {
      await assert.rejects(client.callTool('any'), { name: 'JanusError', code: 'PROTOCOL' });
    } finally {
      await client.close();
    }
  });
}

test('input_required on a method that may not return it (tools/list) is an error (mrtr.mdx: only tools/call, prompts/get, resources/read)', async () => {
  const { client, wire } = await modernScripted(() => ({ resultType: 'input_required', requestState: 's' }));
  try {
    await assert.rejects(client.listTools(), { name: 'JanusError', code: 'PROTOCOL' });
    assert.equal(wire.sent('tools/list').length, 1, 'no retry');
  } finally {
    await client.close();
  }
});

// An opaque state with characters a careless re-encoding would change.
const STATE = 'eyJ2IjoxfQ==.c2ln/+_-= "quoted" \\ é ✓ \u2028 trailing  ';
const NAME_ASK = {
  method: 'elicitation/create',
  params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
};

test("MRTR retry: a new JSON-RPC id each round, the original params, this round's inputResponses only, requestState echoed byte for byte and omitted when none was given", async () => {
  const rounds: Msg[] = [];
  const h = askHandlers();
  const { client } = await modernScripted((msg) => {
    if (msg.method !== 'tools/call') return { error: { code: -32601, message: 'no' } };
    rounds.push(msg);
    if (rounds.length === 1) return { resultType: 'input_required', inputRequests: { q1: NAME_ASK }, requestState: STATE };
    if (rounds.length === 2) return { resultType: 'input_required', inputRequests: { q2: { method: 'roots/list', params: {} } } };
    return { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };
  }, h.options);
  try {
    assert.equal(textOf(await client.callTool('mrtr', { x: 1 })), 'done');
    assert.equal(rounds.length, 3);
    assert.equal(new Set(rounds.map((m) => m.id)).size, 3, 'each retry uses a new id');
    for (const m of rounds) {
      assert.equal(m.params.name, 'mrtr');
      assert.deepEqual(m.params.arguments, { x: 1 });
      assert.equal(m.params._meta[META_VERSION], '2026-07-28');
    }
    assert.equal('inputResponses' in rounds[0]!.params || 'requestState' in rounds[0]!.params, false);
    assert.deepEqual(rounds[1]!.params.inputResponses, { q1: { action: 'accept', content: { name: 'Ada' } } });
    assert.equal(rounds[1]!.params.requestState, STATE);
    assert.deepEqual(rounds[2]!.params.inputResponses, { q2: { roots: [{ uri: 'file:///work', name: 'work' }] } });
    assert.equal('requestState' in rounds[2]!.params, false, 'no requestState was given in round 2, so none is sent');
    assert.deepEqual(h.calls, { elicit: 1, sample: 0, roots: 1 });
    assert.deepEqual(h.seen.elicit, [NAME_ASK.params]);
  } finally {
    await client.close();
  }
});

test('MRTR: a requestState-only input_required (load shedding) is retried at once with the state and no inputResponses', async () => {
  const rounds: Msg[] = [];
  const h = askHandlers();
  const { client } = await modernScripted((msg) => {
    rounds.push(msg);
    return rounds.length === 1 ? { resultType: 'input_required', requestState: 'later' } : { resultType: 'complete', content: [] };
  }, h.options);
  try {
    await client.callTool('shed');
    assert.equal(rounds.length, 2);
    assert.equal(rounds[1]!.params.requestState, 'later');
    assert.equal('inputResponses' in rounds[1]!.params, false);
    assert.deepEqual(h.calls, { elicit: 0, sample: 0, roots: 0 });
  } finally {
    await client.close();
  }
});

for (const [method, call] of [
  ['prompts/get', (c: any) => c.getPrompt('p')],
  ['resources/read', (c: any) => c.readResource('x://y')],
] as const) {
  test(`MRTR also drives ${method} (mrtr.mdx: one of the three methods that may answer input_required)`, async () => {
    const rounds: Msg[] = [];
    const h = askHandlers();
    const { client } = await modernScripted((msg) => {
      rounds.push(msg);
      if (rounds.length === 1) return { resultType: 'input_required', inputRequests: { q: NAME_ASK } };
      return method === 'prompts/get' ? { resultType: 'complete', messages: [] } : { resultType: 'complete', contents: [] };
    }, h.options);
    try {
      await call(client);
      assert.deepEqual(
        rounds.map((m) => m.method),
        [method, method],
      );
      assert.deepEqual(rounds[1]!.params.inputResponses, { q: { action: 'accept', content: { name: 'Ada' } } });
    } finally {
      await client.close();
    }
  });
}

test('MRTR rounds are bounded by maxInputRounds: a server that never completes gets that many requests, then the call fails', async () => {
  let n = 0;
  const { client, wire } = await modernScripted(() => ({ resultType: 'input_required', requestState: `s${++n}` }), { maxInputRounds: 3 });
  try {
    await assert.rejects(client.callTool('forever'), { name: 'JanusError', code: 'PROTOCOL' });
    assert.equal(wire.sent('tools/call').length, 3);
  } finally {
    await client.close();
  }
});
