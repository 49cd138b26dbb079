/**
 * The OAuth client's grants without a user, against a real authorization server (oidc-provider,
 * server-support.ts) and a Janus server protected by janus-mcp/http's `auth` option: the client
 * credentials grant with client_secret_basic and with private_key_jwt, and DPoP-bound tokens
 * (RFC 9449) end to end, proofs at the token endpoint and at the MCP server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as jose from 'jose';
import { connect, type OAuthClientOptions } from '../../src/client/index.js';
import { JanusError } from '../../src/errors/index.js';
import { createServer } from '../../src/server/index.js';
import type { ResourceServerOptions } from '../../src/transports/http/index.js';
import { serve, type Served } from '../http-e2e/support.js';
import { CLIENT, startAuthorizationServer, type AuthorizationServer } from './server-support.js';

const JWT_CLIENT = 'mcp-jwt-client';
let as: AuthorizationServer;
let privateKeyPem: string;

before(async () => {
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
  privateKeyPem = await jose.exportPKCS8(privateKey);
  as = await startAuthorizationServer({
    clients: [
      {
        client_id: JWT_CLIENT,
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: { keys: [{ ...(await jose.exportJWK(publicKey)), alg: 'ES256', use: 'sig' }] },
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: 'mcp',
      },
    ],
  });
});
after(() => as?.stop());

/** A Janus server that needs scope `mcp`; its tool tells who called and the token's confirmation claim. */
async function protectedServer(auth: Partial<ResourceServerOptions> = {}): Promise<Served> {
  const server = createServer({ name: 'grants', version: '1.0.0' });
  server.tool('whoami', (_a, ctx) => JSON.stringify({ clientId: ctx.auth?.clientId, cnf: ctx.auth?.claims.cnf }));
  return serve(server, { auth: { issuer: as.issuer, scopes: ['mcp'], ...auth } });
}

/** Connects with `auth`, calls whoami and returns what it saw. */
async function whoami(served: Served, auth: OAuthClientOptions): Promise<{ clientId?: string; cnf?: { jkt?: string } }> {
  const client = await connect(served.url, { auth });
  try {
    const result = await client.callTool('whoami', {});
    const first = result.content[0] as { type: string; text: string };
    return JSON.parse(first.text);
  } finally {
    await client.close();
  }
}

describe('OAuth client: client credentials grant against oidc-provider', () => {
  let served: Served;
  before(async () => {
    served = await protectedServer();
  });
  after(() => served.close());

  test('client_secret_basic: a token for the server without a user or a redirect', async () => {
    const seen = await whoami(served, { grant: { type: 'client_credentials', clientId: CLIENT.id, clientSecret: CLIENT.secret } });
    assert.equal(seen.clientId, CLIENT.id);
  });

  test('private_key_jwt: the client assertion is signed with the PEM key', async () => {
    const seen = await whoami(served, {
      grant: { type: 'client_credentials', clientId: JWT_CLIENT, privateKey: privateKeyPem, signingAlgorithm: 'ES256' },
    });
    assert.equal(seen.clientId, JWT_CLIENT);
  });

  test('private_key_jwt with another key: a JanusError AUTH naming the refusal', async () => {
    const other = await jose.exportPKCS8((await jose.generateKeyPair('ES256', { extractable: true })).privateKey);
    await assert.rejects(
      whoami(served, { grant: { type: 'client_credentials', clientId: JWT_CLIENT, privateKey: other } }),
      (e: unknown) => e instanceof JanusError && e.code === 'AUTH' && /invalid_client/.test(e.message),
    );
  });
});

describe('OAuth client: DPoP-bound tokens end to end', () => {
  let served: Served;
  before(async () => {
    served = await protectedServer({ dpop: { required: true } });
  });
  after(() => served.close());

  const grant = { type: 'client_credentials', clientId: CLIENT.id, clientSecret: CLIENT.secret } as const;

  test('dpop: the token is bound to the client key (cnf.jkt) and accepted with proofs', async () => {
    const seen = await whoami(served, { grant, dpop: true });
    assert.equal(seen.clientId, CLIENT.id);
    assert.equal(typeof seen.cnf?.jkt, 'string');
  });

  test('without dpop, the server that requires it refuses the bearer token', async () => {
    await assert.rejects(
      whoami(served, { grant, maxAuthorizationAttempts: 1 }),
      (e: unknown) => e instanceof JanusError && e.code === 'AUTH',
    );
  });
});

describe('OAuth client: DPoP nonce from the authorization server', () => {
  let nonceAs: AuthorizationServer;
  let served: Served;
  before(async () => {
    nonceAs = await startAuthorizationServer({ dpopNonce: true });
    const server = createServer({ name: 'grants', version: '1.0.0' });
    server.tool('whoami', (_a, ctx) => JSON.stringify({ clientId: ctx.auth?.clientId, cnf: ctx.auth?.claims.cnf }));
    served = await serve(server, { auth: { issuer: nonceAs.issuer, scopes: ['mcp'], dpop: { required: true } } });
  });
  after(async () => {
    await served?.close();
    await nonceAs?.stop();
  });

  test('the token request refused with use_dpop_nonce goes again with the nonce', async () => {
    const seen = await whoami(served, {
      grant: { type: 'client_credentials', clientId: CLIENT.id, clientSecret: CLIENT.secret },
      dpop: true,
    });
    assert.equal(typeof seen.cnf?.jkt, 'string');
  });
});
