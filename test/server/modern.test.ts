/**
 * The stateless era (2026-07-28) over a message channel: the per-request `_meta` envelope
 * and its errors (basic/index.mdx §Per-request protocol fields, §Error Codes), removed
 * methods (changelog.mdx), request-scoped logging (server/utilities/logging.mdx),
 * cache hints (server/utilities/caching.mdx), statelessness of client capabilities
 * (basic/index.mdx §Statelessness) and -32602 for an unknown resource (server/resources.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UrlElicitationRequiredError } from '../../src/errors/index.js';
import { createServer, type Server, type ServerOptions } from '../../src/server/index.js';
import { META_CAPS, META_LOG, META_SERVER, META_VERSION, MODERN } from '../support/common.js';
import { CLIENT_INFO, type MemoryPeer, modernMeta, withMemoryPeer } from '../support/peer.js';
import { aborted, deferred } from '../support/wait.js';

const ICONS = [{ src: 'https://example.com/i.png' }];

function modernServer(options: Partial<ServerOptions> = {}): Server {
  const server = createServer({ name: 'modern', version: '2.0.0', ...options });
  server.tool(
    'full',
    {
      title: 'Full',
      description: 'every field',
      input: { type: 'object', properties: {} },
      output: { type: 'object' },
      annotations: { idempotentHint: true },
      icons: ICONS,
    },
    () => ({ ok: true }),
  );
  server.tool('logs', (_a, ctx) => {
    ctx.log('debug', 'debug line');
    ctx.log('warning', 'warning line');
    return 'logged';
  });
  server.tool('progress', (_a, ctx) => {
    ctx.progress(5, 10);
    return 'done';
  });
  server.tool('caps', (_a, ctx) => JSON.stringify(ctx.client.capabilities));
  server.resource('test://cached', { name: 'Cached', cache: { ttlMs: 5000, scope: 'public' } }, 'cached text');
  return server;
}

const withPeer = (fn: (peer: MemoryPeer, server: Server) => Promise<void>, server = modernServer()) =>
  withMemoryPeer(server, fn, { revision: MODERN });

const SERVER_META = { [META_SERVER]: { name: 'modern', version: '2.0.0' } };

test('missing _meta, protocolVersion or clientCapabilities is -32602 (basic/index.mdx §Per-request protocol fields)', async () => {
  await withPeer(async (peer) => {
    const cases: Array<Record<string, unknown> | undefined> = [
      undefined,
      {},
      { _meta: { [META_CAPS]: {} } },
      { _meta: { [META_VERSION]: MODERN } },
      { _meta: { [META_VERSION]: MODERN, [META_CAPS]: ['elicitation'] } },
    ];
    for (const params of cases) {
      const r = await peer.request('server/discover', params);
      assert.equal(r.error?.code, -32602, JSON.stringify(params));
    }
  });
});

test('a modern-only server answers a request without the envelope with -32602, and initialize with -32022 naming its versions', async () => {
  await withPeer(
    async (peer) => {
      assert.equal((await peer.request('tools/list')).error?.code, -32602);
      assert.equal((await peer.request('tools/list', { _meta: { [META_CAPS]: {} } })).error?.code, -32602);
      const init = await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO });
      assert.equal(init.error?.code, -32022);
      assert.deepStrictEqual(init.error.data, { supported: ['2026-07-28'], requested: '2025-11-25' });
    },
    modernServer({ eras: { legacy: false, modern: true } }),
  );
});

test('an unsupported protocol version is -32022 with data.supported and data.requested (basic/index.mdx §Error Codes)', async () => {
  await withPeer(async (peer) => {
    for (const method of ['server/discover', 'tools/list', 'tools/call']) {
      const r = await peer.modern(method, { name: 'logs' }, { meta: { [META_VERSION]: '2099-01-01' } });
      assert.equal(r.error?.code, -32022, method);
      assert.equal(r.error.data.requested, '2099-01-01');
      assert.ok(r.error.data.supported.includes(MODERN), JSON.stringify(r.error.data));
    }
  });
});

test('methods removed in 2026-07-28 are -32601: ping, logging/setLevel, resources/subscribe, resources/unsubscribe, initialize with a modern _meta (changelog.mdx)', async () => {
  await withPeer(async (peer, server) => {
    const removed: Array<[string, Record<string, unknown>]> = [
      ['ping', {}],
      ['logging/setLevel', { level: 'debug' }],
      ['resources/subscribe', { uri: 'test://cached' }],
      ['resources/unsubscribe', { uri: 'test://cached' }],
      ['initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: CLIENT_INFO }],
    ];
    for (const [method, params] of removed) {
      assert.equal((await peer.modern(method, params)).error?.code, -32601, method);
    }
    assert.equal(server.session(peer.connection.channel.id), undefined, 'no legacy session was opened');
    assert.equal(server.stats().sessions, 0);
  });
});

test('a method behind an undeclared server capability is -32601 (basic/index.mdx: MethodNotFoundError)', async () => {
  const server = createServer({ name: 'tools-only', version: '1.0.0' });
  server.tool('t', () => 'ok');
  await withPeer(async (peer) => {
    assert.equal((await peer.modern('prompts/list')).error?.code, -32601);
    assert.equal((await peer.modern('resources/read', { uri: 'x:y' })).error?.code, -32601);
  }, server);
});

test('notifications/message only for a request that set _meta logLevel, at or above it (2026-07-28 logging.mdx)', async () => {
  await withPeer(async (peer) => {
    await peer.modern('tools/call', { name: 'logs', arguments: {} });
    await peer.assertNone((m) => m.method === 'notifications/message', 'log without _meta logLevel');

    await peer.modern('tools/call', { name: 'logs', arguments: {} }, { meta: { [META_LOG]: 'info' } });
    assert.deepStrictEqual(
      peer.take((m) => m.method === 'notifications/message').map((m) => m.params),
      [{ level: 'warning', data: 'warning line' }],
    );

    await peer.modern('tools/call', { name: 'logs', arguments: {} }, { meta: { [META_LOG]: 'debug' } });
    assert.equal(peer.take((m) => m.method === 'notifications/message').length, 2);

    assert.equal(
      (await peer.modern('tools/call', { name: 'logs', arguments: {} }, { meta: { [META_LOG]: 'chatty' } })).error?.code,
      -32602,
    );
  });
});

test('progress goes out for a _meta progressToken and not without one (basic/patterns/progress.mdx)', async () => {
  await withPeer(async (peer) => {
    await peer.modern('tools/call', { name: 'progress', arguments: {} }, { meta: { progressToken: 7 } });
    assert.deepStrictEqual(
      peer.take((m) => m.method === 'notifications/progress').map((m) => m.params),
      [{ progressToken: 7, progress: 5, total: 10 }],
    );
    await peer.modern('tools/call', { name: 'progress', arguments: {} });
    await peer.assertNone((m) => m.method === 'notifications/progress', 'progress without a token');
    // A progress token is a string or an integer: a fractional one names nothing to report on.
    const r = await peer.modern('tools/call', { name: 'progress', arguments: {} }, { meta: { progressToken: 0.5 } });
    assert.ok(r.result, 'the call is answered');
    await peer.assertNone((m) => m.method === 'notifications/progress', 'progress for a token that is not string or integer');
  });
});

test('tools/list keeps every field and carries resultType, cache hints and serverInfo (caching.mdx: ttlMs/cacheScope required)', async () => {
  const server = modernServer({ cache: { 'tools/list': { ttlMs: 60_000, scope: 'public' } } });
  await withPeer(async (peer) => {
    const r = await peer.modern('tools/list');
    assert.deepStrictEqual(
      { ...r.result, tools: r.result.tools.slice(0, 1) },
      {
        tools: [
          {
            name: 'full',
            title: 'Full',
            description: 'every field',
            inputSchema: { type: 'object', properties: {} },
            outputSchema: { type: 'object' },
            annotations: { idempotentHint: true },
            icons: ICONS,
          },
        ],
        resultType: 'complete',
        ttlMs: 60_000,
        cacheScope: 'public',
        _meta: SERVER_META,
      },
    );
    for (const method of ['resources/list', 'resources/templates/list']) {
      const list = await peer.modern(method);
      assert.deepStrictEqual([list.result.ttlMs, list.result.cacheScope, list.result.resultType], [0, 'private', 'complete'], method);
    }
  }, server);
});

test("resources/read carries the resource's own cache hint; tools/call carries none (caching.mdx)", async () => {
  await withPeer(async (peer) => {
    const read = await peer.modern('resources/read', { uri: 'test://cached' });
    assert.deepStrictEqual(read.result, {
      contents: [{ uri: 'test://cached', text: 'cached text' }],
      ttlMs: 5000,
      cacheScope: 'public',
      resultType: 'complete',
      _meta: SERVER_META,
    });
    const call = await peer.modern('tools/call', { name: 'full', arguments: {} });
    assert.deepStrictEqual(call.result, {
      content: [{ type: 'text', text: '{"ok":true}' }],
      structuredContent: { ok: true },
      resultType: 'complete',
      _meta: SERVER_META,
    });
  });
});

test('resources/read of an unknown URI is -32602 with data.uri, never -32002 (2026-07-28 resources.mdx §Error Handling)', async () => {
  await withPeer(async (peer) => {
    const r = await peer.modern('resources/read', { uri: 'test://missing' });
    assert.equal(r.error?.code, -32602);
    assert.deepStrictEqual(r.error.data, { uri: 'test://missing' });
    assert.equal((await peer.modern('tools/call', { name: 'nope', arguments: {} })).error?.code, -32602);
  });
});

test("ctx.client is this request's capabilities: concurrent requests declaring different ones do not mix (basic/index.mdx §Statelessness)", async () => {
  await withPeer(async (peer) => {
    const [a, b, c] = await Promise.all([
      peer.modern('tools/call', { name: 'caps', arguments: {} }, { caps: { roots: {} } }),
      peer.modern('tools/call', { name: 'caps', arguments: {} }, { caps: { sampling: {} } }),
      peer.modern('tools/call', { name: 'caps', arguments: {} }),
    ]);
    assert.deepStrictEqual(
      [a, b, c].map((r) => JSON.parse(r!.result.content[0].text)),
      [{ roots: {} }, { sampling: {} }, {}],
    );
  });
});

test('on stdio-style channels notifications/cancelled aborts a modern request and no response is sent (2026-07-28 patterns/cancellation.mdx)', async () => {
  const server = modernServer();
  const started = deferred();
  const finished = deferred<unknown>();
  server.tool('wait', async (_a, ctx) => {
    started.resolve();
    finished.resolve(await aborted(ctx.signal));
    return 'late';
  });
  await withPeer(async (peer) => {
    const id = peer.id();
    peer.sendRaw({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: {}, _meta: modernMeta() } });
    await started.promise;
    peer.notify('notifications/cancelled', { requestId: id });
    await finished.promise;
    await peer.assertNone((m) => m.id === id, 'response to a cancelled request');
  }, server);
});

test('a legacy-only server does not serve server/discover', async () => {
  await withPeer(
    async (peer) => {
      peer.revision = '2025-11-25';
      const r = await peer.modern('server/discover');
      assert.ok(r.error, JSON.stringify(r));
    },
    modernServer({ eras: { modern: false } }),
  );
});

test('-32042 is never emitted on 2026-07-28, even when a handler throws UrlElicitationRequiredError (basic/index.mdx §Error Codes: MUST NOT emit)', async () => {
  const server = modernServer();
  server.tool('needs_url', () => {
    throw new UrlElicitationRequiredError([{ message: 'Authorize', url: 'https://example.com/auth', elicitationId: 'e-1' }]);
  });
  await withPeer(async (peer) => {
    const r = await peer.modern('tools/call', { name: 'needs_url', arguments: {} }, { caps: { elicitation: { url: {} } } });
    assert.notEqual(r.error?.code, -32042, JSON.stringify(r));
  }, server);
});
