/**
 * The verified-token cache of the protected MCP server (`auth.tokenCache`), in front of a real
 * authorization server (oidc-provider, in-process) over loopback HTTP. A token seen again is
 * not verified again: its request gets the very identity object (`ctx.auth`) verified the
 * first time, frozen. What the cache must not change: an expired token is refused, a token
 * with a bad signature or changed claims is refused, the audience (the resource the request
 * reached) and the scopes still apply, the key set going stale ends the reuse, the bound
 * evicts, and an introspection answer is reused only for `introspectionMaxAgeSec`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { InvalidTokenError } from '../../src/errors/index.js';
import { createServer, type AuthInfo, type Server } from '../../src/server/index.js';
import type { ResourceServerOptions } from '../../src/transports/http/index.js';
import { serve, type Served } from '../http-e2e/support.js';
import { MODERN } from '../support/common.js';
import { withClock } from '../support/wait.js';
import { BearerPeer, challengeParams, RS_CLIENT, startAuthorizationServer, type AuthorizationServer } from './server-support.js';

let as: AuthorizationServer;
before(async () => {
  as = await startAuthorizationServer();
});
after(() => as?.stop());

interface Protected {
  readonly served: Served;
  readonly resource: string;
  /** `ctx.auth` of every request, in order. */
  readonly seen: Array<AuthInfo | undefined>;
}

async function protectedServer(auth: Partial<ResourceServerOptions> = {}, issuer = as.issuer): Promise<Protected> {
  const seen: Array<AuthInfo | undefined> = [];
  const server: Server = createServer({ name: 'notes', version: '1.0.0' });
  server.use((ctx, next) => {
    seen.push(ctx.auth);
    return next();
  });
  server.tool('whoami', (_args, ctx) => ctx.auth?.clientId ?? 'nobody');
  server.tool('write_note', { scopes: ['notes:write'] }, () => 'written');
  const served = await serve(server, { auth: { issuer, scopes: ['mcp'], ...auth } });
  return { served, resource: served.url.href, seen };
}

/** A 2026-07-28 tools/call with `token` (and more headers). */
function call(p: Protected, token: string, tool = 'whoami', headers: Record<string, string> = {}) {
  return new BearerPeer(p.served.url, MODERN, token).modern('tools/call', { name: tool, arguments: {} }, { headers });
}

/** Calls `whoami` with `token`, expects 200, and returns the `ctx.auth` the handler saw. */
async function identity(p: Protected, token: string): Promise<AuthInfo> {
  const o = await call(p, token);
  assert.equal(o.status, 200, JSON.stringify(o.messages));
  const auth = p.seen.at(-1);
  assert.ok(auth !== undefined);
  assert.equal(auth.token, token);
  return auth;
}

function expOf(token: string): number {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp;
}

function assertInvalid(o: { status: number; headers: Record<string, unknown> }, description: RegExp): void {
  assert.equal(o.status, 401);
  const c = challengeParams(o.headers['www-authenticate'] as string);
  assert.equal(c.error, 'invalid_token');
  assert.match(c.error_description ?? '', description);
}

describe('JWT access tokens', () => {
  let p: Protected;
  before(async () => {
    p = await protectedServer();
  });
  after(() => p.served.close());

  test('a token verified once is reused: the same identity, frozen; another token is verified on its own', async () => {
    const token = await as.token(p.resource, 'mcp');
    const first = await identity(p, token);
    assert.equal(await identity(p, token), first, 'the second request reuses the first verification');
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.scopes) && Object.isFrozen(first.claims));
    const other = await identity(p, await as.token(p.resource, 'mcp'));
    assert.notEqual(other, first);
  });

  test('while a token is cached, the same claims with a bad signature, or changed claims, are refused', async () => {
    const token = await as.token(p.resource, 'mcp');
    await identity(p, token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const another = (await as.token(p.resource, 'mcp')).split('.')[2]!;
    assertInvalid(await call(p, `${header}.${payload}.${another}`), /signature/);
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    assertInvalid(await call(p, `${header}.${payload}.${flipped}`), /signature|not a valid JWT/);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const widened = Buffer.from(JSON.stringify({ ...claims, scope: 'mcp notes:write' })).toString('base64url');
    assertInvalid(await call(p, `${header}.${widened}.${signature}`), /signature/);
    assert.equal((await call(p, token)).status, 200, 'the good token is still accepted');
  });

  test('an expired token is refused though it was cached, from the second of its exp on', async () => {
    const token = await as.token(p.resource, 'mcp', { ttl: 60 });
    const cached = await identity(p, token);
    await withClock(async (clock) => {
      clock.now = expOf(token) * 1000 - 1;
      assert.equal(await identity(p, token), cached, 'still reused the millisecond before exp');
      clock.now = expOf(token) * 1000;
      assertInvalid(await call(p, token), /expired/);
    });
  });

  test('the scopes still apply to a cached token: every request and each tool', async () => {
    const token = await as.token(p.resource, 'mcp');
    await identity(p, token);
    for (let i = 0; i < 2; i++) {
      const o = await call(p, token, 'write_note');
      assert.equal(o.status, 403);
      assert.equal(challengeParams(o.headers['www-authenticate']).scope, 'mcp notes:write');
    }
    const unscoped = await as.token(p.resource, 'notes:read');
    for (let i = 0; i < 2; i++) {
      const o = await call(p, unscoped);
      assert.equal(o.status, 403);
      assert.equal(challengeParams(o.headers['www-authenticate']).error, 'insufficient_scope');
    }
  });

  test('the audience still applies: a token cached for the resource at 127.0.0.1 is refused at localhost', async () => {
    const token = await as.token(p.resource, 'mcp');
    await identity(p, token);
    const o = await call(p, token, 'whoami', { host: `localhost:${p.served.url.port}` });
    assertInvalid(o, /not issued for this resource/);
    assert.equal((await call(p, token)).status, 200);
  });

  test('the key set going stale (jose refetches it after 10 minutes) ends the reuse: verified again, then reused again', async () => {
    const token = await as.token(p.resource, 'mcp', { ttl: 3600 });
    const first = await identity(p, token);
    await withClock(async (clock) => {
      clock.now += 10 * 60_000 + 1000;
      const second = await identity(p, token);
      assert.notEqual(second, first, 'verified again against the refetched key set');
      assert.equal(await identity(p, token), second);
    });
  });
});

describe('options', () => {
  test('tokenCache.maxEntries bounds the cache: the oldest token goes first', async () => {
    const p = await protectedServer({ tokenCache: { maxEntries: 1 } });
    try {
      const [a, b] = await Promise.all([as.token(p.resource, 'mcp'), as.token(p.resource, 'mcp')]);
      const first = await identity(p, a);
      assert.equal(await identity(p, a), first);
      await identity(p, b);
      assert.notEqual(await identity(p, a), first, 'a was evicted by b, and verified again');
    } finally {
      await p.served.close();
    }
  });

  test('tokenCache: false verifies every request', async () => {
    const p = await protectedServer({ tokenCache: false });
    try {
      const token = await as.token(p.resource, 'mcp');
      assert.notEqual(await identity(p, token), await identity(p, token));
    } finally {
      await p.served.close();
    }
  });

  test('a custom verify is asked every request', async () => {
    let asked = 0;
    const p = await protectedServer({
      verify: async (token, { resource, issuer }) => {
        asked++;
        return { subject: 'me', clientId: 'app', scopes: ['mcp'], issuer, audience: [resource], expiresAt: undefined, claims: {}, token };
      },
    });
    try {
      await identity(p, 'some-token');
      await identity(p, 'some-token');
      assert.equal(asked, 2);
    } finally {
      await p.served.close();
    }
  });

  test('a custom verify refuses a token by throwing InvalidTokenError (401 invalid_token); any other failure is 503', async () => {
    const p = await protectedServer({
      verify: async (token, { resource, issuer }) => {
        if (token === 'revoked') throw new InvalidTokenError('this token was revoked');
        if (token === 'store-down') throw new Error('the token store is down');
        return { subject: 'me', clientId: 'app', scopes: ['mcp'], issuer, audience: [resource], expiresAt: undefined, claims: {}, token };
      },
    });
    try {
      assertInvalid(await call(p, 'revoked'), /this token was revoked/);
      assert.equal(p.served.errors.length, 0, 'a refused token is no failure of the server');
      assert.equal((await call(p, 'store-down')).status, 503);
      const reported = p.served.errors.map((e) => (e instanceof Error && e.cause instanceof Error ? e.cause.message : String(e)));
      assert.deepEqual(reported, ['the token store is down'], "the failure goes to the server's onError");
      await identity(p, 'fine');
    } finally {
      await p.served.close({ allowErrors: true });
    }
  });

  test('tokenCache.maxEntries must be a number of 0 or more', async () => {
    const server = createServer({ name: 'x', version: '1.0.0' });
    await assert.rejects(
      serve(server, { auth: { issuer: as.issuer, tokenCache: { maxEntries: -1 } } }),
      /auth\.tokenCache\.maxEntries must be a number of 0 or more/,
    );
  });
});

describe('introspection (RFC 7662): an answer is reused for introspectionMaxAgeSec', () => {
  const introspection = { clientId: RS_CLIENT.id, clientSecret: RS_CLIENT.secret };

  test('a token introspected once is accepted without the authorization server until the answer is 60 s old', async () => {
    const own = await startAuthorizationServer();
    const p = await protectedServer({ introspection }, own.issuer);
    try {
      const [a, b] = await Promise.all([own.token(p.resource, 'mcp', { opaque: true }), own.token(p.resource, 'mcp', { opaque: true })]);
      const first = await identity(p, a);
      await own.stop();
      await withClock(async (clock) => {
        assert.equal(await identity(p, a), first, 'reused: the authorization server is not asked');
        assert.equal((await call(p, b)).status, 503, 'a token not seen before needs the authorization server');
        clock.now += 60_000;
        assert.equal((await call(p, a)).status, 503, 'after 60 s the answer is not reused');
      });
    } finally {
      await own.stop();
      await p.served.close({ allowErrors: true });
    }
  });

  test('introspectionMaxAgeSec: 0 asks every request', async () => {
    const own = await startAuthorizationServer();
    const p = await protectedServer({ introspection, tokenCache: { introspectionMaxAgeSec: 0 } }, own.issuer);
    try {
      const token = await own.token(p.resource, 'mcp', { opaque: true });
      await identity(p, token);
      await own.stop();
      assert.equal((await call(p, token)).status, 503);
    } finally {
      await own.stop();
      await p.served.close({ allowErrors: true });
    }
  });
});
