/**
 * A Streamable HTTP upstream (a URL, era detected): a handshake-era server's questions travel on
 * the response stream of the call they belong to, so the proxy gives each to its own downstream
 * call even when several are in flight; and a URL that stops answering is a clear error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChannelError, McpError } from '../../src/errors/index.js';
import { createProxy } from '../../src/proxy/index.js';
import { createServer } from '../../src/server/index.js';
import { connectInMemory } from '../../src/testing/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { deferred } from '../support/wait.js';

const text = (r: { content: unknown }) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

function legacyUpstream() {
  const server = createServer({ name: 'http-upstream', version: '1.0.0', eras: { legacy: true, modern: false } });
  const bothAsked = deferred();
  let asking = 0;
  server.tool('ask_name', async (_args, ctx) => {
    // Both calls ask before either is answered: the questions are in flight together.
    if (++asking === 2) bothAsked.resolve();
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return `hello ${String(answer.action === 'accept' ? answer.content?.name : answer.action)}`;
  });
  return { server, bothAsked: bothAsked.promise };
}

test('proxy to a handshake-era HTTP upstream: concurrent calls from clients of both eras each get their own question', async () => {
  const up = legacyUpstream();
  const http = await serveHttp(up.server);
  const proxy = await createProxy(http.url.href, { reconnect: false });
  const client = (version: '2025-06-18' | '2026-07-28', name: string) =>
    connectInMemory(proxy.server, {
      protocolVersion: version,
      onElicit: async () => {
        await up.bothAsked;
        return { action: 'accept', content: { name } };
      },
    });
  const [legacy, modern] = await Promise.all([client('2025-06-18', 'Legacy Lin'), client('2026-07-28', 'Modern Mo')]);
  try {
    assert.equal(proxy.upstream.era, 'legacy');
    assert.equal(proxy.upstream.transportKind, 'http');
    const [a, b] = await Promise.all([legacy.client.callTool('ask_name', {}), modern.client.callTool('ask_name', {})]);
    assert.equal(text(a), 'hello Legacy Lin');
    assert.equal(text(b), 'hello Modern Mo');
  } finally {
    await legacy.close();
    await modern.close();
    await proxy.close();
    await http.close();
  }
});

test('proxy to an HTTP upstream that goes away: an McpError naming the URL', async () => {
  const up = legacyUpstream();
  up.server.tool('ping_me', () => 'pong');
  const http = await serveHttp(up.server);
  const proxy = await createProxy(http.url.href, { reconnect: false, server: { onError: () => {} } });
  const down = await connectInMemory(proxy.server, { protocolVersion: '2026-07-28' });
  try {
    assert.equal(text(await down.client.callTool('ping_me', {})), 'pong');
    await http.close();
    const error = await down.client.callTool('ping_me', {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, -32603);
    assert.ok(error.message.startsWith(`upstream "http-upstream" (${http.url.href}) is unavailable (not reconnecting`), error.message);
  } finally {
    await down.close();
    await proxy.close();
  }
});

test("createProxy to a URL where nothing listens rejects with the client's connection error", async () => {
  const http = await serveHttp(createServer({ name: 'gone', version: '1.0.0' }));
  const url = http.url.href;
  await http.close();
  await assert.rejects(createProxy(url), (e: unknown) => e instanceof ChannelError && e.message.includes(url));
});
