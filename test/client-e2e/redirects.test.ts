/**
 * Redirects never carry a request to another origin. fetch would follow a redirect anywhere
 * and send the body and every header but Authorization there again (Fetch standard §4.4
 * "HTTP-redirect fetch"): the JSON-RPC body, an API key from the `headers` option, the
 * `Mcp-Session-Id`. Credentials go only to the server they are for (2025-11-25
 * basic/authorization.mdx §Token Handling). So the client follows a redirect only within the
 * origin, and only where the request survives it (307 and 308 keep method and body, RFC 9110
 * §15.4.8-9); otherwise it fails with a ChannelError naming where it was sent. Two servers on
 * 127.0.0.1 with different ports are different origins.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { ChannelError } from '../../src/errors/index.js';
import { connect } from '../../src/client/index.js';
import { createNodeHandler } from '../../src/transports/http/index.js';
import { textOf } from '../client/helpers.js';
import { buildFixtureServer } from '../fixtures/client-server/server.js';
import { nodeServer } from './support.js';

/** A working MCP endpoint on its own origin that records every request reaching it. */
async function otherOrigin() {
  const seen: Array<{ method: string; headers: IncomingHttpHeaders }> = [];
  const mcp = createNodeHandler(buildFixtureServer());
  const server = await nodeServer((req, res) => {
    seen.push({ method: req.method ?? '', headers: req.headers });
    mcp(req, res);
  });
  return { ...server, seen };
}

const SECRETS = { 'x-api-key': 'k-secret', authorization: 'Bearer t-secret' };

const refused = (target: URL, status: number) => (e: unknown) =>
  e instanceof ChannelError &&
  e.status === status &&
  e.message.includes(`redirected (HTTP ${status}) to ${target.href}, on another origin: not followed`) &&
  /Mcp-Session-Id/.test(e.message);

for (const status of [307, 308, 302]) {
  test(`a redirect (${status}) to another origin is not followed: connect fails naming the target, and the other origin receives nothing`, async () => {
    const b = await otherOrigin();
    const a = await nodeServer((_req, res) => res.writeHead(status, { location: b.url.href }).end());
    try {
      assert.notEqual(a.url.origin, b.url.origin);
      await assert.rejects(connect(a.url, { headers: SECRETS }), refused(b.url, status));
      assert.deepEqual(b.seen, [], 'no request, body or credential reached the other origin');
    } finally {
      await a.close();
      await b.close();
    }
  });
}

test("a session's request redirected to another origin fails; its Mcp-Session-Id and the headers option stay home", async () => {
  const b = await otherOrigin();
  const mcp = createNodeHandler(buildFixtureServer());
  let redirect = false;
  const sessionIds: string[] = [];
  const a = await nodeServer((req, res) => {
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') sessionIds.push(sid);
    if (redirect && sid !== undefined) return res.writeHead(307, { location: b.url.href }).end();
    mcp(req, res);
  });
  const client = await connect(a.url, { protocolVersion: '2025-11-25', headers: SECRETS });
  try {
    assert.equal(textOf(await client.callTool('echo', { text: 'home' })), 'echo: home');
    redirect = true;
    await assert.rejects(client.callTool('echo', { text: 'away' }), refused(b.url, 307));
    assert.ok(sessionIds.length > 0);
    assert.deepEqual(b.seen, []);
  } finally {
    await client.close();
    await a.close();
    await b.close();
  }
  assert.deepEqual(b.seen, [], 'not even the DELETE of close()');
});

test('same-origin 307 and 308 redirects are followed with the body (a moved endpoint keeps working, in both eras)', async () => {
  const mcp = createNodeHandler(buildFixtureServer());
  const moved: string[] = [];
  const server = await nodeServer((req, res) => {
    if (req.url === '/old') {
      moved.push(req.method ?? '');
      return res.writeHead(req.method === 'POST' ? 307 : 308, { location: '/mcp' }).end();
    }
    mcp(req, res);
  });
  const old = new URL('/old', server.url);
  try {
    for (const protocolVersion of ['2026-07-28', '2025-11-25'] as const) {
      const client = await connect(old, { protocolVersion });
      try {
        assert.equal(textOf(await client.callTool('echo', { text: protocolVersion })), `echo: ${protocolVersion}`);
      } finally {
        await client.close();
      }
    }
    assert.ok(moved.includes('POST'));
  } finally {
    await server.close();
  }
});

test('a same-origin 301, 302 or 303 on a POST is not followed (it would become a GET without its body); the error names the target', async () => {
  for (const status of [301, 302, 303]) {
    const server = await nodeServer((_req, res) => res.writeHead(status, { location: '/elsewhere' }).end());
    try {
      await assert.rejects(
        connect(server.url),
        (e: unknown) =>
          e instanceof ChannelError &&
          e.status === status &&
          e.message.includes(`(HTTP ${status}) to ${new URL('/elsewhere', server.url).href}, which would turn the POST into a GET`),
      );
    } finally {
      await server.close();
    }
  }
});
