/**
 * The client answering the server: legacy server-to-client requests (ping, and
 * elicitation/sampling/roots through onElicit/onSample/onRoots; docs/<rev>/client/*.mdx),
 * -32601 for what it has no handler for, handler errors as JSON-RPC errors, the
 * HandlerContext (era, version, a signal that aborts when the asking request is cancelled:
 * docs/<rev>/basic/utilities/cancellation.mdx, either side may cancel), and
 * notifications/roots/list_changed (legacy only; removed in 2026-07-28).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type ConnectOptions, type HandlerContext } from '../../src/client/index.js';
import { McpError } from '../../src/errors/index.js';
import { buildFixtureServer } from '../fixtures/client-server/server.js';
import type { Msg } from '../support/common.js';
import { deferred, delay, until } from '../support/wait.js';
import { initializeResult, inMemory, scripted, textOf, type Wire } from './helpers.js';

const ELICIT = { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };

/**
 * A legacy (2025-11-25) scripted server whose tools/call first sends `ask` to the client
 * (id "srv-1"), runs `during`, and answers the call with the client's response as JSON (null
 * for none). For an ask that must get no answer, `unanswered` resolves once the client is done
 * with it; a ping sent then and answered shows that no answer to srv-1 is on its way.
 */
async function legacyAsking(
  ask: Msg,
  options: ConnectOptions,
  during: (push: (m: Msg) => void) => void = () => {},
  unanswered?: Promise<void>,
) {
  let push!: (m: Msg) => void;
  const answerTo = (w: Wire, id: string) => w.sent().find((m) => m.id === id && m.method === undefined);
  const s = scripted(async (msg, w) => {
    if (msg.method === 'initialize') return initializeResult(msg);
    if (msg.method !== 'tools/call') return { error: { code: -32601, message: 'no' } };
    push({ jsonrpc: '2.0', id: 'srv-1', ...ask });
    during(push);
    if (unanswered) {
      await unanswered;
      push({ jsonrpc: '2.0', id: 'srv-2', method: 'ping' });
    }
    const end = performance.now() + 2000;
    while (!answerTo(w, unanswered ? 'srv-2' : 'srv-1') && performance.now() < end) await delay(5);
    return { content: [{ type: 'text', text: JSON.stringify(answerTo(w, 'srv-1') ?? null) }] };
  });
  push = s.push;
  const client = await connect(s.transport, { protocolVersion: '2025-11-25', ...options });
  return { client, wire: s.wire };
}

test('legacy: a server ping is answered with an empty result, with no handlers at all', async () => {
  const { client } = await legacyAsking({ method: 'ping' }, {});
  try {
    assert.deepEqual(JSON.parse(textOf(await client.callTool('x'))), { jsonrpc: '2.0', id: 'srv-1', result: {} });
  } finally {
    await client.close();
  }
});

for (const [method, params] of [
  ['elicitation/create', ELICIT],
  ['sampling/createMessage', { messages: [], maxTokens: 1 }],
  ['roots/list', {}],
] as const) {
  test(`legacy: ${method} without its handler → -32601, and the capability was never declared`, async () => {
    const { client, wire } = await legacyAsking({ method, params }, {});
    try {
      const answer = JSON.parse(textOf(await client.callTool('x')));
      assert.equal(answer.error.code, -32601);
      assert.deepEqual(wire.sent('initialize')[0]!.params.capabilities, {});
    } finally {
      await client.close();
    }
  });
}

test('legacy: a handler that throws McpError answers with its code; any other throw is -32603', async () => {
  const bad = await legacyAsking(
    { method: 'elicitation/create', params: ELICIT },
    {
      onElicit: () => {
        throw new McpError(-32602, 'bad schema');
      },
    },
  );
  const boom = await legacyAsking(
    { method: 'roots/list', params: {} },
    {
      onRoots: () => {
        throw new Error('boom');
      },
    },
  );
  try {
    assert.deepEqual(JSON.parse(textOf(await bad.client.callTool('x'))).error, { code: -32602, message: 'bad schema' });
    const e = JSON.parse(textOf(await boom.client.callTool('x'))).error;
    assert.equal(e.code, -32603);
    assert.match(e.message, /boom/);
  } finally {
    await bad.client.close();
    await boom.client.close();
  }
});

test('HandlerContext tells the era and version of the exchange that asked (legacy session and modern round)', async () => {
  const seen: Array<[string, string]> = [];
  const onElicit = (_p: unknown, ctx: HandlerContext) => (seen.push([ctx.era, ctx.protocolVersion]), { action: 'decline' as const });
  for (const protocolVersion of ['2025-06-18', '2026-07-28'] as const) {
    const { client, close } = await inMemory(buildFixtureServer(), { protocolVersion, onElicit });
    try {
      await client.callTool('ask', { elicit: true });
    } finally {
      await close();
    }
  }
  assert.deepEqual(seen, [
    ['legacy', '2025-06-18'],
    ['modern', '2026-07-28'],
  ]);
});

test('legacy: notifications/cancelled from the server for its elicitation/create aborts the onElicit ctx.signal, and no answer is sent', async () => {
  let aborted = false;
  const started = deferred();
  const returned = deferred();
  const onElicit = async (_p: unknown, ctx: HandlerContext) => {
    started.resolve();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), (aborted = true), resolve()), { once: true });
    });
    returned.resolve();
    return { action: 'cancel' as const };
  };
  const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'srv-1', reason: 'user left' } };
  const during = (push: (m: Msg) => void) => void started.promise.then(() => push(cancel));
  const { client, wire } = await legacyAsking({ method: 'elicitation/create', params: ELICIT }, { onElicit }, during, returned.promise);
  try {
    await client.callTool('x');
    assert.equal(aborted, true, 'ctx.signal did not abort when the server cancelled its request');
    // cancellation.mdx: the receiver SHOULD NOT send a response for a cancelled request.
    assert.equal(wire.sent().filter((m) => m.id === 'srv-1').length, 0);
    assert.equal(wire.sent().filter((m) => m.id === 'srv-2').length, 1, 'the barrier ping was answered');
  } finally {
    await client.close();
  }
});

test('modern: aborting the call aborts the ctx.signal of the handler answering its input_required round', async () => {
  let handlerSignal: AbortSignal | undefined;
  const { client, close } = await inMemory(buildFixtureServer(), {
    protocolVersion: '2026-07-28',
    onElicit: (_p, ctx) =>
      new Promise((resolve) => {
        handlerSignal = ctx.signal;
        ctx.signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true });
      }),
  });
  try {
    const ac = new AbortController();
    const call = client.callTool('ask', { elicit: true }, { signal: ac.signal });
    await until(() => handlerSignal !== undefined);
    ac.abort();
    await assert.rejects(call);
    assert.equal(handlerSignal!.aborted, true);
  } finally {
    await close();
  }
});

test('rootsChanged(): legacy sends notifications/roots/list_changed; 2026-07-28 removed it, so nothing is sent', async () => {
  for (const protocolVersion of ['2025-03-26', '2026-07-28'] as const) {
    const { client, wire, close } = await inMemory(buildFixtureServer(), { protocolVersion, onRoots: () => [] });
    try {
      await client.rootsChanged();
      await client.listTools();
      assert.equal(wire.sent('notifications/roots/list_changed').length, protocolVersion === '2026-07-28' ? 0 : 1);
      if (protocolVersion !== '2026-07-28')
        assert.deepEqual(wire.sent('initialize')[0]!.params.capabilities, { roots: { listChanged: true } });
    } finally {
      await close();
    }
  }
});
