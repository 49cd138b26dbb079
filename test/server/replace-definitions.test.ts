/**
 * `server.replaceDefinitionsFrom(source)`: a running server takes another server's tools,
 * prompts, resources and templates in place (the live reload of `janus-mcp dev`). Connected
 * clients keep their session or listen stream and hear `list_changed` only for lists whose
 * listing changed (docs/2025-11-25/server/tools.mdx §List Changed Notification,
 * docs/2026-07-28/basic/utilities/subscriptions.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type Server } from '../../src/server/index.js';
import { connectInMemory } from '../../src/testing/index.js';
import { until } from '../support/wait.js';
import { wireValidator } from '../support/wire-schema.js';

function firstVersion(): Server {
  const server = createServer({ name: 'live', version: '1.0.0' });
  server.tool('keep', { description: 'kept' }, () => 'keep v1');
  server.tool('drop', { description: 'dropped later' }, () => 'drop');
  server.prompt('hello', () => 'hello');
  server.resource('test://a', { name: 'a' }, 'a');
  return server;
}

function secondVersion(keep = 'keep v2'): Server {
  const server = createServer({ name: 'ignored', version: '9.9.9' });
  server.tool('keep', { description: 'kept' }, () => keep);
  server.tool('added', { description: 'new' }, () => 'added');
  server.prompt('hello', () => 'hello');
  server.resource('test://a', { name: 'a' }, 'a');
  return server;
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

test('legacy session: tools added, changed and removed in place; one tools list_changed, none for unchanged lists', async () => {
  const running = firstVersion();
  const { client, recorder, close } = await connectInMemory(running, { protocolVersion: '2025-11-25' });
  try {
    recorder.clear();
    running.replaceDefinitionsFrom(secondVersion());
    await until(() => recorder.fromServer('notifications/tools/list_changed').length === 1, 'tools/list_changed');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['keep', 'added'],
    );
    assert.equal(text(await client.callTool('keep')), 'keep v2', 'the changed handler answers');
    assert.equal(text(await client.callTool('added')), 'added');
    await assert.rejects(client.callTool('drop'), { code: -32602 }, 'a removed tool is unknown');
    assert.equal(recorder.fromServer('notifications/prompts/list_changed').length, 0, 'the prompt list did not change');
    assert.equal(recorder.fromServer('notifications/resources/list_changed').length, 0, 'the resource list did not change');
    assert.equal(client.serverInfo?.name, 'live', 'the running server keeps its own info');
    const schema = wireValidator();
    for (const m of recorder.fromServer('notifications/tools/list_changed')) schema.assertServerMessage('2025-11-25', m);
    assert.deepEqual(schema.checkDefinition('2025-11-25', 'ListToolsResult', await client.listTools()), []);
  } finally {
    await close();
    running.close();
  }
});

test('modern listen stream: stays open and gets tools list_changed; a handler-only change is swapped silently', async () => {
  const running = firstVersion();
  const { client, close } = await connectInMemory(running, { era: 'modern' });
  const stop = new AbortController();
  const heard: string[] = [];
  const listening = (async () => {
    for await (const n of client.listen({ toolsListChanged: true, promptsListChanged: true }, { signal: stop.signal }))
      heard.push(n.method);
  })();
  try {
    await until(() => running.stats().listenStreams === 1, 'the listen stream to open');
    running.replaceDefinitionsFrom(secondVersion());
    await until(() => heard.includes('notifications/tools/list_changed'), 'tools/list_changed on the listen stream');
    assert.equal(text(await client.callTool('keep')), 'keep v2');
    const before = heard.length;
    running.replaceDefinitionsFrom(secondVersion('keep v3'));
    assert.equal(text(await client.callTool('keep')), 'keep v3', 'the new handler answers');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['keep', 'added'],
    );
    // A change that is announced, after the silent swap: the stream carries it and nothing before it.
    running.replaceDefinitionsFrom(firstVersion());
    await until(() => heard.length > before, 'the next list_changed');
    assert.deepEqual(heard.slice(before), ['notifications/tools/list_changed'], 'the same listing was not announced');
    assert.ok(!heard.includes('notifications/prompts/list_changed'), 'the prompt list never changed');
  } finally {
    stop.abort();
    await listening;
    await close();
    running.close();
  }
});

test('a source that is not a Server is refused', () => {
  const running = firstVersion();
  assert.throws(() => running.replaceDefinitionsFrom({} as Server), TypeError);
  running.close();
});
