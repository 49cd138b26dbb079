/**
 * The official reference server, @modelcontextprotocol/server-everything (a handshake-era stdio
 * program, started from its installed entry file), behind `janus-mcp proxy --port 0 -- node …`
 * (the command, a real process) serving Streamable HTTP on 127.0.0.1, driven by the official SDK
 * v2 client pinned to 2026-07-28: tools
 * listed and called with progress, a sampling and an elicitation request answered through
 * `input_required` rounds while the upstream call stays alive (the upstream sends real
 * requests and waits), a resource subscription delivered through `subscriptions/listen`, the
 * upstream's roots/list at its start answered with the proxy's own roots (`--root`); and a
 * handshake-era client on the same URL, asked with real requests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connect } from '../../src/client/index.js';
import { pathToFileURL } from 'node:url';
import { scratch, startCli } from '../cli/support.js';
import { until } from '../support/wait.js';
import { everythingEntry } from '../support/server-everything.js';

const entry = everythingEntry();
const textOf = (r: { content?: unknown }) => ((r.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');

test('proxy: server-everything (stdio, handshake era) served over HTTP to the official SDK v2 client pinned to 2026-07-28', {
  skip: entry ? false : '@modelcontextprotocol/server-everything is not installed (npm install)',
  timeout: 90_000,
}, async (t) => {
  const root = pathToFileURL(scratch()).href;
  const proxy = startCli(['proxy', '--port', '0', '--host', '127.0.0.1', '--root', root, '--', process.execPath, entry!, 'stdio']);
  const http = { url: await proxy.url() };
  const asked = { elicit: [] as string[], sample: [] as string[] };
  const updates: string[] = [];
  const client = new SdkClient(
    { name: 'sdk-v2-through-proxy', version: '2.4.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    asked.elicit.push(String(request.params.message));
    return { action: 'accept', content: { name: 'Ada Lovelace' } };
  });
  client.setRequestHandler('sampling/createMessage', (request) => {
    asked.sample.push(JSON.stringify(request.params.messages));
    return { role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'test-model' };
  });
  client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(String(n.params.uri)));
  await client.connect(new StreamableHTTPClientTransport(http.url));
  try {
    const tools = async () => (await client.listTools()).tools.map((x) => x.name);
    await t.test('tools listed: the upstream registers its asking tools once it knows the client can answer', async () => {
      // server-everything adds the eliciting and sampling tools after the handshake, with list_changed.
      const names = await until(
        async () => {
          const n = await tools();
          return n.includes('trigger-elicitation-request') && n.includes('trigger-sampling-request') && n;
        },
        'the asking tools in the mirror',
        20_000,
      );
      assert.ok(names.includes('echo'));
      assert.ok(names.includes('trigger-long-running-operation'));
    });

    await t.test('a tool called with progress', async () => {
      const seen: number[] = [];
      const r = await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
        { onprogress: (p) => void seen.push(p.progress) },
      );
      assert.match(textOf(r), /completed/i);
      assert.deepEqual(seen, [1, 2, 3]);
    });

    await t.test('an elicitation answered through an input_required round; the upstream call continues', async () => {
      const r = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      assert.deepEqual(asked.elicit, ['Please provide inputs for the following fields:']);
      assert.match(textOf(r), /Ada Lovelace/);
    });

    await t.test('a sampling request answered through an input_required round', async () => {
      const r = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Say hi' } });
      assert.equal(asked.sample.length, 1);
      assert.match(asked.sample[0]!, /Say hi/);
      assert.match(textOf(r), /hi there/);
      assert.match(textOf(r), /test-model/);
    });

    await t.test('a resource subscription delivered through subscriptions/listen', async () => {
      const { resources } = await client.listResources();
      const uri = resources.find((r) => r.uri.startsWith('demo://resource/static/'))?.uri ?? resources[0]!.uri;
      const subscription = await client.listen({ resourceSubscriptions: [uri] });
      try {
        // server-everything sends updates of subscribed resources every few seconds once toggled on.
        await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
        await until(() => updates.includes(uri), `notifications/resources/updated for ${uri}`, 30_000);
      } finally {
        await subscription.close();
      }
    });

    await t.test("the upstream's roots/list at its start gets the proxy's own roots (--root), with no error line", async () => {
      // server-everything asks once, shortly after its handshake, and keeps what it got: its
      // get-roots-list tool shows it. This client declares no roots, so the proxy's own answer
      // also when the question comes during one of its calls.
      const listed = await until(async () => {
        const r = textOf(await client.callTool({ name: 'get-roots-list', arguments: {} }));
        return r.includes(root) && r;
      }, "the proxy's root in the upstream's roots");
      assert.match(listed, /1 total/);
      assert.doesNotMatch(proxy.stderr(), /Failed to request roots|no downstream call in flight/);
    });

    await t.test('a handshake-era client on the same URL gets the elicitation as a real request', async () => {
      const legacyAsked: string[] = [];
      const legacy = await connect(http.url, {
        protocolVersion: '2025-11-25',
        onElicit: (params, ctx) => {
          legacyAsked.push(`${ctx.era}: ${params.message}`);
          return { action: 'accept', content: { name: 'Grace Hopper' } };
        },
      });
      try {
        const r = await legacy.callTool('trigger-elicitation-request', {});
        assert.deepEqual(legacyAsked, ['legacy: Please provide inputs for the following fields:']);
        assert.match(textOf(r), /Grace Hopper/);
      } finally {
        await legacy.close();
      }
    });
  } finally {
    await client.close();
    assert.equal(await proxy.stop(), 0, proxy.stderr());
  }
});
