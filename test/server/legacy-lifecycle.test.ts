/**
 * Handshake-era lifecycle and JSON-RPC framing (docs/<rev>/basic/lifecycle.mdx, JSON-RPC 2.0,
 * batches as the 2025-03-26 changelog added them, removed in 2025-06-18): version negotiation,
 * the initialize → initialized gate, batches only on 2025-03-26, the standard error codes,
 * cancellation.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type Server } from '../../src/server/index.js';
import { LEGACY_REVISIONS, MODERN } from '../support/common.js';
import { CLIENT_INFO, MemoryPeer, handshake, modernMeta, withMemoryPeer } from '../support/peer.js';
import { aborted, deferred } from '../support/wait.js';
import { Session } from '../../src/server/legacy/index.js';

function toolServer(): Server {
  const server = createServer({ name: 'lifecycle', version: '1.0.0' });
  server.tool('echo', { input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) =>
    String(text),
  );
  return server;
}

const withPeer = (fn: (peer: MemoryPeer, server: Server) => Promise<void>, server = toolServer()) => withMemoryPeer(server, fn);

/** The handshake-era session on the peer's channel, if it has one. */
function sessionOn(peer: { connection: { channel: unknown } }): Session | undefined {
  const channel = peer.connection.channel;
  return channel instanceof Session ? channel : undefined;
}

test('version negotiation: each handshake revision is agreed as asked (lifecycle.mdx §Version Negotiation)', async () => {
  for (const v of LEGACY_REVISIONS) {
    await withPeer(async (peer) => {
      const r = await peer.request('initialize', { protocolVersion: v, capabilities: {}, clientInfo: CLIENT_INFO });
      assert.equal(r.result.protocolVersion, v);
    });
  }
});

test('version negotiation: an unknown version is answered with 2025-11-25, the latest handshake revision', async () => {
  await withPeer(async (peer) => {
    const r = await peer.request('initialize', { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: CLIENT_INFO });
    assert.equal(r.result.protocolVersion, '2025-11-25');
  });
});

test('version negotiation: 2026-07-28 asked through initialize gets 2025-11-25, never 2026-07-28 (the stateless era has no handshake)', async () => {
  await withPeer(async (peer) => {
    const r = await peer.request('initialize', { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: CLIENT_INFO });
    assert.equal(r.result.protocolVersion, '2025-11-25');
    assert.equal(r.result.resultType, undefined, 'a legacy result carries no resultType');
  });
});

test('initialize without a protocolVersion is -32602', async () => {
  await withPeer(async (peer) => {
    const r = await peer.request('initialize', { capabilities: {}, clientInfo: CLIENT_INFO });
    assert.equal(r.error?.code, -32602);
  });
});

test('before initialize, and before notifications/initialized, only initialize and ping are served (lifecycle.mdx §Initialization)', async () => {
  await withPeer(async (peer) => {
    const early = await peer.request('tools/list');
    assert.equal(early.error?.code, -32600, JSON.stringify(early));
    assert.deepStrictEqual((await peer.request('ping')).result, {});

    await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT_INFO });
    const between = await peer.request('tools/call', { name: 'echo', arguments: { text: 'x' } });
    assert.equal(between.error?.code, -32600, JSON.stringify(between));
    assert.deepStrictEqual((await peer.request('ping')).result, {});

    peer.notify('notifications/initialized');
    const after = await peer.request('tools/call', { name: 'echo', arguments: { text: 'x' } });
    assert.deepStrictEqual(after.result, { content: [{ type: 'text', text: 'x' }] });
  });
});

test('a second initialize on the same session is refused with -32600 and leaves the negotiated version alone', async () => {
  await withPeer(async (peer) => {
    await handshake(peer, '2025-03-26');
    const again = await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO });
    assert.equal(again.error?.code, -32600);
    assert.equal(sessionOn(peer)?.protocolVersion, '2025-03-26');
  });
});

test('batches are answered on 2025-03-26: one response per request, none for notifications (2025-03-26 changelog, JSON-RPC 2.0 §6)', async () => {
  await withPeer(async (peer) => {
    await handshake(peer, '2025-03-26');
    const [a, b, c] = [peer.id(), peer.id(), peer.id()];
    peer.sendRaw([
      { jsonrpc: '2.0', id: a, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: b, method: 'tools/call', params: { name: 'echo', arguments: { text: 'batched' } } },
      { jsonrpc: '2.0', id: c, method: 'no/such/method' },
    ]);
    const [ra, rb, rc] = await Promise.all([peer.expectResponse(a), peer.expectResponse(b), peer.expectResponse(c)]);
    assert.deepStrictEqual(ra, { jsonrpc: '2.0', id: a, result: {} });
    assert.deepStrictEqual(rb!.result, { content: [{ type: 'text', text: 'batched' }] });
    assert.equal(rc!.error?.code, -32601);
    await peer.barrier();
    assert.equal(peer.inbox.length, 0, 'nothing else was sent');
    // JSON-RPC 2.0 §6: the answers to a batch come back as one array.
    const frame = peer.received.find((v) => Array.isArray(v)) as Array<{ id?: unknown }> | undefined;
    assert.ok(frame, 'the batch was answered with one array');
    assert.deepStrictEqual(frame.map((m) => m.id).sort(), [a, b, c].sort());
  });
});

test('a batch is 2025-03-26 framing: a 2026-07-28 subscriptions/listen in one is an unknown method and holds back none of the other answers', async () => {
  await withPeer(async (peer) => {
    await handshake(peer, '2025-03-26');
    const [p, l] = [peer.id(), peer.id()];
    peer.sendRaw([
      { jsonrpc: '2.0', id: p, method: 'ping' },
      { jsonrpc: '2.0', id: l, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: modernMeta() } },
    ]);
    const [rp, rl] = await Promise.all([peer.expectResponse(p), peer.expectResponse(l)]);
    assert.deepStrictEqual(rp, { jsonrpc: '2.0', id: p, result: {} });
    assert.equal(rl!.error?.code, -32601);
    const frame = peer.received.find((v) => Array.isArray(v)) as Array<{ id?: unknown }> | undefined;
    assert.deepStrictEqual(frame?.map((m) => m.id).sort(), [p, l].sort(), 'one array holds both answers');
  });
});

test('batches are refused with one -32600 on every revision but 2025-03-26, and before initialize', async () => {
  for (const v of ['2024-11-05', '2025-06-18', '2025-11-25', undefined]) {
    await withPeer(async (peer) => {
      if (v) await handshake(peer, v);
      const id = peer.id();
      peer.sendRaw([{ jsonrpc: '2.0', id, method: 'ping' }]);
      const refusal = await peer.next((m) => 'error' in m);
      assert.equal(refusal.error.code, -32600, `batch on ${v ?? 'no session'}`);
      assert.equal(refusal.id, undefined);
      await peer.assertNone((m) => m.id === id, `answer to a request inside a refused batch (${v})`);
    });
  }
});

test('an empty batch and a batch containing initialize are -32600, even on 2025-03-26 (2025-03-26 lifecycle.mdx: initialize MUST NOT be batched)', async () => {
  await withPeer(async (peer) => {
    await handshake(peer, '2025-03-26');
    peer.sendRaw([]);
    assert.equal((await peer.next((m) => 'error' in m)).error.code, -32600);
    peer.sendRaw([
      {
        jsonrpc: '2.0',
        id: 'init-2',
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: CLIENT_INFO },
      },
    ]);
    assert.equal((await peer.next((m) => 'error' in m)).error.code, -32600);
  });
});

test('invalid envelopes are -32600, with the id when it could be read (JSON-RPC 2.0 §4, §5.1)', async () => {
  await withPeer(async (peer) => {
    await handshake(peer, '2025-11-25');
    const cases: Array<[unknown, number | undefined]> = [
      [{ jsonrpc: '1.0', id: 11, method: 'ping' }, 11],
      [{ jsonrpc: '2.0', id: 12, method: 42 }, 12],
      [{ jsonrpc: '2.0', id: 13, method: 'ping', params: [1, 2] }, 13],
      [{ jsonrpc: '2.0', id: 14 }, 14],
      [{ jsonrpc: '2.0', id: { nested: true }, method: 'ping' }, undefined],
      ['just a string', undefined],
    ];
    for (const [message, id] of cases) {
      peer.sendRaw(message);
      const error = await peer.next((m) => 'error' in m);
      assert.equal(error.error.code, -32600, JSON.stringify(message));
      assert.equal(error.id, id, JSON.stringify(message));
    }
  });
});

test('an unknown method is -32601; so is a method whose server capability is not declared', async () => {
  const server = createServer({ name: 'tools-only', version: '1.0.0' });
  server.tool('t', () => 'ok');
  await withPeer(async (peer) => {
    await handshake(peer, '2025-06-18');
    assert.equal((await peer.request('no/such/method')).error?.code, -32601);
    assert.equal((await peer.request('prompts/list')).error?.code, -32601, 'no prompts capability');
    assert.equal((await peer.request('resources/read', { uri: 'x:y' })).error?.code, -32601, 'no resources capability');
  }, server);
});

test('tools/call of an unknown tool is -32602 (server/tools.mdx §Error Handling)', async () => {
  await withPeer(async (peer) => {
    await handshake(peer, '2025-11-25');
    const r = await peer.request('tools/call', { name: 'nope', arguments: {} });
    assert.equal(r.error?.code, -32602);
  });
});

test("notifications/cancelled aborts the handler's ctx.signal and no response is sent (basic/utilities/cancellation.mdx)", async () => {
  const server = createServer({ name: 'cancel', version: '1.0.0' });
  const started = deferred();
  const finished = deferred<unknown>();
  server.tool('wait', async (_a, ctx) => {
    started.resolve();
    const reason = await aborted(ctx.signal);
    finished.resolve(reason);
    return 'too late';
  });
  await withPeer(async (peer) => {
    await handshake(peer, '2025-06-18');
    const id = peer.id();
    peer.sendRaw({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: {} } });
    await started.promise;
    peer.notify('notifications/cancelled', { requestId: id, reason: 'user gave up' });
    assert.ok(await finished.promise, 'the signal aborted with a reason');
    await peer.assertNone((m) => m.id === id, 'response to the cancelled request');
  }, server);
});

test('notifications/cancelled for an unknown or finished request is ignored', async () => {
  await withPeer(async (peer) => {
    await handshake(peer, '2025-11-25');
    const done = await peer.request('tools/call', { name: 'echo', arguments: { text: 'a' } });
    peer.notify('notifications/cancelled', { requestId: done.id });
    peer.notify('notifications/cancelled', { requestId: 'never-sent' });
    await peer.assertNone(() => true, 'reaction to a stray cancellation');
  });
});

test('a request carrying the modern _meta on a connection with a legacy session is served statelessly, the session untouched (versioning.mdx §Dual-era server)', async () => {
  await withMemoryPeer(
    toolServer(),
    async (peer) => {
      const r = await peer.request('tools/list', { _meta: modernMeta() });
      assert.equal(r.result.resultType, 'complete');
      assert.equal(sessionOn(peer)?.protocolVersion, undefined);
    },
    { revision: MODERN },
  );
});

test('server.close() ends the connections it serves: the transport closes and the closed session serves nothing more', async () => {
  const server = toolServer();
  const peer = await MemoryPeer.connect(server);
  try {
    await handshake(peer, '2025-11-25');
    server.close();
    assert.equal(sessionOn(peer)?.closed, true);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      peer.connection.closed.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 200))),
    ]);
    clearTimeout(timer);
    const late = ended ? undefined : await peer.request('tools/call', { name: 'echo', arguments: { text: 'after close' } });
    assert.equal(ended, true, `connection still open after server.close(); a tools/call got ${JSON.stringify(late)}`);
  } finally {
    await peer.close();
  }
});

test('a closed server refuses new connections with a JanusError', async () => {
  const server = toolServer();
  server.close();
  await assert.rejects(MemoryPeer.connect(server), (e: Error) => e.name === 'JanusError' && /closed/.test(e.message));
});
