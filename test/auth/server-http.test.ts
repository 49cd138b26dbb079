/**
 * The protected MCP server (the server side of authorization): `janus-mcp/http` with `auth` is an OAuth 2.1
 * resource server in front of a real authorization server (oidc-provider, in-process), over
 * real loopback HTTP, in both eras (2025-11-25 sessions and 2026-07-28). It serves its
 * protected resource metadata (RFC 9728), challenges requests without a token (401), refuses
 * bad tokens (another audience, expired, another issuer) with `invalid_token`, refuses missing
 * scopes with 403 `insufficient_scope` naming them (also per tool, prompt and resource), and
 * hands the verified identity to handlers and middleware as `ctx.auth`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServer, type AuthInfo, type Server } from '../../src/server/index.js';
import type { ResourceServerOptions } from '../../src/transports/http/index.js';
import { serve, type Served } from '../http-e2e/support.js';
import { MODERN } from '../support/common.js';
import { until } from '../support/wait.js';
import {
  BearerPeer,
  CLIENT,
  challengeParams,
  OTHER_CLIENT,
  RS_CLIENT,
  startAuthorizationServer,
  type AuthorizationServer,
} from './server-support.js';

const LEGACY = '2025-11-25';
const INITIALIZE = { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'auth-test', version: '1.0.0' } };

let as: AuthorizationServer;
let otherAs: AuthorizationServer;
before(async () => {
  [as, otherAs] = await Promise.all([startAuthorizationServer(), startAuthorizationServer()]);
});
after(async () => {
  await Promise.all([as?.stop(), otherAs?.stop()]);
});

/** A notes server: `whoami` shows `ctx.auth`, `write_note` needs notes:write, the prompt and resource notes:read. */
function notesServer(seen: Array<AuthInfo | undefined>): Server {
  const server = createServer({ name: 'notes', version: '1.0.0' });
  server.use((ctx, next) => {
    seen.push(ctx.auth);
    return next();
  });
  server.tool('whoami', (_args, ctx) => {
    const { token: _token, claims: _claims, ...shown } = ctx.auth ?? ({} as AuthInfo);
    return { content: [{ type: 'text', text: JSON.stringify(shown) }], structuredContent: { principalKnown: ctx.auth !== undefined } };
  });
  server.tool('write_note', { scopes: ['notes:write'] }, () => 'written');
  server.tool('confirm', async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return answer.action;
  });
  server.prompt('read_notes', { scopes: ['notes:read'] }, () => 'the notes');
  server.resource('notes://all', { name: 'all notes', scopes: ['notes:read'] }, 'every note');
  return server;
}

interface Protected {
  readonly served: Served;
  readonly resource: string;
  readonly seen: Array<AuthInfo | undefined>;
}

async function protectedServer(auth: Partial<ResourceServerOptions> = {}): Promise<Protected> {
  const seen: Array<AuthInfo | undefined> = [];
  const served = await serve(notesServer(seen), { auth: { issuer: as.issuer, scopes: ['mcp'], ...auth } });
  return { served, resource: served.url.href, seen };
}

/** A peer of `era` with a token; legacy peers open their session first. */
async function peer(p: Protected, era: 'legacy' | 'modern', token?: string): Promise<BearerPeer> {
  const peer = new BearerPeer(p.served.url, era === 'modern' ? MODERN : LEGACY, token);
  if (era === 'legacy' && token !== undefined) await peer.initialize();
  return peer;
}

/** tools/call in either era. */
function callTool(peer: BearerPeer, name: string) {
  return peer.revision === MODERN
    ? peer.modern('tools/call', { name, arguments: {} })
    : peer.request('tools/call', { name, arguments: {} });
}

function metadataUrlOf(resource: string): string {
  const u = new URL(resource);
  return `${u.origin}/.well-known/oauth-protected-resource${u.pathname}`;
}

describe('protected resource metadata (RFC 9728)', () => {
  let p: Protected;
  before(async () => {
    p = await protectedServer({ resourceName: 'Notes' });
  });
  after(() => p.served.close());

  test('is served at the endpoint path form and the root form, readable from any origin', async () => {
    const u = new URL(p.resource);
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await new BearerPeer(p.served.url, MODERN).send({
        method: 'GET',
        url: new URL(path, u.origin),
        headers: { origin: 'https://inspector.example' },
      });
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['access-control-allow-origin'], '*');
      assert.deepEqual(JSON.parse(await r.text()), {
        resource: p.resource,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp'],
        resource_name: 'Notes',
        dpop_signing_alg_values_supported: [
          'ES256',
          'ES384',
          'ES512',
          'EdDSA',
          'Ed25519',
          'RS256',
          'RS384',
          'RS512',
          'PS256',
          'PS384',
          'PS512',
        ],
      });
    }
  });

  test('is not served for another endpoint path, and the MCP endpoint itself still refuses foreign origins', async () => {
    const peer = new BearerPeer(p.served.url, MODERN);
    const other = await peer.send({ method: 'GET', url: new URL('/.well-known/oauth-protected-resource/other', p.resource) });
    assert.equal(other.status, 404);
    await other.text();
    const foreign = await peer.finish(await peer.open(peer.modernBody('ping'), { origin: 'https://evil.example', 'mcp-method': 'ping' }));
    assert.equal(foreign.status, 403);
  });
});

describe('requests without a token get 401 with a challenge, in both eras', () => {
  let p: Protected;
  before(async () => {
    p = await protectedServer();
  });
  after(() => p.served.close());

  const expectChallenge = (o: { status: number; headers: Record<string, unknown> }, what: string) => {
    assert.equal(o.status, 401, what);
    const c = challengeParams(o.headers['www-authenticate'] as string);
    assert.deepEqual(c, { scope: 'mcp', resource_metadata: metadataUrlOf(p.resource) }, what);
  };

  test('2026-07-28 POST', async () => {
    const anonymous = await peer(p, 'modern');
    const o = await anonymous.modern('tools/call', { name: 'whoami', arguments: {} });
    expectChallenge(o, 'modern tools/call');
    assert.match(o.messages[0]!.error?.message ?? '', /Unauthorized/);
  });

  test('2025-11-25 initialize, GET and DELETE', async () => {
    const anonymous = await peer(p, 'legacy');
    const init = await anonymous.request('initialize', INITIALIZE);
    expectChallenge(init, 'initialize');
    assert.equal(p.served.sessions.size, 0, 'no session was opened');
    anonymous.sessionId = 'made-up';
    const get = await anonymous.get();
    expectChallenge({ status: get.status, headers: get.headers }, 'GET');
    await get.text();
    const del = await anonymous.send({ method: 'DELETE', headers: anonymous.sessionHeaders() });
    expectChallenge({ status: del.status, headers: del.headers }, 'DELETE');
    await del.text();
  });

  test('a malformed Authorization header is invalid_request', async () => {
    const anonymous = await peer(p, 'modern');
    const o = await anonymous.modern('ping', {}, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    assert.equal(o.status, 401);
    assert.equal(challengeParams(o.headers['www-authenticate']).error, 'invalid_request');
  });
});

for (const era of ['modern', 'legacy'] as const) {
  describe(`tokens on the ${era === 'modern' ? '2026-07-28' : '2025-11-25'} wire`, () => {
    let p: Protected;
    before(async () => {
      p = await protectedServer();
    });
    after(() => p.served.close());

    test('a valid token is accepted and its identity is ctx.auth, for handlers and middleware', async () => {
      const token = await as.token(p.resource, 'mcp notes:read');
      const client = await peer(p, era, token);
      const o = await callTool(client, 'whoami');
      assert.equal(o.status, 200, JSON.stringify(o.messages));
      const auth = JSON.parse(o.messages[0]!.result.content[0].text);
      assert.equal(auth.clientId, CLIENT.id);
      assert.equal(auth.issuer, as.issuer);
      assert.deepEqual(auth.audience, [p.resource]);
      assert.deepEqual([...auth.scopes].sort(), ['mcp', 'notes:read']);
      assert.ok(auth.expiresAt > Date.now() / 1000);
      const last = p.seen.at(-1);
      assert.equal(last?.token, token);
      assert.equal(last?.claims.iss, as.issuer);
      client.assertClean();
    });

    test('a token issued for another audience is refused: 401 invalid_token', async () => {
      const token = await as.token('http://127.0.0.1:1/mcp', 'mcp');
      const client = new BearerPeer(p.served.url, era === 'modern' ? MODERN : LEGACY, token);
      const o = era === 'modern' ? await callTool(client, 'whoami') : await client.request('initialize', INITIALIZE);
      assertInvalid(o, /not issued for this resource/);
    });

    test('an expired token is refused: 401 invalid_token', async () => {
      // `exp` is whole seconds after an `iat` rounded down: a ttl of 1 left as little as a few ms to
      // open the session with on a busy machine; 3 leaves at least 2 s.
      const token = await as.token(p.resource, 'mcp', { ttl: 3 });
      const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number };
      const client = await peer(p, era, token); // accepted while fresh (a legacy session opens)
      await until(() => Date.now() / 1000 > exp, 'the token to expire');
      assertInvalid(await callTool(client, 'whoami'), /expired/);
    });

    test('a token from another authorization server is refused: 401 invalid_token', async () => {
      const token = await otherAs.token(p.resource, 'mcp');
      const client = new BearerPeer(p.served.url, era === 'modern' ? MODERN : LEGACY, token);
      const o = era === 'modern' ? await callTool(client, 'whoami') : await client.request('initialize', INITIALIZE);
      assertInvalid(o, /signature|authorization server/);
    });

    test('a token without a scope every request needs is refused: 403 insufficient_scope naming it', async () => {
      const token = await as.token(p.resource, 'notes:read');
      const client = new BearerPeer(p.served.url, era === 'modern' ? MODERN : LEGACY, token);
      const o = era === 'modern' ? await callTool(client, 'whoami') : await client.request('initialize', INITIALIZE);
      assert.equal(o.status, 403);
      assert.deepEqual(challengeParams(o.headers['www-authenticate']), {
        error: 'insufficient_scope',
        error_description: 'this operation needs the scope mcp',
        scope: 'mcp',
        resource_metadata: metadataUrlOf(p.resource),
      });
    });

    test('per-tool, per-prompt and per-resource scopes: 403 naming the operation scopes; listing still shows them', async () => {
      const reader = await peer(p, era, await as.token(p.resource, 'mcp notes:read'));
      const id = reader.id() + 1000;
      const refused =
        reader.revision === MODERN
          ? await reader.modern('tools/call', { name: 'write_note', arguments: {} }, { id })
          : await reader.request('tools/call', { name: 'write_note', arguments: {} }, { id });
      assert.equal(refused.status, 403);
      assert.equal(refused.messages[0]!.id, id);
      const c = challengeParams(refused.headers['www-authenticate']);
      assert.equal(c.error, 'insufficient_scope');
      assert.equal(c.scope, 'mcp notes:write');
      const list = reader.revision === MODERN ? await reader.modern('tools/list') : await reader.request('tools/list');
      assert.deepEqual(
        list.messages[0]!.result.tools.map((t: { name: string }) => t.name),
        ['whoami', 'write_note', 'confirm'],
      );
      const read =
        reader.revision === MODERN
          ? await reader.modern('resources/read', { uri: 'notes://all' })
          : await reader.request('resources/read', { uri: 'notes://all' });
      assert.equal(read.messages[0]!.result.contents[0].text, 'every note');

      const minimal = await peer(p, era, await as.token(p.resource, 'mcp'));
      for (const [method, params] of [
        ['prompts/get', { name: 'read_notes' }],
        ['resources/read', { uri: 'notes://all' }],
      ] as const) {
        const o = minimal.revision === MODERN ? await minimal.modern(method, params) : await minimal.request(method, params);
        assert.equal(o.status, 403, method);
        assert.equal(challengeParams(o.headers['www-authenticate']).scope, 'mcp notes:read', method);
      }

      const writer = await peer(p, era, await as.token(p.resource, 'mcp notes:write'));
      const written = await callTool(writer, 'write_note');
      assert.equal(written.status, 200);
      assert.equal(written.messages[0]!.result.content[0].text, 'written');
    });
  });
}

function assertInvalid(o: { status: number; headers: Record<string, unknown> }, description: RegExp): void {
  assert.equal(o.status, 401);
  const c = challengeParams(o.headers['www-authenticate'] as string);
  assert.equal(c.error, 'invalid_token');
  assert.match(c.error_description ?? '', description);
  assert.ok(c.resource_metadata?.includes('/.well-known/oauth-protected-resource/mcp'));
}

describe('who may use what', () => {
  let p: Protected;
  before(async () => {
    p = await protectedServer();
  });
  after(() => p.served.close());

  test('a 2025-11-25 session belongs to whoever opened it: another caller with a valid token gets 404', async () => {
    const owner = await peer(p, 'legacy', await as.token(p.resource, 'mcp'));
    const intruder = new BearerPeer(p.served.url, LEGACY, await as.token(p.resource, 'mcp', { client: OTHER_CLIENT }));
    intruder.sessionId = owner.sessionId;
    const o = await intruder.request('tools/call', { name: 'whoami', arguments: {} });
    assert.equal(o.status, 404);
    const del = await intruder.send({ method: 'DELETE', headers: intruder.sessionHeaders() });
    assert.equal(del.status, 404);
    await del.text();
    const still = await owner.request('tools/call', { name: 'whoami', arguments: {} });
    assert.equal(JSON.parse(still.messages[0]!.result.content[0].text).clientId, CLIENT.id);
  });

  test('a 2026-07-28 requestState is bound to the token subject: another caller cannot complete the round', async () => {
    const caps = { elicitation: { form: {} } };
    const owner = await peer(p, 'modern', await as.token(p.resource, 'mcp'));
    const first = await owner.modern('tools/call', { name: 'confirm', arguments: {} }, { caps });
    const round = first.messages[0]!.result;
    assert.equal(round.resultType, 'input_required', JSON.stringify(first.messages));
    const [key] = Object.keys(round.inputRequests);
    const retry = {
      name: 'confirm',
      arguments: {},
      requestState: round.requestState,
      inputResponses: { [key!]: { action: 'accept', content: { ok: true } } },
    };
    const intruder = await peer(p, 'modern', await as.token(p.resource, 'mcp', { client: OTHER_CLIENT }));
    const stolen = await intruder.modern('tools/call', retry, { caps });
    assert.match(stolen.messages[0]!.error?.message ?? '', /different client/);
    const done = await owner.modern('tools/call', retry, { caps });
    assert.equal(done.messages[0]!.result.content[0].text, 'accept', JSON.stringify(done.messages));
  });

  test("a 2024-11-05 HTTP+SSE session too: POSTs with another caller's token find no session", async () => {
    const owner = new BearerPeer(p.served.url, '2024-11-05', await as.token(p.resource, 'mcp'));
    const stream = await owner.get({ 'mcp-protocol-version': undefined });
    assert.equal(stream.status, 200);
    const endpoint = await stream.next();
    const postUrl = new URL(endpoint.data, p.served.url);
    const intruder = new BearerPeer(p.served.url, '2024-11-05', await as.token(p.resource, 'mcp', { client: OTHER_CLIENT }));
    const refused = await intruder.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, {}, postUrl);
    assert.equal(refused.status, 404);
    const accepted = await owner.post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...INITIALIZE, protocolVersion: '2024-11-05' } },
      {},
      postUrl,
    );
    assert.equal(accepted.status, 202);
    assert.equal((await stream.next()).message?.result?.protocolVersion, '2024-11-05');
    stream.abort();
  });
});

describe('options', () => {
  test('impliedScopes: a broader scope covers the narrower ones a tool needs', async () => {
    const p = await protectedServer({ impliedScopes: { mcp: ['notes:write'] } });
    try {
      const client = await peer(p, 'modern', await as.token(p.resource, 'mcp'));
      assert.equal((await callTool(client, 'write_note')).status, 200);
    } finally {
      await p.served.close();
    }
  });

  test('introspection (RFC 7662): an opaque token is accepted when active and for this resource, refused otherwise', async () => {
    const p = await protectedServer({ introspection: { clientId: RS_CLIENT.id, clientSecret: RS_CLIENT.secret } });
    try {
      const good = await peer(p, 'modern', await as.token(p.resource, 'mcp', { opaque: true }));
      const o = await callTool(good, 'whoami');
      assert.equal(o.status, 200, JSON.stringify(o.messages));
      assert.equal(JSON.parse(o.messages[0]!.result.content[0].text).clientId, CLIENT.id);
      const foreign = await peer(p, 'modern', await as.token('http://127.0.0.1:1/mcp', 'mcp', { opaque: true }));
      assertInvalid(await callTool(foreign, 'whoami'), /not issued for this resource/);
      const made = await peer(p, 'modern', 'not-a-token-the-server-issued');
      assertInvalid(await callTool(made, 'whoami'), /not active/);
    } finally {
      await p.served.close();
    }
  });
});
