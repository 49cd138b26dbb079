/**
 * The proxy's own `input_required` rounds on the 2026-07-28 wire, driven by hand (a raw peer,
 * every server message checked against the schema): the `requestState` names the waiting
 * upstream call, is bound to its tool and accepted once (basic/patterns/mrtr.mdx §Server
 * Requirements); and what `hide` hides is neither listed nor reachable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createProxy } from '../../src/proxy/index.js';
import { createServer } from '../../src/server/index.js';
import { createMemoryPair } from '../../src/testing/index.js';
import { MemoryPeer, modernMeta } from '../support/peer.js';

async function legacyUpstreamProxy(hide?: Parameters<typeof createProxy>[1]) {
  const upstream = createServer({ name: 'raw-upstream', version: '1.0.0', eras: { legacy: true, modern: false } });
  let runs = 0;
  upstream.tool('ask_name', async (_args, ctx) => {
    runs++;
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    const roots = await ctx.roots();
    return `hello ${String(answer.action === 'accept' ? answer.content?.name : answer.action)} at ${roots[0]?.uri ?? '-'}`;
  });
  upstream.tool('add', () => 'added');
  upstream.prompt('secret_prompt', () => 'hidden');
  upstream.prompt('open_prompt', () => 'shown');
  upstream.resource('secret://key', { name: 'key' }, 'hidden');
  upstream.resource('open://doc', { name: 'doc' }, 'shown');
  const [clientSide, serverSide] = createMemoryPair();
  await upstream.connect(serverSide);
  const proxy = await createProxy(clientSide, hide);
  return { proxy, runs: () => runs };
}

const meta = () => modernMeta({ elicitation: { form: {} }, roots: {} });

test('proxy rounds: the requestState is bound to its tool, accepted once, and the upstream call runs once', async () => {
  const { proxy, runs } = await legacyUpstreamProxy();
  const peer = await MemoryPeer.connect(proxy.server, { revision: '2026-07-28' });
  try {
    const call = (params: Record<string, unknown>) => peer.request('tools/call', { ...params, _meta: meta() });
    const first = await call({ name: 'ask_name', arguments: {} });
    assert.equal(first.result.resultType, 'input_required');
    const [[askKey, ask]] = Object.entries(first.result.inputRequests) as Array<[string, { method: string; params: { message: string } }]>;
    assert.equal(ask.method, 'elicitation/create');
    assert.equal(ask.params.message, 'Your name?');
    const state = first.result.requestState as string;
    const answer = { [askKey!]: { action: 'accept', content: { name: 'Ada' } } };

    const otherTool = await call({ name: 'add', arguments: {}, requestState: state, inputResponses: answer });
    assert.equal(otherTool.error?.code, -32602);
    const otherArguments = await call({ name: 'ask_name', arguments: { extra: 1 }, requestState: state, inputResponses: answer });
    assert.equal(otherArguments.error?.code, -32602);
    const unknown = await call({ name: 'ask_name', arguments: {}, requestState: 'janus-proxy.nonsense', inputResponses: answer });
    assert.equal(unknown.error?.code, -32602);

    const second = await call({ name: 'ask_name', arguments: {}, requestState: state, inputResponses: answer });
    assert.equal(second.result.resultType, 'input_required');
    const [[rootsKey, rootsAsk]] = Object.entries(second.result.inputRequests) as Array<[string, { method: string }]>;
    assert.equal(rootsAsk.method, 'roots/list');

    const replayed = await call({ name: 'ask_name', arguments: {}, requestState: state, inputResponses: answer });
    assert.equal(replayed.error?.code, -32602, 'a state is accepted once');

    const done = await call({
      name: 'ask_name',
      arguments: {},
      requestState: second.result.requestState,
      inputResponses: { [rootsKey!]: { roots: [{ uri: 'file:///home' }] } },
    });
    assert.equal(done.result.resultType, 'complete');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'hello Ada at file:///home' }]);
    assert.equal(runs(), 1);
  } finally {
    await peer.close();
    await proxy.close();
  }
});

test('proxy rounds: an answer left out is asked again in the next round', async () => {
  const { proxy } = await legacyUpstreamProxy();
  const peer = await MemoryPeer.connect(proxy.server, { revision: '2026-07-28' });
  try {
    const call = (params: Record<string, unknown>) => peer.request('tools/call', { ...params, _meta: meta() });
    const first = await call({ name: 'ask_name', arguments: {} });
    const again = await call({ name: 'ask_name', arguments: {}, requestState: first.result.requestState, inputResponses: {} });
    assert.equal(again.result.resultType, 'input_required');
    assert.deepEqual(Object.keys(again.result.inputRequests), Object.keys(first.result.inputRequests));
  } finally {
    await peer.close();
    await proxy.close();
  }
});

test('proxy: hidden prompts and resources are neither listed nor read', async () => {
  const { proxy } = await legacyUpstreamProxy({
    hide: { prompts: (name) => name.startsWith('secret_'), resources: (uri) => uri.startsWith('secret://') },
  });
  const peer = await MemoryPeer.connect(proxy.server, { revision: '2026-07-28' });
  try {
    const prompts = await peer.request('prompts/list', { _meta: meta() });
    assert.deepEqual(
      prompts.result.prompts.map((p: { name: string }) => p.name),
      ['open_prompt'],
    );
    const resources = await peer.request('resources/list', { _meta: meta() });
    assert.deepEqual(
      resources.result.resources.map((r: { uri: string }) => r.uri),
      ['open://doc'],
    );
    assert.equal((await peer.request('prompts/get', { name: 'secret_prompt', _meta: meta() })).error?.code, -32602);
    assert.equal((await peer.request('resources/read', { uri: 'secret://key', _meta: meta() })).error?.code, -32602);
    const open = await peer.request('resources/read', { uri: 'open://doc', _meta: meta() });
    assert.equal(open.result.contents[0].text, 'shown');
  } finally {
    await peer.close();
    await proxy.close();
  }
});
