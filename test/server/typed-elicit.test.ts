/**
 * `ctx.elicit` with a Standard Schema as `requestedSchema`, in both eras (one
 * handler API): the schema goes on the wire as the flat JSON Schema that
 * client/elicitation.mdx §Requested Schema allows (checked before anything is asked),
 * accepted content is validated with the schema and handed over as its output (defaults
 * filled in), and content that does not match makes the call throw: uncaught, the tool
 * reports it as a tool error. Legacy sessions get a real `elicitation/create`; modern
 * requests an `input_required` round and a replay.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type } from 'arktype';
import { z } from 'zod';
import { createServer, type Server } from '../../src/server/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';

const PROFILE = z.object({
  name: z.string().min(1).describe('Your name'),
  age: z.number().int().min(0).optional(),
  color: z.enum(['red', 'blue']).default('red'),
  email: z.email().optional(),
  tags: z.array(z.enum(['a', 'b'])).optional(),
});

/** PROFILE as the wire carries it: flat, primitive, trimmed to the spec's keywords (no `pattern`, no `$schema`). */
const PROFILE_WIRE = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, description: 'Your name' },
    age: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
  },
  required: ['name'],
};

const MESSAGE = 'Tell me about you';

function typedServer(): Server {
  const server = createServer({ name: 'typed-elicit', version: '1.0.0' });
  server.tool('profile', async (_args, ctx) => {
    const answer = await ctx.elicit({ message: MESSAGE, requestedSchema: PROFILE }, { key: 'profile' });
    if (answer.action !== 'accept') return `no profile (${answer.action})`;
    const { name, age, color } = answer.content;
    return `${name}, ${age ?? '?'}, likes ${color}`;
  });
  server.tool('nested', async (_args, ctx) => {
    await ctx.elicit({ message: 'Where?', requestedSchema: z.object({ address: z.object({ street: z.string() }) }) });
    return 'asked';
  });
  server.tool('ark', async (_args, ctx) => {
    const answer = await ctx.elicit(
      { message: 'Pick', requestedSchema: type({ color: "'red' | 'blue'", 'count?': 'number.integer >= 1' }) },
      { key: 'pick' },
    );
    return answer.action === 'accept' ? `${answer.content.color} x${answer.content.count ?? 1}` : answer.action;
  });
  return server;
}

const ACCEPTED = { action: 'accept', content: { name: 'Ada', age: 36 } };
const INVALID = { action: 'accept', content: { name: '', age: -1 } };
const MISMATCH = new RegExp(`^the client's answer to "${MESSAGE}" does not match the requested schema: name: .*; age: `);

// ---- legacy: a real elicitation/create request on the session

const legacy = (fn: (peer: MemoryPeer) => Promise<void>) =>
  withMemoryPeer(typedServer(), fn, { revision: '2025-11-25', handshake: { elicitation: { form: {} } } });

/** Calls a tool, answers its elicitation/create with `answer`, and returns the request and the tool's response. */
async function legacyAnswer(peer: MemoryPeer, tool: string, answer: Msg): Promise<{ asked: Msg; response: Msg }> {
  const call = peer.request('tools/call', { name: tool, arguments: {} });
  const asked = await peer.next((m) => m.method === 'elicitation/create');
  peer.respond(asked.id, answer);
  return { asked, response: await call };
}

test('legacy: a Zod requestedSchema is sent as the flat form schema; accepted content comes back validated and typed (defaults filled in)', async () => {
  await legacy(async (peer) => {
    const { asked, response } = await legacyAnswer(peer, 'profile', ACCEPTED);
    assert.deepStrictEqual(asked.params, { mode: 'form', message: MESSAGE, requestedSchema: PROFILE_WIRE });
    assert.deepStrictEqual(response.result, { content: [{ type: 'text', text: 'Ada, 36, likes red' }] });
  });
});

test('legacy: accepted content that does not match the schema throws in the handler, reported as a tool error naming the fields', async () => {
  await legacy(async (peer) => {
    const { response } = await legacyAnswer(peer, 'profile', INVALID);
    assert.equal(response.result.isError, true, JSON.stringify(response));
    assert.match(response.result.content[0].text, MISMATCH);
  });
});

test('legacy: decline and cancel reach the handler as such, with no content to validate', async () => {
  await legacy(async (peer) => {
    for (const action of ['decline', 'cancel']) {
      const { response } = await legacyAnswer(peer, 'profile', { action });
      assert.equal(response.result.content[0].text, `no profile (${action})`);
    }
  });
});

test('legacy: a schema with a nested object is refused before anything is sent (client/elicitation.mdx §Requested Schema)', async () => {
  await legacy(async (peer) => {
    const r = await peer.request('tools/call', { name: 'nested', arguments: {} });
    assert.equal(r.result.isError, true, JSON.stringify(r));
    assert.match(
      r.result.content[0].text,
      /ctx\.elicit requestedSchema: field "address" must be a string, number, integer, boolean or enum/,
    );
    await peer.assertNone((m) => m.method === 'elicitation/create', 'elicitation/create with a nested schema');
  });
});

// ---- modern: input_required, then a replay with the answer

const modern = (fn: (peer: MemoryPeer) => Promise<void>) => withMemoryPeer(typedServer(), fn, { revision: MODERN });

const CAPS = { elicitation: {} };
const modernCall = (peer: MemoryPeer, tool: string, extra: Msg = {}) =>
  peer.modern('tools/call', { name: tool, arguments: {}, ...extra }, { caps: CAPS });

/** The first round's input_required result. */
async function firstRound(peer: MemoryPeer, tool: string): Promise<Msg> {
  const r = await modernCall(peer, tool);
  assert.equal(r.result?.resultType, 'input_required', JSON.stringify(r));
  return r.result;
}

test('modern: the flat form schema rides in inputRequests; the retry gets validated, typed content', async () => {
  await modern(async (peer) => {
    const round = await firstRound(peer, 'profile');
    assert.deepStrictEqual(round.inputRequests, {
      profile: { method: 'elicitation/create', params: { message: MESSAGE, requestedSchema: PROFILE_WIRE } },
    });
    const done = await modernCall(peer, 'profile', { requestState: round.requestState, inputResponses: { profile: ACCEPTED } });
    assert.equal(done.result.resultType, 'complete');
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'Ada, 36, likes red' }]);
  });
});

test('modern: content that does not match the schema is a tool error on the retry, naming the fields', async () => {
  await modern(async (peer) => {
    const round = await firstRound(peer, 'profile');
    const done = await modernCall(peer, 'profile', { requestState: round.requestState, inputResponses: { profile: INVALID } });
    assert.equal(done.result.isError, true, JSON.stringify(done));
    assert.match(done.result.content[0].text, MISMATCH);
  });
});

test('modern: a nested schema is refused before any input_required round', async () => {
  await modern(async (peer) => {
    const r = await modernCall(peer, 'nested');
    assert.equal(r.result.resultType, 'complete', JSON.stringify(r));
    assert.equal(r.result.isError, true);
    assert.match(r.result.content[0].text, /field "address" must be a string, number, integer, boolean or enum/);
  });
});

test('modern: an ArkType schema works the same (its enum gains "type": "string"; optional fields are not required)', async () => {
  await modern(async (peer) => {
    const round = await firstRound(peer, 'ark');
    assert.deepStrictEqual(round.inputRequests.pick.params.requestedSchema, {
      type: 'object',
      properties: { color: { type: 'string', enum: ['blue', 'red'] }, count: { type: 'integer', minimum: 1 } },
      required: ['color'],
    });
    const answer = { action: 'accept', content: { color: 'blue', count: 2 } };
    const done = await modernCall(peer, 'ark', { requestState: round.requestState, inputResponses: { pick: answer } });
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'blue x2' }]);
    // Each requestState is accepted once: the second answer goes to a round of its own.
    const again = await firstRound(peer, 'ark');
    const bad = await modernCall(peer, 'ark', {
      requestState: again.requestState,
      inputResponses: { pick: { action: 'accept', content: { color: 'green' } } },
    });
    assert.equal(bad.result.isError, true, JSON.stringify(bad));
    assert.match(bad.result.content[0].text, /does not match the requested schema: color/);
  });
});
