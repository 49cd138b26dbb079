/**
 * `subscriptions/listen` (docs/2026-07-28/basic/patterns/subscriptions.mdx):
 * acknowledged first with the subset the server honours, the subscription id is the listen
 * request's id (type preserved), notifications go only to streams that asked for them, the
 * client ends a stream with notifications/cancelled (stdio), the server ends it gracefully
 * with `{resultType: "complete", _meta: {subscriptionId}}`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type Server } from '../../src/server/index.js';
import { META_SUB, MODERN, type Id, type Msg } from '../support/common.js';
import { MemoryPeer, modernMeta, withMemoryPeer } from '../support/peer.js';
import { StdioPeer } from '../support/stdio-peer.js';

function listenServer(): Server {
  const server = createServer({ name: 'listen', version: '1.0.0' });
  server.tool('t', () => 'ok');
  server.prompt('p', () => 'p');
  server.resource('test://watched', { name: 'Watched' }, 'w');
  return server;
}

const withPeer = (fn: (peer: MemoryPeer, server: Server) => Promise<void>, server = listenServer()) =>
  withMemoryPeer(server, fn, { revision: MODERN });

/** Opens a listen stream and returns its acknowledgement. */
async function listen(peer: MemoryPeer, id: Id, notifications: Record<string, unknown>): Promise<Msg> {
  peer.sendRaw({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications, _meta: modernMeta() } });
  return peer.next((m) => m.method === 'notifications/subscriptions/acknowledged' && m.params._meta[META_SUB] === id);
}

/** Every modern result names the server (basic/index.mdx §_meta: serverInfo SHOULD be on every result). */
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const EVERYTHING_INFO = { name: 'janus-everything', version: '0.1.0', title: 'Janus MCP everything fixture' };
const forSub = (id: Id, method?: string) => (m: Msg) => m.params?._meta?.[META_SUB] === id && (method === undefined || m.method === method);

test('the acknowledgement comes first, names the honoured subset, and its subscriptionId is the listen id with its type', async () => {
  await withPeer(async (peer) => {
    for (const id of [41, 'sub-a']) {
      const ack = await listen(peer, id, { toolsListChanged: true, resourceSubscriptions: ['test://watched'] });
      assert.deepStrictEqual(ack, {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['test://watched'] }, _meta: { [META_SUB]: id } },
      });
    }
  });
});

test('only what the server can deliver is honoured: no prompts or resources capability, no such subscriptions', async () => {
  const server = createServer({ name: 'tools-only', version: '1.0.0' });
  server.tool('t', () => 'ok');
  await withPeer(async (peer) => {
    const ack = await listen(peer, 1, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['test://x'],
    });
    assert.deepStrictEqual(ack.params.notifications, { toolsListChanged: true });
  }, server);
});

test('a list_changed goes only to the streams that asked for it, each with its own subscriptionId', async () => {
  await withPeer(async (peer, server) => {
    await listen(peer, 'tools', { toolsListChanged: true });
    await listen(peer, 'prompts', { promptsListChanged: true });
    await listen(peer, 'both', { toolsListChanged: true, promptsListChanged: true });

    server.tool('added', () => 'x');
    await peer.barrier();
    const toolNotes = peer.take((m) => m.method === 'notifications/tools/list_changed');
    assert.deepStrictEqual(toolNotes.map((m) => m.params._meta[META_SUB]).sort(), ['both', 'tools']);
    assert.deepStrictEqual(toolNotes[0], {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [META_SUB]: toolNotes[0]!.params._meta[META_SUB] } },
    });

    server.prompt('added', () => 'x');
    await peer.barrier();
    assert.deepStrictEqual(
      peer
        .take((m) => m.method === 'notifications/prompts/list_changed')
        .map((m) => m.params._meta[META_SUB])
        .sort(),
      ['both', 'prompts'],
    );
    await peer.assertNone(() => true, 'any other notification');
  });
});

test('notifications/resources/updated goes to streams subscribed to that URI only', async () => {
  await withPeer(async (peer, server) => {
    await listen(peer, 101, { resourceSubscriptions: ['test://watched'] });
    await listen(peer, 102, { resourcesListChanged: true });
    server.resourceUpdated('test://watched');
    server.resourceUpdated('test://other');
    assert.deepStrictEqual(await peer.next(forSub(101)), {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'test://watched', _meta: { [META_SUB]: 101 } },
    });
    await peer.assertNone((m) => m.method === 'notifications/resources/updated', 'update for another URI or stream');
  });
});

test('notifications/cancelled with the listen id ends the stream: nothing more for it, and no response (stdio.mdx, subscriptions.mdx)', async () => {
  await withPeer(async (peer, server) => {
    await listen(peer, 7, { toolsListChanged: true });
    await listen(peer, 8, { toolsListChanged: true });
    peer.notify('notifications/cancelled', { requestId: 7 });
    await peer.barrier();
    server.tool('added', () => 'x');
    await peer.next(forSub(8, 'notifications/tools/list_changed'));
    await peer.assertNone((m) => m.id === 7 || m.params?._meta?.[META_SUB] === 7, 'message for the cancelled subscription');
  });
});

test('server.close() ends each stream gracefully with {resultType: "complete", _meta: {subscriptionId}} (subscriptions.mdx §Graceful closure)', async () => {
  const server = listenServer();
  const peer = await MemoryPeer.connect(server, { revision: MODERN });
  try {
    await listen(peer, 'end-me', { toolsListChanged: true });
    await listen(peer, 9, { promptsListChanged: true });
    const closing = [peer.expectResponse('end-me', 'subscriptions/listen'), peer.expectResponse(9, 'subscriptions/listen')];
    server.close();
    assert.deepStrictEqual(await Promise.all(closing), [
      {
        jsonrpc: '2.0',
        id: 'end-me',
        result: { resultType: 'complete', _meta: { [META_SUB]: 'end-me', [SERVER_INFO]: { name: 'listen', version: '1.0.0' } } },
      },
      {
        jsonrpc: '2.0',
        id: 9,
        result: { resultType: 'complete', _meta: { [META_SUB]: 9, [SERVER_INFO]: { name: 'listen', version: '1.0.0' } } },
      },
    ]);
  } finally {
    await peer.close();
  }
});

test('subscriptions/listen without params.notifications is -32602', async () => {
  await withPeer(async (peer) => {
    assert.equal((await peer.modern('subscriptions/listen')).error?.code, -32602);
  });
});

test("stdio: a listen stream sees the fixture's tool-list change, and stdin EOF ends it with the graceful result", async () => {
  const peer = new StdioPeer({ revision: MODERN });
  try {
    peer.sendRaw({
      jsonrpc: '2.0',
      id: 'L',
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: modernMeta() },
    });
    const ack = await peer.next((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.deepStrictEqual(ack.params, { notifications: { toolsListChanged: true }, _meta: { [META_SUB]: 'L' } });
    const r = await peer.modern('tools/call', { name: 'test_trigger_tool_change', arguments: {} });
    assert.equal(r.result.content[0].text, 'Tool list changed');
    assert.deepStrictEqual(await peer.next(forSub('L', 'notifications/tools/list_changed')), {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [META_SUB]: 'L' } },
    });
    const ended = peer.expectResponse('L', 'subscriptions/listen');
    await peer.end();
    assert.deepStrictEqual(await ended, {
      jsonrpc: '2.0',
      id: 'L',
      result: { resultType: 'complete', _meta: { [META_SUB]: 'L', [SERVER_INFO]: EVERYTHING_INFO } },
    });
  } finally {
    await peer.close();
  }
});
