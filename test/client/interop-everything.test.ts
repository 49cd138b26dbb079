/**
 * Interop with the official reference server, @modelcontextprotocol/server-everything, over
 * stdio (a devDependency, started from its installed entry file, never fetched). It is a
 * handshake-era server: it answers server/discover with an error, so the unpinned client
 * must fall back to initialize (docs/2026-07-28/basic/versioning.mdx §Backward
 * Compatibility). Tools, resources and prompts are found by shape from the lists, not by
 * exact name, but every call asserts a concrete result.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type Client } from '../../src/client/index.js';
import { spawnChannel } from '../../src/client/channels/spawn.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import type { Tool } from '../../src/protocol/types.js';
import { pidAlive } from '../support/common.js';
import { everythingEntry } from '../support/server-everything.js';
import { askHandlers, textOf } from './helpers.js';

type Props = Record<string, { type?: string; default?: unknown }>;
const props = (t: Tool) => ((t.inputSchema as { properties?: Props }).properties ?? {}) as Props;
const required = (t: Tool) => ((t.inputSchema as { required?: string[] }).required ?? []) as string[];

/** Arguments for a tool's required properties, by type. */
function fill(t: Tool, text: string): Record<string, unknown> {
  const p = props(t);
  return Object.fromEntries(
    required(t).map((k) => [k, p[k]?.type === 'number' || p[k]?.type === 'integer' ? 1 : p[k]?.type === 'boolean' ? true : text]),
  );
}

async function findTool(client: Client, changed: Promise<void>, pick: (t: Tool) => boolean): Promise<Tool> {
  let found = (await client.listAllTools()).find(pick);
  if (!found) {
    // Tools that depend on client capabilities may be registered just after the handshake.
    await Promise.race([changed, new Promise((r) => setTimeout(r, 2000))]);
    found = (await client.listAllTools()).find(pick);
  }
  assert.ok(found, 'no matching tool in tools/list');
  return found;
}

const entry = everythingEntry();

test('interop: the official server-everything over stdio — legacy fallback, tools, resources, prompts, progress, elicitation, sampling, roots', {
  skip: entry ? false : '@modelcontextprotocol/server-everything is not installed (npm install)',
}, async (t) => {
  const h = askHandlers({ name: 'Ada Lovelace' });
  let onChanged!: () => void;
  const changed = new Promise<void>((r) => (onChanged = r));
  const { channel, child } = spawnChannel({ command: process.execPath, args: [entry!, 'stdio'], stderr: 'ignore' });
  const started = Date.now();
  const client = await connect(channel, {
    ...h.options,
    probeTimeoutMs: 10_000,
    onNotification: (n: JsonRpcNotification) => n.method === 'notifications/tools/list_changed' && onChanged(),
  });
  try {
    await t.test('era detection falls back to initialize on the error answer, without waiting for the probe timeout', () => {
      assert.ok(Date.now() - started < 10_000);
      assert.equal(client.era, 'legacy');
      assert.equal(client.protocolVersion, '2025-11-25');
      assert.match(client.serverInfo?.name ?? '', /everything/);
      assert.ok(client.serverCapabilities.tools);
    });

    await t.test('an echo tool echoes', async () => {
      const echo = await findTool(client, changed, (x) => /echo/i.test(x.name) && required(x).length === 1);
      const r = await client.callTool(echo.name, { [required(echo)[0]!]: 'hello from janus' });
      assert.equal(r.isError ?? false, false);
      assert.match(textOf(r), /hello from janus/);
    });

    await t.test('a two-number tool adds', async () => {
      const add = await findTool(
        client,
        changed,
        (x) => required(x).length === 2 && required(x).every((k) => props(x)[k]?.type === 'number'),
      );
      const [a, b] = required(add);
      assert.match(textOf(await client.callTool(add.name, { [a!]: 19, [b!]: 23 })), /\b42\b/);
    });

    await t.test('resources/read returns the listed resource', async () => {
      const { resources } = await client.listResources();
      const text = resources.find((r) => (r.mimeType ?? '').startsWith('text/'))!;
      assert.ok(text, 'a text resource');
      const read = await client.readResource(text.uri);
      assert.equal(read.contents[0]!.uri, text.uri);
      assert.ok(((read.contents[0] as { text?: string }).text ?? '').length > 0);
      assert.ok((await client.listResourceTemplates()).resourceTemplates.length > 0);
    });

    await t.test('prompts/get with and without arguments', async () => {
      const { prompts } = await client.listPrompts();
      const plain = prompts.find((p) => !(p.arguments ?? []).some((a) => a.required))!;
      assert.ok((await client.getPrompt(plain.name)).messages.length > 0);
      const withArgs =
        prompts.find((p) => (p.arguments ?? []).some((a) => a.required) && /arg/i.test(p.name)) ??
        prompts.find((p) => (p.arguments ?? []).length > 0)!;
      const args = Object.fromEntries((withArgs.arguments ?? []).filter((a) => a.required).map((a) => [a.name, 'Reykjavik']));
      const got = await client.getPrompt(withArgs.name, args);
      assert.match(JSON.stringify(got.messages), /Reykjavik/);
    });

    await t.test('progress from a long-running tool reaches onProgress', async () => {
      const long = await findTool(client, changed, (x) => /long/i.test(x.name) && 'steps' in props(x) && 'duration' in props(x));
      const seen: number[] = [];
      await client.callTool(long.name, { duration: 0.2, steps: 2 }, { onProgress: (p) => seen.push(p.progress) });
      assert.deepEqual(seen, [1, 2]);
    });

    await t.test('onElicit answers its elicitation/create; the schema defaults are filled in', async () => {
      const tool = await findTool(client, changed, (x) => /elicit/i.test(x.name) && !/url|async/i.test(x.name));
      const r = await client.callTool(tool.name, fill(tool, 'x'));
      assert.equal(h.calls.elicit, 1);
      const text = textOf(r);
      assert.match(text, /Ada Lovelace/);
      const schema = h.seen.elicit[0]!.requestedSchema as { properties: Props };
      const raw = /Raw result:\s*([\s\S]*)$/.exec(text)?.[1];
      if (raw) {
        const answered = (JSON.parse(raw) as { content: Record<string, unknown> }).content;
        for (const [k, p] of Object.entries(schema.properties)) if (p.default !== undefined) assert.deepEqual(answered[k], p.default, k);
      }
    });

    await t.test('onSample answers its sampling/createMessage', async () => {
      const tool = await findTool(client, changed, (x) => /sampl/i.test(x.name) && !/async/i.test(x.name));
      const r = await client.callTool(tool.name, fill(tool, 'Say hi'));
      assert.equal(h.calls.sample, 1);
      assert.match(h.seen.sample[0]!.messages[0].content.text, /Say hi/);
      assert.match(textOf(r), /test-model/);
      assert.match(textOf(r), /hi there/);
    });

    await t.test('onRoots answers its roots/list', async () => {
      const tool = await findTool(client, changed, (x) => /roots/i.test(x.name));
      const r = await client.callTool(tool.name, fill(tool, 'x'));
      assert.ok(h.calls.roots >= 1);
      assert.match(textOf(r), /file:\/\/\/work/);
    });
  } finally {
    await client.close();
  }
  assert.equal(pidAlive(child.pid!), false, 'server-everything still running after close()');
});
