/**
 * The example server protected (`AUTH_ISSUER=… npm run fixture:server`): spawned with
 * AUTH_ISSUER naming a real authorization server (oidc-provider, in-process), it serves its
 * protected resource metadata, challenges requests without a token, serves requests with a
 * token issued for its own URL (http://127.0.0.1:PORT/mcp) in both eras, and refuses a token
 * for another audience. Without AUTH_ISSUER it serves as before.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startExample, stopExample } from '../support/example-process.js';
import { MODERN } from '../support/common.js';
import { BearerPeer, challengeParams, startAuthorizationServer, type AuthorizationServer } from './server-support.js';

let as: AuthorizationServer;
before(async () => {
  as = await startAuthorizationServer();
});
after(async () => {
  await as?.stop();
});

const CALL = { name: 'test_simple_text', arguments: {} };

test('with AUTH_ISSUER the example requires tokens from that authorization server, for its own URL', async () => {
  const example = await startExample({ AUTH_ISSUER: as.issuer });
  const { url } = example;
  try {
    const resource = url.href; // http://127.0.0.1:PORT/mcp
    const anonymous = new BearerPeer(url, MODERN);
    const prm = await anonymous.send({ method: 'GET', url: new URL(`/.well-known/oauth-protected-resource${url.pathname}`, url) });
    assert.equal(prm.status, 200);
    const doc = JSON.parse(await prm.text());
    assert.equal(doc.resource, resource);
    assert.deepEqual(doc.authorization_servers, [as.issuer]);

    const refused = await anonymous.modern('tools/call', CALL);
    assert.equal(refused.status, 401);
    assert.equal(
      challengeParams(refused.headers['www-authenticate']).resource_metadata,
      `${url.origin}/.well-known/oauth-protected-resource/mcp`,
    );

    const token = await as.token(resource, 'mcp');
    const modern = new BearerPeer(url, MODERN, token);
    const ok = await modern.modern('tools/call', CALL);
    assert.equal(ok.status, 200, JSON.stringify(ok.messages));
    assert.equal(ok.messages[0]!.result.content[0].text, 'This is a simple text response for testing.');

    const legacy = new BearerPeer(url, '2025-11-25', token);
    await legacy.initialize();
    const legacyOk = await legacy.request('tools/call', CALL);
    assert.equal(legacyOk.messages[0]!.result.content[0].text, 'This is a simple text response for testing.');

    const foreign = new BearerPeer(url, MODERN, await as.token('http://127.0.0.1:1/mcp', 'mcp'));
    const o = await foreign.modern('tools/call', CALL);
    assert.equal(o.status, 401);
    assert.equal(challengeParams(o.headers['www-authenticate']).error, 'invalid_token');
  } finally {
    await stopExample(example);
  }
});

test('without AUTH_ISSUER the example serves without tokens, as before', async () => {
  const example = await startExample({ AUTH_ISSUER: '' });
  const { url } = example;
  try {
    const o = await new BearerPeer(url, MODERN).modern('tools/call', CALL);
    assert.equal(o.status, 200);
    const prm = await new BearerPeer(url, MODERN).send({ method: 'GET', url: new URL('/.well-known/oauth-protected-resource/mcp', url) });
    assert.equal(prm.status, 404);
    await prm.text();
  } finally {
    await stopExample(example);
  }
});
