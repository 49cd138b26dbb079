/**
 * The OAuth client (`connect(url, { auth })`) against a real authorization server
 * (oidc-provider, client-support.ts) and a protected Janus server: the authorization code flow
 * with the browser step played by the test, in both eras; tokens reused, refreshed when refused
 * or expired; step-up on 403 insufficient_scope; and the refusals that must stop the flow
 * before anything reaches the authorization server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, FileTokenStore, OAuthClient, type ConnectOptions, type OAuthClientOptions } from '../../src/client/index.js';
import { JanusError } from '../../src/errors/index.js';
import { withClock } from '../support/wait.js';
import {
  browserRedirect,
  REDIRECT_URI,
  startAuthorizationServer,
  startProtectedServer,
  type ProtectedServer,
  type TestAuthorizationServer,
} from './client-support.js';

const TTL = 300;
let as: TestAuthorizationServer;

before(async () => {
  as = await startAuthorizationServer({ accessTokenTTL: TTL });
});
after(() => as.stop());

/** Runs `fn` against a fresh protected server, stopped afterwards. */
async function withServer(fn: (ps: ProtectedServer) => Promise<void>): Promise<void> {
  const ps = await startProtectedServer(as.issuer);
  try {
    await fn(ps);
  } finally {
    await ps.stop();
  }
}

function options(extra: Partial<OAuthClientOptions> = {}): OAuthClientOptions {
  return { redirectUri: REDIRECT_URI, redirect: browserRedirect(), ...extra };
}

/** Connects and lists the tools (a pinned 2026-07-28 connection sends nothing before its first request). */
async function listTools(ps: ProtectedServer, opts: ConnectOptions): Promise<void> {
  const client = await connect(ps.url, opts);
  try {
    await client.listTools();
  } finally {
    await client.close();
  }
}

/** The authorization requests made since `from`. */
const since = (from: number) => as.authorizations.slice(from);

describe('OAuth client: authorization code flow against oidc-provider', () => {
  for (const protocolVersion of ['2025-11-25', '2026-07-28', undefined] as const) {
    test(`a 401 runs the flow and the request goes through with the token (${protocolVersion ?? 'era detected'})`, async () => {
      await withServer(async (ps) => {
        const from = as.authorizations.length;
        const registrations = as.requests.filter((r) => r === 'POST /reg').length;
        const client = await connect(ps.url, { protocolVersion, auth: options() });
        try {
          const { tools } = await client.listTools();
          assert.deepEqual(
            tools.map((t) => t.name),
            ['whoami'],
          );
        } finally {
          await client.close();
        }
        const [auth, ...more] = since(from);
        assert.ok(auth, 'no authorization request');
        assert.equal(more.length, 0);
        assert.equal(auth.get('code_challenge_method'), 'S256');
        assert.ok(auth.get('code_challenge'));
        // RFC 8707: the resource exactly as its metadata publishes it.
        assert.equal(auth.get('resource'), ps.url.href);
        // The challenge's scope, and offline_access since the authorization server offers it.
        assert.deepEqual(auth.get('scope')?.split(' ').sort(), ['mcp:read', 'offline_access']);
        // Registered dynamically (no credentials were given).
        assert.equal(as.requests.filter((r) => r === 'POST /reg').length, registrations + 1);
        assert.ok(ps.accepted.length > 0, 'the server accepted no token');
      });
    });
  }

  test('the token is reused: by later requests, and by another connection of the same OAuthClient', async () => {
    await withServer(async (ps) => {
      const oauth = new OAuthClient(options());
      const from = as.authorizations.length;
      const first = await connect(ps.url, { protocolVersion: '2026-07-28', auth: oauth });
      await first.listTools();
      await first.listTools();
      await first.close();
      const challenges = ps.challenges;
      const second = await connect(ps.url, { protocolVersion: '2026-07-28', auth: oauth });
      await second.listTools();
      await second.close();
      assert.equal(ps.challenges, challenges, 'the second connection started with the token');
      assert.equal(since(from).length, 1, 'one authorization for everything');
      assert.equal(new Set(ps.accepted).size, 1, 'one token for every request');
      assert.equal(ps.accepted.length, 3);
    });
  });

  test('a refused token is refreshed (no new authorization)', async () => {
    await withServer(async (ps) => {
      const from = as.authorizations.length;
      const refreshes = as.grants.filter((g) => g === 'refresh_token').length;
      const client = await connect(ps.url, { protocolVersion: '2026-07-28', auth: options() });
      try {
        await client.listTools();
        const old = ps.accepted.at(-1)!;
        ps.refused.add(old);
        await client.listTools();
        assert.notEqual(ps.accepted.at(-1), old);
      } finally {
        await client.close();
      }
      assert.equal(as.grants.filter((g) => g === 'refresh_token').length, refreshes + 1);
      assert.equal(since(from).length, 1);
    });
  });

  test('an expired token is refreshed before it is sent', async () => {
    await withServer(async (ps) => {
      const refreshes = as.grants.filter((g) => g === 'refresh_token').length;
      const client = await connect(ps.url, { protocolVersion: '2026-07-28', auth: options() });
      try {
        await client.listTools();
        const old = ps.accepted.at(-1)!;
        // The server would still take it: only the client's clock says it has expired.
        await withClock(async (clock) => {
          clock.now += (TTL + 1) * 1000;
          await client.listTools();
        });
        assert.equal(as.grants.filter((g) => g === 'refresh_token').length, refreshes + 1);
        assert.notEqual(ps.accepted.at(-1), old);
        assert.equal(ps.accepted.filter((t) => t === old).length, 1, 'the expired token was sent again');
      } finally {
        await client.close();
      }
    });
  });

  test('403 insufficient_scope: re-authorization with the union of the scopes, then the call goes through', async () => {
    await withServer(async (ps) => {
      const from = as.authorizations.length;
      const client = await connect(ps.url, { protocolVersion: '2026-07-28', auth: options() });
      try {
        await client.listTools();
        const result = await client.callTool('whoami', {});
        assert.equal(result.isError, undefined);
      } finally {
        await client.close();
      }
      const [first, second, ...more] = since(from);
      assert.equal(more.length, 0);
      assert.deepEqual(first?.get('scope')?.split(' ').sort(), ['mcp:read', 'offline_access']);
      assert.deepEqual(second?.get('scope')?.split(' ').sort(), ['mcp:read', 'mcp:write', 'offline_access']);
    });
  });
});

describe('OAuth client: refusals', () => {
  test('authorization server metadata for another issuer is refused; nothing reaches its endpoints', async () => {
    await withServer(async (ps) => {
      // A "fake" authorization server on the MCP server's origin serves the real one's metadata.
      const real = (await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
      const fake = `${ps.url.origin}/fake-as`;
      ps.metadata.authorization_servers = [fake];
      ps.routes.set('/.well-known/oauth-authorization-server/fake-as', () => Response.json(real));
      const before = as.requests.length;
      await assert.rejects(
        listTools(ps, { protocolVersion: '2026-07-28', auth: options() }),
        (e: unknown) =>
          e instanceof JanusError &&
          e.code === 'AUTH' &&
          e.message.includes(`says its issuer is "${as.issuer}", not "${fake}"`) &&
          e.message.includes('must not be used'),
      );
      assert.deepEqual(as.requests.slice(before), []);
    });
  });

  test('protected resource metadata for another resource is refused before any authorization', async () => {
    await withServer(async (ps) => {
      ps.metadata.resource = 'http://127.0.0.1:1/mcp';
      const before = as.requests.length;
      await assert.rejects(
        listTools(ps, { protocolVersion: '2025-11-25', auth: options() }),
        (e: unknown) =>
          e instanceof JanusError &&
          e.code === 'AUTH' &&
          e.message.includes(`is for "http://127.0.0.1:1/mcp", not for ${ps.url.href}`) &&
          e.message.includes('nothing was requested from any authorization server'),
      );
      assert.deepEqual(as.requests.slice(before), []);
    });
  });

  test('an authorization response from another issuer is refused; the code never reaches the token endpoint', async () => {
    await withServer(async (ps) => {
      const browser = browserRedirect();
      // A mix-up: the response comes back claiming another issuer.
      const redirect = async (url: URL) => {
        const back = await browser(url);
        back.searchParams.set('iss', `${as.issuer}/`);
        return back;
      };
      const tokens = as.requests.filter((r) => r === 'POST /token').length;
      await assert.rejects(
        listTools(ps, { protocolVersion: '2026-07-28', auth: options({ redirect }) }),
        (e: unknown) =>
          e instanceof JanusError && e.code === 'AUTH' && e.message.includes(`comes from "${as.issuer}/", not from "${as.issuer}"`),
      );
      assert.equal(as.requests.filter((r) => r === 'POST /token').length, tokens);
    });
  });
});

describe('OAuth client: FileTokenStore', () => {
  test('a new OAuthClient (a new process) on the same file uses its tokens and registration: no login, no registration', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'janus-tokens-'));
    const file = join(dir, 'nested', 'tokens.json');
    try {
      await withServer(async (ps) => {
        const from = as.authorizations.length;
        const first = await connect(ps.url, { protocolVersion: '2026-07-28', auth: options({ store: new FileTokenStore(file) }) });
        await first.listTools();
        await first.close();
        assert.equal((await stat(file)).mode & 0o777, 0o600);
        const registrations = as.requests.filter((r) => r === 'POST /reg').length;
        const second = await connect(ps.url, { protocolVersion: '2026-07-28', auth: options({ store: new FileTokenStore(file) }) });
        await second.listTools();
        await second.close();
        assert.equal(since(from).length, 1, 'the second client did not send the user to log in');
        assert.equal(as.requests.filter((r) => r === 'POST /reg').length, registrations, 'nor register again');
        assert.equal(new Set(ps.accepted).size, 1);
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
