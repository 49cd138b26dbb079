/**
 * Handshake-era lists, notifications and resources: list_changed to initialized sessions
 * (server/{tools,prompts,resources}.mdx §List Changed Notification), resources/subscribe →
 * notifications/resources/updated (server/resources.mdx §Subscriptions), pagination
 * (server/utilities/pagination.mdx), completion (server/utilities/completion.mdx), resource
 * templates, and -32002 for an unknown resource (server/resources.mdx §Error Handling).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type Server, type ServerOptions } from '../../src/server/index.js';
import { MemoryPeer, withMemoryPeer } from '../support/peer.js';

function resourceServer(options: Partial<ServerOptions> = {}): Server {
  const server = createServer({ name: 'resources', version: '1.0.0', ...options });
  server.tool('t0', () => 'ok');
  server.prompt(
    'greeting',
    {
      arguments: [{ name: 'language', required: true }, { name: 'name' }],
      complete: {
        name: ({ value, arguments: args }) =>
          (args.language === 'fr' ? ['Amélie', 'Anatole'] : ['Alice', 'Bob']).filter((n) => n.startsWith(value)),
      },
    },
    ({ language, name }) => `${language}: hello ${name}`,
  );
  server.resource('test://a', { name: 'A', mimeType: 'text/plain' }, 'content of a');
  server.resourceTemplate(
    'test://items/{id}/data{?format}',
    {
      name: 'Item',
      mimeType: 'application/json',
      complete: { id: ({ value }) => ['17', '42', '420'].filter((v) => v.startsWith(value)) },
    },
    (uri, vars) => ({ uri, text: JSON.stringify(vars) }),
  );
  return server;
}

function session(version: string, fn: (peer: MemoryPeer, server: Server) => Promise<void>, server = resourceServer()): Promise<void> {
  return withMemoryPeer(server, fn, { revision: version, handshake: {} });
}

const listChanged = (kind: string) => (m: Record<string, any>) => m.method === `notifications/${kind}/list_changed`;

test('tools/list_changed goes to an initialized session when a tool is added, updated and removed', async () => {
  await session('2025-06-18', async (peer, server) => {
    const reg = server.tool('later', () => 'x');
    assert.deepStrictEqual(await peer.next(listChanged('tools')), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    reg.update({ description: 'now described' });
    await peer.next(listChanged('tools'));
    const listed = await peer.request('tools/list');
    assert.equal(listed.result.tools.find((t: { name: string }) => t.name === 'later').description, 'now described');
    reg.remove();
    await peer.next(listChanged('tools'));
    await peer.assertNone(listChanged('tools'), 'extra tools/list_changed');
  });
});

test('prompts/list_changed and resources/list_changed follow prompt, resource and template changes', async () => {
  await session('2024-11-05', async (peer, server) => {
    server.prompt('p2', () => 'p');
    await peer.next(listChanged('prompts'));
    server.resource('test://b', { name: 'B' }, 'b').remove();
    await peer.next(listChanged('resources'));
    await peer.next(listChanged('resources'));
    server.resourceTemplate('test://t/{x}', { name: 'T' }, () => 'x');
    await peer.next(listChanged('resources'));
    await peer.assertNone((m) => /list_changed$/.test(m.method ?? ''), 'extra list_changed');
  });
});

test('no list_changed reaches a session that has not sent notifications/initialized (lifecycle.mdx §Operation)', async () => {
  const server = resourceServer();
  const peer = await MemoryPeer.connect(server);
  try {
    await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    server.tool('later', () => 'x');
    await peer.assertNone(listChanged('tools'), 'list_changed before initialized');
  } finally {
    await peer.close();
    server.close();
  }
});

test('resources/subscribe → notifications/resources/updated on server.resourceUpdated(uri); none after unsubscribe or for other URIs', async () => {
  await session('2025-11-25', async (peer, server) => {
    assert.deepStrictEqual((await peer.request('resources/subscribe', { uri: 'test://a' })).result, {});
    server.resourceUpdated('test://a');
    server.resourceUpdated('test://elsewhere');
    assert.deepStrictEqual(await peer.next((m) => m.method === 'notifications/resources/updated'), {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'test://a' },
    });
    await peer.assertNone((m) => m.method === 'notifications/resources/updated', 'update for an unsubscribed URI');

    assert.deepStrictEqual((await peer.request('resources/unsubscribe', { uri: 'test://a' })).result, {});
    server.resourceUpdated('test://a');
    await peer.assertNone((m) => m.method === 'notifications/resources/updated', 'update after unsubscribe');
  });
});

test('pagination: pageSize pages with an opaque nextCursor until the last page; an invalid cursor is -32602 (pagination.mdx)', async () => {
  const server = resourceServer({ pageSize: 2 });
  for (let i = 1; i <= 4; i++) server.tool(`t${i}`, () => 'ok');
  await session(
    '2025-03-26',
    async (peer) => {
      const names: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const r = await peer.request('tools/list', cursor === undefined ? {} : { cursor });
        assert.equal(r.error, undefined, JSON.stringify(r));
        names.push(...r.result.tools.map((t: { name: string }) => t.name));
        assert.ok(r.result.tools.length <= 2);
        cursor = r.result.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 10);
      assert.deepStrictEqual(names, ['t0', 't1', 't2', 't3', 't4']);
      assert.equal(pages, 3);
      for (const bad of ['not-a-cursor', 'eyJvIjo5OTl9' /* {"o":999} */]) {
        assert.equal((await peer.request('tools/list', { cursor: bad })).error?.code, -32602, bad);
      }
    },
    server,
  );
});

test('completion/complete passes context.arguments to the completer (2025-06-18 completion.mdx §Context)', async () => {
  await session('2025-06-18', async (peer) => {
    const ask = (context?: Record<string, unknown>) =>
      peer.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greeting' },
        argument: { name: 'name', value: 'A' },
        ...(context ? { context } : {}),
      });
    assert.deepStrictEqual((await ask({ arguments: { language: 'fr' } })).result, {
      completion: { values: ['Amélie', 'Anatole'], total: 2, hasMore: false },
    });
    assert.deepStrictEqual((await ask()).result, { completion: { values: ['Alice'], total: 1, hasMore: false } });
    const template = await peer.request('completion/complete', {
      ref: { type: 'ref/resource', uri: 'test://items/{id}/data{?format}' },
      argument: { name: 'id', value: '4' },
    });
    assert.deepStrictEqual(template.result.completion.values, ['42', '420']);
    const unknown = await peer.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'nope' },
      argument: { name: 'x', value: '' },
    });
    assert.equal(unknown.error?.code, -32602);
  });
});

test('completion/complete is served on 2024-11-05, which has the method but no `completions` capability (schema/2024-11-05 ClientRequest)', async () => {
  await session('2024-11-05', async (peer) => {
    const r = await peer.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greeting' },
      argument: { name: 'name', value: 'B' },
    });
    assert.deepStrictEqual(r.result, { completion: { values: ['Bob'], total: 1, hasMore: false } }, JSON.stringify(r));
  });
});

test('resource templates: listed by resources/templates/list, and resources/read of a matching URI reads with its variables', async () => {
  await session('2025-11-25', async (peer) => {
    assert.deepStrictEqual((await peer.request('resources/templates/list')).result, {
      resourceTemplates: [{ uriTemplate: 'test://items/{id}/data{?format}', name: 'Item', mimeType: 'application/json' }],
    });
    const read = await peer.request('resources/read', { uri: 'test://items/42/data?format=short' });
    assert.deepStrictEqual(read.result, { contents: [{ uri: 'test://items/42/data?format=short', text: '{"id":"42","format":"short"}' }] });
    const plain = await peer.request('resources/read', { uri: 'test://items/a%20b/data' });
    assert.deepStrictEqual(JSON.parse(plain.result.contents[0].text), { id: 'a b' });
    assert.deepStrictEqual((await peer.request('resources/list')).result, {
      resources: [{ uri: 'test://a', name: 'A', mimeType: 'text/plain' }],
    });
  });
});

test('resources/read of an unknown URI is -32002 with data.uri on every handshake revision (resources.mdx §Error Handling)', async () => {
  for (const v of ['2024-11-05', '2025-11-25']) {
    await session(v, async (peer) => {
      for (const uri of ['test://missing', 'test://items/1/other']) {
        const r = await peer.request('resources/read', { uri });
        assert.equal(r.error?.code, -32002, `${v} ${uri}`);
        assert.deepStrictEqual(r.error.data, { uri });
      }
    });
  }
});
