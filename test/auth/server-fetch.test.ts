/**
 * The web-standard handler (`createFetchHandler`, janus-mcp/fetch) protects its endpoint the
 * same way: the resource is the URL the request reached (`https://` when it came over TLS), its
 * metadata is served, a request without a token is challenged, and a token from the real
 * authorization server for that URL is accepted and seen as `ctx.auth`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createFetchHandler } from '../../src/fetch/index.js';
import { createServer } from '../../src/server/index.js';
import { modernMeta } from '../support/peer.js';
import { challengeParams, startAuthorizationServer, type AuthorizationServer } from './server-support.js';

let as: AuthorizationServer;
before(async () => {
  as = await startAuthorizationServer();
});
after(async () => {
  await as?.stop();
});

const call = (token?: string) => {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: modernMeta() } };
  return new Request('https://localhost/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'whoami',
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
};

test('createFetchHandler with auth: metadata, challenge, and a token for the URL the request reached', async () => {
  const server = createServer({ name: 'fetch-notes', version: '1.0.0' });
  server.tool('whoami', (_a, ctx) => ctx.auth?.clientId ?? 'nobody');
  const handler = createFetchHandler(server, { auth: { issuer: as.issuer } });
  try {
    const prm = await handler(new Request('https://localhost/.well-known/oauth-protected-resource/mcp'));
    assert.equal(prm.status, 200);
    assert.equal(((await prm.json()) as { resource: string }).resource, 'https://localhost/mcp');

    const refused = await handler(call());
    assert.equal(refused.status, 401);
    assert.equal(
      challengeParams(refused.headers.get('www-authenticate') ?? undefined).resource_metadata,
      'https://localhost/.well-known/oauth-protected-resource/mcp',
    );
    await refused.text();

    const accepted = await handler(call(await as.token('https://localhost/mcp', 'mcp')));
    assert.equal(accepted.status, 200);
    const body = (await accepted.json()) as { result: { content: Array<{ text: string }> } };
    assert.equal(body.result.content[0]!.text, 'mcp-test-client');

    const plainHttp = await handler(call(await as.token('http://localhost/mcp', 'mcp')));
    assert.equal(plainHttp.status, 401, 'a token for the http:// URL is not one for the https:// endpoint');
    await plainHttp.text();
  } finally {
    await handler.close();
    server.close();
  }
});
