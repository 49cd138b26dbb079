/**
 * `client.listen()` on 2026-07-28 (basic/patterns/subscriptions.mdx: the first message is
 * notifications/subscriptions/acknowledged, every notification carries the subscription
 * id = the listen request's id, a stdio client ends it with notifications/cancelled) and
 * the response cache (server/utilities/caching.mdx: fresh while now < received + ttlMs,
 * dropped by a relevant list_changed).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type Client } from '../../src/client/index.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import { buildFixtureServer } from '../fixtures/client-server/server.js';
import { META_SUB } from '../support/common.js';
import { until } from '../support/wait.js';
import { FIXTURE_STDIO, inMemory, spawnFixture, textOf, type Wire } from './helpers.js';

const CACHED = { cache: { 'tools/list': { ttlMs: 60_000, scope: 'public' as const } } };

const subscriptionOf = (n: JsonRpcNotification) => (n.params?._meta as Record<string, unknown> | undefined)?.[META_SUB];

/** Opens a tools list_changed stream and waits until the server acknowledged it. */
async function listening(client: Client, wire: Wire) {
  const stream = client.listen({ toolsListChanged: true });
  await until(() => wire.got('notifications/subscriptions/acknowledged').length === 1, 'the acknowledgement');
  return { stream, id: wire.sent('subscriptions/listen')[0]!.id };
}

test('listen({toolsListChanged}) yields list_changed (with the subscription id) after a server tool is added, and ends on return()', async () => {
  const seen: JsonRpcNotification[] = [];
  const { client, wire, server, close } = await inMemory(buildFixtureServer(), { onNotification: (n) => seen.push(n) });
  try {
    const { stream, id } = await listening(client, wire);
    server.tool('late', () => 'late');
    const first = await stream.next();
    assert.equal(first.done, false);
    assert.equal(first.value.method, 'notifications/tools/list_changed');
    assert.equal(subscriptionOf(first.value), id);
    // The acknowledgement is bookkeeping, not an item of the stream.
    assert.ok(!seen.some((n) => n.method === 'notifications/subscriptions/acknowledged'));

    assert.deepEqual(await stream.return!(), { done: true, value: undefined });
    assert.deepEqual(await stream.next(), { done: true, value: undefined });
    await until(
      () => wire.sent('notifications/cancelled').some((m) => m.params.requestId === id),
      'notifications/cancelled for the listen id',
    );
  } finally {
    await close();
  }
});

test('listen over a modern stdio child: a tool added through a tools/call reaches the stream', async () => {
  const { channel } = spawnFixture(FIXTURE_STDIO);
  const client = await connect(channel);
  try {
    assert.equal(client.era, 'modern');
    // The listen request is written before the tools/call, and the server handles stdio lines in order.
    const stream = client.listen({ toolsListChanged: true });
    assert.equal(textOf(await client.callTool('add_tool', { name: 'late0' })), 'added');
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no list_changed within 2 s')), 2000).unref());
    const first = await Promise.race([stream.next(), timeout]);
    assert.equal(first.value.method, 'notifications/tools/list_changed');
    assert.equal(typeof subscriptionOf(first.value), 'number');
    await stream.return!();
    assert.ok((await client.listAllTools()).some((t) => t.name === 'late0'));
  } finally {
    await client.close();
  }
});

test('cache: true serves a fresh tools/list from cache when the server gave ttlMs > 0, and a list_changed invalidates it', async () => {
  const { client, wire, server, close } = await inMemory(buildFixtureServer(CACHED), { cache: true });
  try {
    const a = await client.listTools();
    const b = await client.listTools();
    assert.deepEqual(b, a);
    assert.equal(wire.sent('tools/list').length, 1, 'the second list was served from cache');
    assert.equal(wire.got().find((m) => m.result?.tools)!.result.ttlMs, 60_000);

    const { stream } = await listening(client, wire);
    server.tool('late', () => 'late');
    assert.equal((await stream.next()).value.method, 'notifications/tools/list_changed');
    const c = await client.listTools();
    assert.equal(wire.sent('tools/list').length, 2, 'list_changed dropped the cached list');
    assert.ok(c.tools.some((t) => t.name === 'late'));
    await stream.return!();
  } finally {
    await close();
  }
});

test('cache: true does not cache a result whose ttlMs is 0 (the server default)', async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer(), { cache: true });
  try {
    await client.listTools();
    await client.listTools();
    assert.equal(wire.sent('tools/list').length, 2);
  } finally {
    await close();
  }
});

test('without cache: true every tools/list goes to the server, whatever its ttlMs', async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer(CACHED));
  try {
    await client.listTools();
    await client.listTools();
    assert.equal(wire.sent('tools/list').length, 2);
  } finally {
    await close();
  }
});

test('cache: a cached tools/call is never served: only the cacheable list/read methods are cached', async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer(CACHED), { cache: true });
  try {
    assert.equal(textOf(await client.callTool('echo', { text: '1' })), 'echo: 1');
    assert.equal(textOf(await client.callTool('echo', { text: '1' })), 'echo: 1');
    assert.equal(wire.sent('tools/call').length, 2);
  } finally {
    await close();
  }
});

test('cache: a cached resources/read is dropped by notifications/resources/updated for its URI', async () => {
  const { client, wire, server, close } = await inMemory(
    buildFixtureServer({ cache: { 'resources/read': { ttlMs: 60_000, scope: 'public' } } }),
    { cache: true },
  );
  try {
    await client.readResource('fixture://static');
    await client.readResource('fixture://static');
    await client.readResource('fixture://items/1');
    assert.equal(wire.sent('resources/read').length, 2);
    const stream = client.listen({ resourceSubscriptions: ['fixture://static'] });
    await until(() => wire.got('notifications/subscriptions/acknowledged').length === 1);
    server.resourceUpdated('fixture://static');
    const updated = (await stream.next()).value;
    assert.deepEqual([updated.method, updated.params?.uri], ['notifications/resources/updated', 'fixture://static']);
    await client.readResource('fixture://static');
    await client.readResource('fixture://items/1');
    assert.equal(wire.sent('resources/read').length, 3, 'only the updated URI was dropped');
    await stream.return!();
  } finally {
    await close();
  }
});

test('legacy: listen() is served by the session — list_changed notifications, and resources/subscribe … resources/unsubscribe around the stream', async () => {
  const { client, wire, server, close } = await inMemory(buildFixtureServer(), { protocolVersion: '2025-11-25' });
  try {
    const stream = client.listen({ toolsListChanged: true, resourceSubscriptions: ['fixture://static'] });
    await until(() => wire.got().some((m) => m.id === wire.sent('resources/subscribe')[0]?.id), 'resources/subscribe answered');
    assert.deepEqual(wire.sent('resources/subscribe')[0]!.params, { uri: 'fixture://static' });
    server.tool('late', () => 'late');
    assert.equal((await stream.next()).value.method, 'notifications/tools/list_changed');
    server.resourceUpdated('fixture://static');
    const updated = (await stream.next()).value;
    assert.deepEqual([updated.method, updated.params?.uri], ['notifications/resources/updated', 'fixture://static']);
    await stream.return!();
    await until(() => wire.sent('resources/unsubscribe').length === 1, 'resources/unsubscribe');
    assert.equal(wire.sent('subscriptions/listen').length, 0);
  } finally {
    await close();
  }
});
