/**
 * Interop with a server no one here wrote: the official TypeScript SDK v2
 * (`@modelcontextprotocol/server` 2.4.0 + `@modelcontextprotocol/node` 2.1.2), started as a
 * child process (test/fixtures/sdk-server/server.ts) in its three HTTP wirings, killed by PID.
 * Each run lists and calls tools (with progress), reads a resource, gets a prompt, completes,
 * listens for list_changed and answers an elicitation through onElicit.
 * Unpinned, detection must pick the era each wiring serves (docs/2026-07-28/basic/
 * versioning.mdx §Backward Compatibility); pinned, the client must speak the named revision.
 * The SDK validates the 2026-07-28 headers itself, so every modern call that succeeds also
 * proves our Mcp-Method/Mcp-Name/MCP-Protocol-Version agree with its reading of the spec.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type Client } from '../../src/client/index.js';
import { McpError } from '../../src/errors/index.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { textOf } from '../client/helpers.js';
import { pidAlive } from '../support/common.js';
import { until } from '../support/wait.js';
import { recordingFetch, startSdkServer, type Exchange } from './support.js';

const INFO = { name: 'sdk-interop', version: '2.4.0' };

function handlers() {
  const asked: Array<Record<string, unknown>> = [];
  return {
    asked,
    onElicit: (params: unknown) => {
      asked.push(params as Record<string, unknown>);
      return { action: 'accept' as const, content: { name: 'Ada' } };
    },
  };
}

/** Tools, progress, a resource, a prompt, completion and the eliciting tool, against the SDK fixture. */
async function exercise(client: Client, rev: ProtocolVersion, h: ReturnType<typeof handlers>, log: Exchange[]): Promise<void> {
  assert.deepEqual((await client.listAllTools()).map((t) => t.name).sort(), ['add', 'ask_name', 'count', 'echo', 'touch']);
  assert.equal(textOf(await client.callTool('echo', { text: 'hi' })), 'echo: hi');
  const sum = await client.callTool('add', { a: 2, b: 3 });
  assert.equal(textOf(sum), '5');
  assert.deepEqual(sum.structuredContent, { sum: 5 });
  const seen: number[] = [];
  assert.equal(textOf(await client.callTool('count', { to: 3 }, { onProgress: (p) => seen.push(p.progress) })), 'counted to 3');
  assert.deepEqual(seen, [1, 2, 3]);
  assert.deepEqual((await client.readResource('sdk://greeting')).contents, [
    { uri: 'sdk://greeting', mimeType: 'text/plain', text: 'hello from the SDK' },
  ]);
  const prompt = await client.getPrompt('review', { language: 'go' });
  assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Review this go code.' } }]);
  assert.deepEqual((await client.complete({ type: 'ref/prompt', name: 'review' }, { name: 'language', value: 'r' })).values, [
    'rust',
    'ruby',
  ]);

  // listen(): the SDK's subscriptions/listen stream (modern) or the session's GET stream (legacy).
  const stream = client.listen({ toolsListChanged: true });
  const opened = (e: Exchange) =>
    e.status === 200 && (rev === '2026-07-28' ? e.body?.method === 'subscriptions/listen' : e.method === 'GET');
  await until(() => log.some(opened), 'the stream listen() relies on');
  assert.equal(textOf(await client.callTool('touch')), 'touched');
  const changed = await Promise.race([
    stream.next(),
    new Promise<never>((_, no) => setTimeout(() => no(new Error('no list_changed from the SDK')), 3000).unref()),
  ]);
  assert.equal(changed.value.method, 'notifications/tools/list_changed');
  await stream.return!();

  const before = log.length;
  const asked = await client.callTool('ask_name');
  const exchanges = log.slice(before).filter((e) => e.method === 'POST');
  if (rev === '2025-03-26') {
    // Elicitation arrived in 2025-06-18: the client declares no such capability, and the SDK says so.
    assert.equal(asked.isError, true);
    assert.match(textOf(asked), /did not declare/);
    assert.equal(h.asked.length, 0);
    return;
  }
  assert.equal(textOf(asked), 'hello Ada');
  assert.equal(h.asked.length, 1);
  assert.equal(h.asked[0]!.message, 'Who are you?');
  if (rev === '2026-07-28') {
    // mrtr.mdx: an input_required round, then the retry with inputResponses under the server's key.
    assert.deepEqual(
      exchanges.map((e) => e.body?.method),
      ['tools/call', 'tools/call'],
    );
    assert.equal(exchanges[1]!.body!.id !== exchanges[0]!.body!.id, true, 'the retry has a new id');
    assert.deepEqual(exchanges[1]!.body!.params.inputResponses, { who: { action: 'accept', content: { name: 'Ada' } } });
  } else {
    // The SDK's legacy shim: a real elicitation/create on the call's SSE stream, answered by a POST.
    assert.deepEqual(
      exchanges.map((e) => e.body?.method ?? 'response'),
      ['tools/call', 'response'],
    );
    assert.match(exchanges[0]!.responseHeaders!['content-type']!, /^text\/event-stream/);
    assert.deepEqual(exchanges[1]!.body!.result, { action: 'accept', content: { name: 'Ada' } });
    // The tools/call result may overtake the 202 of the answer's own POST: wait for it.
    await until(() => exchanges[1]!.status !== undefined, 'the reply to the posted answer');
    assert.equal(exchanges[1]!.status, 202);
  }
}

const cases: Array<{
  mode: 'stateless' | 'modern-only' | 'session';
  pinned?: ProtocolVersion;
  era: 'modern' | 'legacy';
  rev: ProtocolVersion;
}> = [
  { mode: 'stateless', era: 'modern', rev: '2026-07-28' },
  { mode: 'stateless', pinned: '2026-07-28', era: 'modern', rev: '2026-07-28' },
  { mode: 'modern-only', era: 'modern', rev: '2026-07-28' },
  { mode: 'session', era: 'legacy', rev: '2025-11-25' },
  { mode: 'session', pinned: '2025-11-25', era: 'legacy', rev: '2025-11-25' },
  { mode: 'session', pinned: '2025-06-18', era: 'legacy', rev: '2025-06-18' },
  { mode: 'session', pinned: '2025-03-26', era: 'legacy', rev: '2025-03-26' },
];

for (const c of cases) {
  test(`official SDK server (${c.mode}), ${c.pinned ? `pinned ${c.pinned}` : 'unpinned'} → ${c.era} ${c.rev}: tools, progress, resource, prompt, completion, listen, elicitation`, async (t) => {
    const sdk = await startSdkServer(c.mode);
    t.after(() => sdk.stop());
    const rec = recordingFetch();
    const h = handlers();
    const client = await connect(sdk.url, { fetch: rec.fetch, onElicit: h.onElicit, ...(c.pinned ? { protocolVersion: c.pinned } : {}) });
    try {
      assert.equal(client.era, c.era);
      assert.equal(client.protocolVersion, c.rev);
      assert.equal(client.transportKind, 'http');
      const first = rec.log[0]!;
      if (!c.pinned) assert.equal(first.body?.method, 'server/discover', 'unpinned: probe first');
      if (!c.pinned && c.era === 'legacy') {
        // The sessionful SDK refuses a session-less non-initialize POST with 400 and a -32000 body: not a modern error.
        assert.equal(first.status, 400);
        assert.equal(rec.posts('initialize').length, 1);
      }
      if (c.era === 'modern') {
        assert.equal(rec.posts('initialize').length, 0);
        if (!c.pinned) {
          assert.deepEqual(client.serverInfo, INFO);
          assert.equal(client.instructions, 'Official SDK fixture.');
        }
      } else {
        assert.deepEqual(client.serverInfo, INFO);
        assert.equal(client.instructions, 'Official SDK fixture.');
      }
      await exercise(client, c.rev, h, rec.log);
      const refused = rec.log.filter((e) => e.method === 'POST' && e.status !== 200 && e.status !== 202 && e !== first);
      assert.deepEqual(
        refused.map((e) => `${e.body?.method} ${e.status}`),
        [],
        'the SDK refused a request',
      );
      if (c.era === 'legacy') {
        const sid = rec.posts('initialize')[0]!.responseHeaders!['mcp-session-id'];
        assert.ok(sid, 'the SDK minted a session');
        // The SDK ends the session (DELETE from outside): the next call re-initializes and is retried.
        const del = await fetch(sdk.url, { method: 'DELETE', headers: { 'mcp-session-id': sid, 'mcp-protocol-version': c.rev } });
        assert.equal(del.status, 200);
        assert.equal(textOf(await client.callTool('echo', { text: 'again' })), 'echo: again');
        assert.equal(rec.posts('initialize').length, 2);
        assert.equal(client.protocolVersion, c.rev);
      }
    } finally {
      await client.close();
      await sdk.stop();
    }
    assert.equal(pidAlive(sdk.child.pid!), false);
    if (c.era === 'legacy') {
      // close() ended the (second) session with DELETE; the modern wire never sends one.
      assert.equal(rec.log.filter((e) => e.method === 'DELETE').length, 1);
    } else {
      assert.equal(rec.log.filter((e) => e.method !== 'POST').length, 0);
    }
  });
}

test('official SDK stateless handler, pinned 2025-11-25: served by its per-request legacy fallback (no session; its GET answers 405)', async (t) => {
  const sdk = await startSdkServer('stateless');
  t.after(() => sdk.stop());
  const rec = recordingFetch();
  const client = await connect(sdk.url, { fetch: rec.fetch, protocolVersion: '2025-11-25' });
  try {
    assert.equal(client.era, 'legacy');
    assert.equal(rec.posts('initialize')[0]!.responseHeaders!['mcp-session-id'], undefined);
    assert.equal(textOf(await client.callTool('echo', { text: 'x' })), 'echo: x');
    assert.deepEqual((await client.readResource('sdk://greeting')).contents[0]!.uri, 'sdk://greeting');
  } finally {
    await client.close();
    await sdk.stop();
  }
  assert.equal(rec.log.filter((e) => e.method === 'DELETE').length, 0, 'no session, no DELETE');
});

test('official SDK modern-only handler, pinned 2025-11-25: its 400 + -32022 answer to initialize is raised, not mistaken for an HTTP+SSE server (2026-07-28 streamable-http.mdx §Backward Compatibility 3: fall back only "with no modern body")', async (t) => {
  const sdk = await startSdkServer('modern-only');
  t.after(() => sdk.stop());
  const rec = recordingFetch();
  try {
    await assert.rejects(connect(sdk.url, { fetch: rec.fetch, protocolVersion: '2025-11-25' }), (e: unknown) => {
      assert.ok(e instanceof McpError, `expected the server's McpError -32022, got ${String(e)}`);
      assert.equal(e.code, -32022);
      assert.deepEqual((e.data as { supported?: unknown }).supported, ['2026-07-28']);
      return true;
    });
    assert.deepEqual(
      rec.log.map((e) => `${e.method} ${e.status}`),
      ['POST 400'],
      'no GET for an HTTP+SSE endpoint',
    );
  } finally {
    await sdk.stop();
  }
});
