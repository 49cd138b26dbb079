/**
 * Handshake-era tools and utilities, per revision: field shaping of tools/list (each
 * schema/<rev>/schema.json `Tool`), tool errors vs protocol errors and structured output
 * (server/tools.mdx), progress (basic/utilities/progress.mdx), logging
 * (server/utilities/logging.mdx), and server-to-client requests gated on the client's
 * declared capabilities (client/{elicitation,sampling,roots}.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UrlElicitationRequiredError } from '../../src/errors/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import type { Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';

const INPUT = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
const OUTPUT = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
const ICONS = [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['16x16'] }];
const ANNOTATIONS = { readOnlyHint: true, title: 'Adds one' };
const TOOL_META = { 'example.com/owner': 'tests' };

function featureServer(): Server {
  const server = createServer({ name: 'features', version: '1.0.0' });
  server.tool(
    'add_one',
    {
      title: 'Add one',
      description: 'Adds one',
      input: INPUT,
      output: OUTPUT,
      annotations: ANNOTATIONS,
      icons: ICONS,
      _meta: TOOL_META,
    },
    (args) => ({ sum: (args as { a: number }).a + 1 }),
  );
  server.tool('bad_output', { input: INPUT, output: OUTPUT }, () => ({ sum: 'not a number' }));
  server.tool('progress', async (_a, ctx) => {
    ctx.progress(1, 2, 'half way');
    ctx.progress(2, 2, 'done');
    return 'progressed';
  });
  server.tool('logs', (_a, ctx) => {
    ctx.log('debug', 'd');
    ctx.log('info', 'i');
    ctx.log('warning', { w: 1 });
    ctx.log('error', 'e', 'my-logger');
    return 'logged';
  });
  server.tool('who', async (_a, ctx) => {
    const r = await ctx.elicit({
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `${r.action}:${String(r.content?.name)}`;
  });
  server.tool('tags', async (_a, ctx) => {
    const r = await ctx.elicit({
      message: 'Pick tags',
      requestedSchema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } } },
    });
    return r.action;
  });
  server.tool(
    'connect',
    async (_a, ctx) => (await ctx.elicitUrl({ message: 'Connect your account', url: 'https://example.com/connect' })).action,
  );
  server.tool('needs_url', () => {
    throw new UrlElicitationRequiredError([{ message: 'Authorize', url: 'https://example.com/auth', elicitationId: 'e-42' }]);
  });
  server.tool('sample', async (_a, ctx) => {
    const r = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    return `model=${r.model}`;
  });
  server.tool('roots', async (_a, ctx) => {
    const roots = await ctx.roots();
    return roots.map((r) => `${r.name}=${r.uri}`).join(',');
  });
  return server;
}

function session(version: string, caps: Record<string, unknown>, fn: (peer: MemoryPeer, server: Server) => Promise<void>): Promise<void> {
  return withMemoryPeer(featureServer(), fn, { revision: version, handshake: caps });
}

const tool = (peer: MemoryPeer, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  peer.request('tools/call', meta ? { name, arguments: args, _meta: meta } : { name, arguments: args });

test('tools/list leaves out the fields a revision lacks: annotations < 2025-03-26, title/outputSchema/_meta < 2025-06-18, icons < 2025-11-25', async () => {
  const base = { name: 'add_one', description: 'Adds one', inputSchema: INPUT };
  const expected: Record<string, Msg> = {
    '2024-11-05': base,
    '2025-03-26': { ...base, annotations: ANNOTATIONS },
    '2025-06-18': { ...base, annotations: ANNOTATIONS, title: 'Add one', outputSchema: OUTPUT, _meta: TOOL_META },
    '2025-11-25': { ...base, annotations: ANNOTATIONS, title: 'Add one', outputSchema: OUTPUT, _meta: TOOL_META, icons: ICONS },
  };
  for (const [v, want] of Object.entries(expected)) {
    await session(v, {}, async (peer) => {
      const r = await peer.request('tools/list');
      assert.deepStrictEqual(
        r.result.tools.find((t: Msg) => t.name === 'add_one'),
        want,
        v,
      );
      assert.equal(r.result.nextCursor, undefined);
    });
  }
});

test('invalid tool arguments give an isError result the model can correct, not a protocol error (2025-11-25 server/tools.mdx §Error Handling)', async () => {
  await session('2025-11-25', {}, async (peer) => {
    for (const args of [{ a: 'one' }, {}]) {
      const r = await tool(peer, 'add_one', args);
      assert.equal(r.error, undefined, JSON.stringify(r));
      assert.equal(r.result.isError, true);
      assert.match(r.result.content[0].text, /Invalid arguments for tool add_one/);
    }
  });
});

test('structured output: structuredContent plus its JSON as text from 2025-06-18; older revisions get the text only (server/tools.mdx §Structured Content)', async () => {
  await session('2025-06-18', {}, async (peer) => {
    assert.deepStrictEqual((await tool(peer, 'add_one', { a: 1 })).result, {
      content: [{ type: 'text', text: '{"sum":2}' }],
      structuredContent: { sum: 2 },
    });
  });
  await session('2025-03-26', {}, async (peer) => {
    assert.deepStrictEqual((await tool(peer, 'add_one', { a: 1 })).result, { content: [{ type: 'text', text: '{"sum":2}' }] });
  });
});

test('structured output that does not match the outputSchema is never sent: -32603 (server/tools.mdx §Output Schema: servers MUST conform)', async () => {
  await session('2025-11-25', {}, async (peer) => {
    const r = await tool(peer, 'bad_output', { a: 1 });
    assert.equal(r.error?.code, -32603, JSON.stringify(r));
    assert.match(r.error.message, /output schema/);
  });
});

test("progress notifications carry the request's progressToken and come before the response; message only from 2025-03-26 (progress.mdx)", async () => {
  for (const [v, withMessage] of [
    ['2025-11-25', true],
    ['2024-11-05', false],
  ] as const) {
    await session(v, {}, async (peer) => {
      const r = await tool(peer, 'progress', {}, { progressToken: 'tok-1' });
      const notes = peer.take((m) => m.method === 'notifications/progress');
      assert.deepStrictEqual(
        notes.map((n) => n.params),
        [
          { progressToken: 'tok-1', progress: 1, total: 2, ...(withMessage ? { message: 'half way' } : {}) },
          { progressToken: 'tok-1', progress: 2, total: 2, ...(withMessage ? { message: 'done' } : {}) },
        ],
        v,
      );
      assert.ok(peer.received.indexOf(notes[1]!) < peer.received.indexOf(r), 'progress precedes the response');
    });
  }
});

test('no progress notification without a progressToken', async () => {
  await session('2025-11-25', {}, async (peer) => {
    assert.equal((await tool(peer, 'progress')).result.content[0].text, 'progressed');
    await peer.assertNone((m) => m.method === 'notifications/progress', 'progress notification');
  });
});

test('logging/setLevel filters notifications/message below the level; before it, every level goes out (logging.mdx)', async () => {
  await session('2025-06-18', {}, async (peer) => {
    await tool(peer, 'logs');
    assert.deepStrictEqual(
      peer.take((m) => m.method === 'notifications/message').map((m) => m.params.level),
      ['debug', 'info', 'warning', 'error'],
    );

    assert.deepStrictEqual((await peer.request('logging/setLevel', { level: 'warning' })).result, {});
    await tool(peer, 'logs');
    assert.deepStrictEqual(
      peer.take((m) => m.method === 'notifications/message').map((m) => m.params),
      [
        { level: 'warning', data: { w: 1 } },
        { level: 'error', data: 'e', logger: 'my-logger' },
      ],
    );
    assert.equal((await peer.request('logging/setLevel', { level: 'loud' })).error?.code, -32602);
  });
});

test("roots: a tool calling ctx.roots() sends roots/list and gets the client's answer (client/roots.mdx)", async () => {
  await session('2025-03-26', { roots: { listChanged: true } }, async (peer) => {
    const call = tool(peer, 'roots');
    const ask = await peer.next((m) => m.method === 'roots/list');
    peer.respond(ask.id, {
      roots: [
        { uri: 'file:///work', name: 'work' },
        { uri: 'file:///tmp', name: 'tmp' },
      ],
    });
    assert.equal((await call).result.content[0].text, 'work=file:///work,tmp=file:///tmp');
  });
});

test('sampling and elicitation answers reach the handler; 2025-11-25 form elicitation says mode "form" (client/elicitation.mdx)', async () => {
  await session('2025-11-25', { sampling: {}, elicitation: { form: {} } }, async (peer) => {
    const sampled = tool(peer, 'sample');
    const s = await peer.next((m) => m.method === 'sampling/createMessage');
    peer.respond(s.id, { role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm-1' });
    assert.equal((await sampled).result.content[0].text, 'model=m-1');

    const elicited = tool(peer, 'who');
    const e = await peer.next((m) => m.method === 'elicitation/create');
    assert.equal(e.params.mode, 'form');
    peer.respond(e.id, { action: 'decline' });
    assert.equal((await elicited).result.content[0].text, 'decline:undefined');
  });
});

test('a server-to-client request the server gives up on is cancelled with notifications/cancelled (lifecycle.mdx §Timeouts)', async () => {
  await session('2025-11-25', { elicitation: {} }, async (peer) => {
    // Given up because the tool call it serves was cancelled by the client:
    const id = peer.id();
    peer.sendRaw({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'who', arguments: {} } });
    const ask = await peer.next((m) => m.method === 'elicitation/create');
    peer.notify('notifications/cancelled', { requestId: id, reason: 'user' });
    const told = await peer.next((m) => m.method === 'notifications/cancelled');
    assert.equal(told.params.requestId, ask.id);
    assert.equal(typeof told.params.reason, 'string');
    // A late answer to it changes nothing and the session goes on.
    peer.respond(ask.id, { action: 'decline' });
    assert.equal((await tool(peer, 'add_one', { a: 1 })).result.structuredContent.sum, 2);
    await peer.assertNone((m) => m.id === id, 'a response to the cancelled call');
  });
});

test('a server-to-client request that times out is cancelled with notifications/cancelled, and the tool sees the timeout', async () => {
  const server = createServer({ name: 'asks', version: '1.0.0' });
  server.tool('impatient', async (_a, ctx) => {
    try {
      await ctx.elicit({ message: 'Quick?', requestedSchema: { type: 'object', properties: {} } }, { timeoutMs: 50 });
      return 'answered';
    } catch (e) {
      return `gave up: ${(e as Error).message}`;
    }
  });
  await withMemoryPeer(
    server,
    async (peer) => {
      const call = tool(peer, 'impatient');
      const ask = await peer.next((m) => m.method === 'elicitation/create');
      const told = await peer.next((m) => m.method === 'notifications/cancelled');
      assert.equal(told.params.requestId, ask.id);
      assert.match((await call).result.content[0].text, /gave up: elicitation\/create: no answer from the client within 50 ms/);
    },
    { revision: '2025-11-25', handshake: { elicitation: {} } },
  );
});

/** The call failed (protocol error or tool error) without the server asking the client. */
async function refusedWithoutAsking(peer: MemoryPeer, name: string, method: string): Promise<void> {
  const r = await tool(peer, name);
  assert.ok(r.error || r.result?.isError, `${name} should fail: ${JSON.stringify(r)}`);
  await peer.assertNone((m) => m.method === method, `${method} request to a client that did not declare it`);
}

test('no server-to-client request the client did not declare: roots, sampling, elicitation (lifecycle.mdx §Capability Negotiation)', async () => {
  await session('2025-11-25', {}, async (peer) => {
    await refusedWithoutAsking(peer, 'roots', 'roots/list');
    await refusedWithoutAsking(peer, 'sample', 'sampling/createMessage');
    await refusedWithoutAsking(peer, 'who', 'elicitation/create');
  });
});

test('elicitation is never sent before 2025-06-18, even when the client claims the capability', async () => {
  await session('2025-03-26', { elicitation: {} }, async (peer) => {
    await refusedWithoutAsking(peer, 'who', 'elicitation/create');
  });
});

test('a URL-mode-only client is not sent form elicitation (2025-11-25 client/elicitation.mdx §Capabilities)', async () => {
  await session('2025-11-25', { elicitation: { url: {} } }, async (peer) => {
    await refusedWithoutAsking(peer, 'who', 'elicitation/create');
  });
});

test('an elicitation schema the negotiated revision cannot express is not sent: multi-select enums exist from 2025-11-25 only (schema/2025-06-18 PrimitiveSchemaDefinition)', async () => {
  await session('2025-06-18', { elicitation: {} }, async (peer) => {
    const call = tool(peer, 'tags');
    await peer.barrier();
    const sent = peer.take((m) => m.method === 'elicitation/create')[0];
    if (sent) peer.respond(sent.id, { action: 'cancel' }); // unblock the handler either way
    const r = await call;
    assert.equal(
      sent,
      undefined,
      `elicitation/create with a schema 2025-06-18 cannot express: ${JSON.stringify(sent?.params.requestedSchema)}`,
    );
    assert.ok(r.error || r.result.isError, JSON.stringify(r));
  });
  await session('2025-11-25', { elicitation: {} }, async (peer) => {
    const call = tool(peer, 'tags');
    const ask = await peer.next((m) => m.method === 'elicitation/create');
    peer.respond(ask.id, { action: 'accept', content: { tags: ['a'] } });
    assert.equal((await call).result.content[0].text, 'accept');
  });
});

test('URL elicitation on 2025-11-25: mode "url" with an elicitationId, and server.elicitationComplete notifies that session (2025-11-25 client/elicitation.mdx §URL Mode)', async () => {
  await session('2025-11-25', { elicitation: { url: {} } }, async (peer, server) => {
    const call = tool(peer, 'connect');
    const ask = await peer.next((m) => m.method === 'elicitation/create');
    const { elicitationId } = ask.params;
    assert.deepStrictEqual(ask.params, { mode: 'url', message: 'Connect your account', url: 'https://example.com/connect', elicitationId });
    assert.equal(typeof elicitationId, 'string');
    peer.respond(ask.id, { action: 'accept' });
    assert.equal((await call).result.content[0].text, 'accept');
    assert.equal(server.elicitationComplete(peer.connection.channel.id, elicitationId), true);
    assert.deepStrictEqual(await peer.next((m) => m.method === 'notifications/elicitation/complete'), {
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId },
    });
    assert.equal(server.elicitationComplete('no-such-session', elicitationId), false);
  });
  await session('2025-06-18', { elicitation: {} }, async (peer, server) => {
    assert.equal(server.elicitationComplete(peer.connection.channel.id, 'e-1'), false);
    await peer.assertNone((m) => m.method === 'notifications/elicitation/complete', 'elicitation/complete before 2025-11-25');
  });
});

test('UrlElicitationRequiredError is -32042 with data.elicitations in URL mode (2025-11-25 client/elicitation.mdx §URL Elicitation Required Error)', async () => {
  await session('2025-11-25', {}, async (peer) => {
    const r = await tool(peer, 'needs_url');
    assert.deepStrictEqual(r.error, {
      code: -32042,
      message: r.error.message,
      data: { elicitations: [{ mode: 'url', message: 'Authorize', url: 'https://example.com/auth', elicitationId: 'e-42' }] },
    });
  });
});
