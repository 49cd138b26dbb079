/**
 * DPoP-bound access tokens at the protected server (RFC 9449 §7), with tokens a real
 * authorization server (oidc-provider) bound to the client's key: accepted with
 * `Authorization: DPoP` and a valid proof; refused (401) when sent as a Bearer token, with a
 * proof replayed, for another method or URL, for another token, or signed by another key; and
 * with `dpop.required`, an unbound token is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import type { ResourceServerOptions } from '../../src/transports/http/index.js';
import { serve, type Served } from '../http-e2e/support.js';
import { MODERN } from '../support/common.js';
import {
  BearerPeer,
  challengeParams,
  dpopKey,
  dpopProof,
  startAuthorizationServer,
  type AuthorizationServer,
  type DpopKey,
} from './server-support.js';

let as: AuthorizationServer;
before(async () => {
  as = await startAuthorizationServer();
});
after(async () => {
  await as?.stop();
});

async function protectedServer(auth: Partial<ResourceServerOptions> = {}): Promise<Served> {
  const server = createServer({ name: 'dpop', version: '1.0.0' });
  server.tool('whoami', (_a, ctx) => JSON.stringify({ clientId: ctx.auth?.clientId, cnf: ctx.auth?.claims.cnf }));
  return serve(server, { auth: { issuer: as.issuer, scopes: ['mcp'], ...auth } });
}

const CALL = { name: 'whoami', arguments: {} };

describe('DPoP-bound tokens', () => {
  let served: Served;
  let resource: string;
  let key: DpopKey;
  let token: string;
  before(async () => {
    served = await protectedServer();
    resource = served.url.href;
    key = await dpopKey();
    token = await as.token(resource, 'mcp', { dpop: key });
  });
  after(() => served.close());

  const call = (authorization: string, proof?: string) =>
    new BearerPeer(served.url, MODERN).modern('tools/call', CALL, { headers: { authorization, dpop: proof } });

  test('the token is bound to the key (cnf.jkt), and accepted with Authorization: DPoP and a proof', async () => {
    const o = await call(`DPoP ${token}`, await dpopProof(key, 'POST', resource, token));
    assert.equal(o.status, 200, JSON.stringify(o.messages));
    const seen = JSON.parse(o.messages[0]!.result.content[0].text);
    assert.equal(typeof seen.cnf?.jkt, 'string');
  });

  test('sent as a Bearer token it is refused: 401 invalid_token', async () => {
    const o = await call(`Bearer ${token}`);
    assert.equal(o.status, 401);
    assert.equal(challengeParams(o.headers['www-authenticate']).error, 'invalid_token');
  });

  test('a proof used twice is refused the second time: 401 invalid_dpop_proof', async () => {
    const proof = await dpopProof(key, 'POST', resource, token);
    assert.equal((await call(`DPoP ${token}`, proof)).status, 200);
    const again = await call(`DPoP ${token}`, proof);
    assert.equal(again.status, 401);
    assert.match(String(again.headers['www-authenticate']), /^DPoP /);
    assert.equal(challengeParams(again.headers['www-authenticate']).error, 'invalid_dpop_proof');
  });

  test('proofs for another method, URL or token, by another key, or none, are refused', async () => {
    const other = await dpopKey();
    const cases: Array<[string, string | undefined, RegExp]> = [
      ['no proof', undefined, /exactly one DPoP proof/],
      ['another method', await dpopProof(key, 'GET', resource, token), /htm/],
      ['another URL', await dpopProof(key, 'POST', 'http://127.0.0.1:1/mcp', token), /htu/],
      ['another token', await dpopProof(key, 'POST', resource, 'another-token'), /ath/],
      ['another key', await dpopProof(other, 'POST', resource, token), /another key/],
      ['too old', await dpopProof(key, 'POST', resource, token, { iat: Math.floor(Date.now() / 1000) - 3600 }), /iat/],
    ];
    for (const [what, proof, reason] of cases) {
      const o = await call(`DPoP ${token}`, proof);
      assert.equal(o.status, 401, what);
      const c = challengeParams(o.headers['www-authenticate']);
      assert.equal(c.error, 'invalid_dpop_proof', what);
      assert.match(c.error_description ?? '', reason, what);
    }
  });

  test('an unbound token sent with the DPoP scheme is refused', async () => {
    const bearer = await as.token(resource, 'mcp');
    const o = await call(`DPoP ${bearer}`, await dpopProof(key, 'POST', resource, bearer));
    assert.equal(o.status, 401);
    assert.equal(challengeParams(o.headers['www-authenticate']).error, 'invalid_token');
  });
});

test('dpop.required: the metadata says so, and an unbound token is refused', async () => {
  const served = await protectedServer({ dpop: { required: true } });
  try {
    const resource = served.url.href;
    const peer = new BearerPeer(served.url, MODERN);
    const prm = await peer.send({ method: 'GET', url: new URL('/.well-known/oauth-protected-resource/mcp', resource) });
    const doc = JSON.parse(await prm.text());
    assert.equal(doc.dpop_bound_access_tokens_required, true);
    assert.ok(doc.dpop_signing_alg_values_supported.includes('ES256'));
    const anonymous = await peer.modern('tools/call', CALL);
    assert.match(String(anonymous.headers['www-authenticate']), /^DPoP /);
    const bearer = await as.token(resource, 'mcp');
    const o = await new BearerPeer(served.url, MODERN, bearer).modern('tools/call', CALL);
    assert.equal(o.status, 401);
    assert.match(challengeParams(o.headers['www-authenticate']).error_description ?? '', /DPoP-bound access tokens only/);
    const key = await dpopKey();
    const bound = await as.token(resource, 'mcp', { dpop: key });
    const ok = await peer.modern('tools/call', CALL, {
      headers: { authorization: `DPoP ${bound}`, dpop: await dpopProof(key, 'POST', resource, bound) },
    });
    assert.equal(ok.status, 200);
  } finally {
    await served.close();
  }
});
