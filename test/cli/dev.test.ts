/**
 * `janus-mcp dev FILE --http 127.0.0.1:0`: a change of FILE swaps the running server's tools
 * in place (`server.replaceDefinitionsFrom`). Clients stay connected: a 2025-11-25 client keeps
 * its session and hears `notifications/tools/list_changed` (server/tools.mdx §List Changed
 * Notification), a 2026-07-28 client keeps its one `subscriptions/listen` stream and hears it
 * there (basic/utilities/subscriptions.mdx); over stdio the session of the client that started it
 * hears it too. A module that fails to load keeps the old tools.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect, type Client } from '../../src/client/index.js';
import { until } from '../support/wait.js';
import { CLI_MAIN, SERVER_ENTRY, scratch, startCli } from './support.js';

/** A module with tools name → text, and `poke`, which adds and removes a prompt (so a test sees its listen stream is open; `base` declares `prompts`). */
function writeModule(file: string, tools: Record<string, string>): void {
  const lines = [
    `import { createServer } from ${JSON.stringify(SERVER_ENTRY)};`,
    "const server = createServer({ name: 'dev-fixture', version: '1.0.0' });",
    "server.prompt('base', () => 'x');",
    'let pokes = 0;',
    "server.tool('poke', () => { server.prompt(`p${++pokes}`, () => 'x').remove(); return 'poked'; });",
    ...Object.entries(tools).map(([name, text]) => `server.tool(${JSON.stringify(name)}, () => ${JSON.stringify(text)});`),
    'export default server;',
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
const text = async (client: Client, tool: string) => ((await client.callTool(tool)).content[0] as { text: string }).text;

test('dev: a tool added, one changed and one removed reach connected clients of both eras, who stay connected', async () => {
  const file = join(scratch(), 'server.mjs');
  writeModule(file, { a: 'a v1', b: 'b' });
  const running = startCli(['dev', file, '--http', '127.0.0.1:0']);
  const stop = new AbortController();
  let legacy: Client | undefined;
  let modern: Client | undefined;
  let listening: Promise<void> | undefined;
  try {
    const url = await running.url();
    // The legacy client: its session ids (one expected) and the notifications it hears.
    const sessions = new Set<string | undefined>();
    const legacyHeard: string[] = [];
    legacy = await connect(url, { protocolVersion: '2025-11-25', onNotification: (n) => void legacyHeard.push(n.method) });
    legacy.use((ctx, next) => {
      sessions.add(ctx.sessionId);
      return next();
    });
    // The modern client: how many listen requests it sends (one expected) and what the stream carries.
    modern = await connect(url, { protocolVersion: '2026-07-28' });
    let listenRequests = 0;
    modern.use('subscriptions/listen', (_ctx, next) => {
      listenRequests++;
      return next();
    });
    const streamed: string[] = [];
    const stream = modern;
    listening = (async () => {
      for await (const n of stream.listen({ toolsListChanged: true, promptsListChanged: true }, { signal: stop.signal }))
        streamed.push(n.method);
    })();
    // The stream is open once a change made now reaches it.
    await until(async () => {
      await text(stream, 'poke');
      return streamed.includes('notifications/prompts/list_changed');
    }, 'the listen stream to carry a change');
    assert.deepEqual(await names(legacy), ['a', 'b', 'poke']);
    assert.equal(await text(legacy, 'a'), 'a v1');

    writeModule(file, { a: 'a v2', added: 'new' });
    const client = legacy;
    await until(async () => (await names(client)).includes('added'), 'the reload', 20_000);
    assert.deepEqual(await names(legacy), ['a', 'added', 'poke']);
    assert.equal(await text(legacy, 'a'), 'a v2');
    assert.equal(await text(modern, 'added'), 'new');
    await assert.rejects(legacy.callTool('b'), /Unknown tool: b/);
    await until(() => legacyHeard.includes('notifications/tools/list_changed'), 'tools/list_changed on the legacy session');
    await until(() => streamed.includes('notifications/tools/list_changed'), 'tools/list_changed on the listen stream');
    assert.equal(sessions.size, 1, 'the legacy session was kept');
    assert.equal(listenRequests, 1, 'the listen stream was kept (not reopened)');
    assert.match(running.stderr(), /reloaded .*server\.mjs/);

    // A module that fails to load: reported, and the tools stay.
    writeFileSync(file, 'export default ;\n');
    await until(() => /reloading .*server\.mjs failed, the previous definitions stay/.test(running.stderr()), 'the failed reload', 20_000);
    assert.equal(await text(modern, 'a'), 'a v2');
  } finally {
    stop.abort();
    await listening;
    await legacy?.close();
    await modern?.close();
    assert.equal(await running.stop(), 0, running.stderr());
  }
});

test('dev over stdio: a client that started it as its command gets list_changed and the new tool on its session', async () => {
  const file = join(scratch(), 'server.mjs');
  writeModule(file, { a: 'a v1' });
  const heard: string[] = [];
  const client = await connect(
    { command: process.execPath, args: [CLI_MAIN, 'dev', file], stderr: 'ignore' },
    { protocolVersion: '2025-06-18', onNotification: (n) => void heard.push(n.method) },
  );
  try {
    assert.deepEqual(await names(client), ['a', 'poke']);
    writeModule(file, { a: 'a v1', c: 'c' });
    await until(() => heard.includes('notifications/tools/list_changed'), 'tools/list_changed', 20_000);
    assert.deepEqual(await names(client), ['a', 'c', 'poke']);
    assert.equal(await text(client, 'c'), 'c');
  } finally {
    await client.close();
  }
});
