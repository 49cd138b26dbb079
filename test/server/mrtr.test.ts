/**
 * Multi round-trip requests (docs/2026-07-28/basic/patterns/mrtr.mdx): a
 * handler that asks the client ends the call with `input_required`; the retry (new id,
 * original params + inputResponses + the echoed requestState) replays it with the answers.
 * Earlier rounds' answers ride in the sealed requestState; a tampered, expired, replayed or foreign
 * state is refused with -32602; an undeclared capability is -32021 (basic/index.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { createServer, type Server } from '../../src/server/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';
import { delay } from '../support/wait.js';

const CAPS = { elicitation: {}, sampling: {}, roots: {} };
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const ADA = { action: 'accept', content: { name: 'Ada' } };

const withPeer = (fn: (peer: MemoryPeer) => Promise<void>, server: Server = createEverythingServer()) =>
  withMemoryPeer(server, fn, { revision: MODERN });

const callTool = (peer: MemoryPeer, name: string, extra: Record<string, unknown> = {}, caps: Record<string, unknown> = CAPS) =>
  peer.modern('tools/call', { name, arguments: {}, ...extra }, { caps });

function inputRequired(r: Msg): Msg {
  assert.equal(r.error, undefined, JSON.stringify(r));
  assert.equal(r.result.resultType, 'input_required', JSON.stringify(r.result));
  assert.equal(typeof r.result.requestState, 'string');
  return r.result;
}

test('first call → input_required with inputRequests keyed as the handler named them, plus a requestState', async () => {
  await withPeer(async (peer) => {
    const r = inputRequired(await callTool(peer, 'test_input_required_result_elicitation'));
    assert.deepStrictEqual(
      { ...r, requestState: '…' },
      {
        resultType: 'input_required',
        inputRequests: {
          user_name: { method: 'elicitation/create', params: { message: 'What is your name?', requestedSchema: NAME_SCHEMA } },
        },
        requestState: '…',
        _meta: {
          'io.modelcontextprotocol/serverInfo': { name: 'janus-everything', version: '0.1.0', title: 'Janus MCP everything fixture' },
        },
      },
    );
  });
});

test('retry with a new id, inputResponses and the echoed requestState → complete', async () => {
  await withPeer(async (peer) => {
    const first = await callTool(peer, 'test_input_required_result_elicitation');
    const { requestState } = inputRequired(first);
    const retry = await callTool(peer, 'test_input_required_result_elicitation', { inputResponses: { user_name: ADA }, requestState });
    assert.notEqual(retry.id, first.id);
    assert.equal(retry.result.resultType, 'complete');
    assert.deepStrictEqual(retry.result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
  });
});

test('multi-round: the second round asks only the new question, and the earlier answer comes back from requestState', async () => {
  await withPeer(async (peer) => {
    const tool = 'test_input_required_result_multi_round';
    const r1 = inputRequired(await callTool(peer, tool));
    assert.deepStrictEqual(Object.keys(r1.inputRequests), ['step1']);
    const r2 = inputRequired(await callTool(peer, tool, { inputResponses: { step1: ADA }, requestState: r1.requestState }));
    assert.deepStrictEqual(Object.keys(r2.inputRequests), ['step2']);
    assert.match(r2.inputRequests.step2.params.message, /Step 2/);
    // mrtr.mdx: the client sends only the last round's answers.
    const done = await callTool(peer, tool, {
      inputResponses: { step2: { action: 'accept', content: { color: 'blue' } } },
      requestState: r2.requestState,
    });
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'Ada likes blue' }]);
  });
});

test('a later round cannot overwrite an earlier answer: keys not asked in the last round are ignored', async () => {
  await withPeer(async (peer) => {
    const tool = 'test_input_required_result_multi_round';
    const r1 = inputRequired(await callTool(peer, tool));
    const r2 = inputRequired(await callTool(peer, tool, { inputResponses: { step1: ADA }, requestState: r1.requestState }));
    const done = await callTool(peer, tool, {
      inputResponses: { step1: { action: 'accept', content: { name: 'Mallory' } }, step2: { action: 'accept', content: { color: 'red' } } },
      requestState: r2.requestState,
    });
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'Ada likes red' }]);
  });
});

test('Promise.all of three asks is one round with three keys', async () => {
  await withPeer(async (peer) => {
    const tool = 'test_input_required_result_multiple_inputs';
    const r = inputRequired(await callTool(peer, tool));
    assert.deepStrictEqual(Object.fromEntries(Object.entries(r.inputRequests).map(([k, v]) => [k, (v as Msg).method])), {
      user_name: 'elicitation/create',
      greeting: 'sampling/createMessage',
      client_roots: 'roots/list',
    });
    const done = await callTool(peer, tool, {
      requestState: r.requestState,
      inputResponses: {
        user_name: ADA,
        greeting: { role: 'assistant', content: { type: 'text', text: 'Hi' }, model: 'm' },
        client_roots: { roots: [{ uri: 'file:///w', name: 'w' }] },
      },
    });
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'name=Ada, greeting=Hi, roots=1' }]);
  });
});

test('unknown inputResponses keys are ignored (mrtr.mdx: SHOULD ignore)', async () => {
  await withPeer(async (peer) => {
    const { requestState } = inputRequired(await callTool(peer, 'test_input_required_result_elicitation'));
    const done = await callTool(peer, 'test_input_required_result_elicitation', {
      requestState,
      inputResponses: { user_name: ADA, something_else: { action: 'decline' } },
    });
    assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
  });
});

test('a retry still missing an answer gets a new input_required, not an error (mrtr.mdx)', async () => {
  await withPeer(async (peer) => {
    const { requestState } = inputRequired(await callTool(peer, 'test_input_required_result_elicitation'));
    const again = inputRequired(await callTool(peer, 'test_input_required_result_elicitation', { requestState, inputResponses: {} }));
    assert.deepStrictEqual(Object.keys(again.inputRequests), ['user_name']);
  });
});

test('inputResponses: null (or an array) is a JSON-RPC error -32602', async () => {
  await withPeer(async (peer) => {
    const { requestState } = inputRequired(await callTool(peer, 'test_input_required_result_elicitation'));
    for (const inputResponses of [null, [ADA]]) {
      const r = await callTool(peer, 'test_input_required_result_elicitation', { requestState, inputResponses });
      assert.equal(r.error?.code, -32602, JSON.stringify(inputResponses));
    }
  });
});

test('a tampered requestState is refused with JSON-RPC error -32602 (mrtr.mdx §requestState integrity)', async () => {
  await withPeer(async (peer) => {
    const tool = 'test_input_required_result_tampered_state';
    const { requestState } = inputRequired(await callTool(peer, tool));
    const state = requestState as string;
    // The state is sealed (AES-GCM): any changed character, in the payload or in the tag, breaks it.
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const changed = [flip(state, state.length >> 1), flip(state, state.length - 2), state.slice(0, -4)];
    for (const bad of [...changed, 'not-a-state', `x${state}`, state.replace(/\./g, '')]) {
      const r = await callTool(peer, tool, { requestState: bad, inputResponses: { user_name: ADA } });
      assert.equal(r.error?.code, -32602, bad);
      assert.equal(r.result, undefined);
    }
  });
});

test('a requestState is bound to its request: another tool or other arguments are refused with -32602', async () => {
  await withPeer(async (peer) => {
    const { requestState } = inputRequired(await callTool(peer, 'test_input_required_result_elicitation'));
    const other = await callTool(peer, 'test_input_required_result_tampered_state', { requestState, inputResponses: { user_name: ADA } });
    assert.equal(other.error?.code, -32602);
    const otherArgs = await callTool(peer, 'test_input_required_result_elicitation', {
      arguments: { x: 1 },
      requestState,
      inputResponses: { user_name: ADA },
    });
    assert.equal(otherArgs.error?.code, -32602);
  });
});

test('an expired requestState is refused; a rotated key still verifies (request-state signing)', async () => {
  const mk = (secrets: string[], ttlMs?: number) => {
    const s = createServer({ name: 'ask', version: '1.0.0', requestState: { secrets, ...(ttlMs ? { ttlMs } : {}) } });
    s.tool('ask', async (_a, ctx) => `got ${String((await ctx.roots({ key: 'r' })).length)}`);
    return s;
  };
  const answer = { r: { roots: [] } };
  let state = '';
  await withPeer(async (peer) => void (state = inputRequired(await callTool(peer, 'ask')).requestState), mk(['old-key']));
  await withPeer(
    async (peer) => {
      const r = await callTool(peer, 'ask', { requestState: state, inputResponses: answer });
      assert.deepStrictEqual(r.result?.content, [{ type: 'text', text: 'got 0' }], JSON.stringify(r));
    },
    mk(['new-key', 'old-key']),
  );
  await withPeer(
    async (peer) => {
      const r = await callTool(peer, 'ask', { requestState: state, inputResponses: answer });
      assert.equal(r.error?.code, -32602, 'a server without the old key refuses it');
    },
    mk(['new-key']),
  );
  await withPeer(
    async (peer) => {
      const { requestState } = inputRequired(await callTool(peer, 'ask'));
      await delay(15); // past the 1 ms ttlMs
      assert.equal((await callTool(peer, 'ask', { requestState, inputResponses: answer })).error?.code, -32602);
    },
    mk(['k'], 1),
  );
});

test('an ask the request did not declare the capability for is -32021 with data.requiredCapabilities (basic/index.mdx)', async () => {
  await withPeer(async (peer) => {
    const r = await callTool(peer, 'test_missing_capability', {}, {});
    assert.equal(r.error?.code, -32021, JSON.stringify(r));
    assert.deepStrictEqual(r.error.data, { requiredCapabilities: { sampling: {} } });
    const e = await callTool(peer, 'test_input_required_result_elicitation', {}, { roots: {} });
    assert.equal(e.error?.code, -32021);
    assert.ok('elicitation' in e.error.data.requiredCapabilities, JSON.stringify(e.error.data));
  });
});

test('prompts/get and resources/read may answer input_required too; completion/complete never does (mrtr.mdx)', async () => {
  const server = createEverythingServer();
  server.resource('test://asks', { name: 'Asks' }, async (_uri, ctx) => `roots: ${(await ctx.roots({ key: 'roots' })).length}`);
  server.prompt(
    'asks_in_completion',
    { arguments: [{ name: 'x' }], complete: { x: async (_r, ctx) => [String((await ctx.roots()).length)] } },
    () => 'p',
  );
  await withPeer(async (peer) => {
    const p = inputRequired(await peer.modern('prompts/get', { name: 'test_input_required_result_prompt' }, { caps: CAPS }));
    assert.deepStrictEqual(Object.keys(p.inputRequests), ['user_context']);
    const prompt = await peer.modern(
      'prompts/get',
      {
        name: 'test_input_required_result_prompt',
        requestState: p.requestState,
        inputResponses: { user_context: { action: 'accept', content: { context: 'tests' } } },
      },
      { caps: CAPS },
    );
    assert.deepStrictEqual(prompt.result.messages, [{ role: 'user', content: { type: 'text', text: 'Use this context: tests' } }]);

    const r = inputRequired(await peer.modern('resources/read', { uri: 'test://asks' }, { caps: CAPS }));
    assert.equal(r.ttlMs, undefined, 'no cache hints on input_required (caching.mdx)');
    const read = await peer.modern(
      'resources/read',
      { uri: 'test://asks', requestState: r.requestState, inputResponses: { roots: { roots: [] } } },
      { caps: CAPS },
    );
    assert.deepStrictEqual(read.result.contents, [{ uri: 'test://asks', text: 'roots: 0' }]);

    const c = await peer.modern(
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'asks_in_completion' }, argument: { name: 'x', value: '' } },
      { caps: CAPS },
    );
    assert.ok(c.error, JSON.stringify(c));
    assert.notEqual(c.result?.resultType, 'input_required');
  }, server);
});
