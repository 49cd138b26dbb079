/**
 * Interactive login (`loopbackLogin`): the redirect URI is a port this process listens on; the
 * "user's browser" (played by the test with fetch, through oidc-provider's login and consent
 * pages) is sent to the authorization page and delivers the answer there.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, loopbackLogin } from '../../src/client/index.js';
import { browser, startAuthorizationServer, startProtectedServer, type TestAuthorizationServer } from './client-support.js';

let as: TestAuthorizationServer;
before(async () => {
  as = await startAuthorizationServer();
});
after(() => as.stop());

test('the browser comes back to the loopback port with the code; only the answer to the request under way is taken', async () => {
  const ps = await startProtectedServer(as.issuer);
  const user = browser();
  const pages: Array<{ status: number; text: string }> = [];
  const login = await loopbackLogin({
    open: async (url) => {
      const back = await user(url, login.redirectUri);
      // A forged answer (another state) is turned away, and does not end the wait.
      const forged = new URL(back);
      forged.searchParams.set('state', 'forged');
      const refused = await fetch(forged);
      pages.push({ status: refused.status, text: await refused.text() });
      const done = await fetch(back);
      pages.push({ status: done.status, text: await done.text() });
    },
  });
  try {
    assert.match(login.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const client = await connect(ps.url, {
      protocolVersion: '2026-07-28',
      auth: { redirectUri: login.redirectUri, redirect: login.redirect },
    });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['whoami'],
      );
    } finally {
      await client.close();
    }
    assert.equal(pages.length, 2);
    assert.equal(pages[0]!.status, 400);
    assert.equal(pages[1]!.status, 200);
    assert.match(pages[1]!.text, /Authorization complete/);
    assert.equal(as.authorizations.at(-1)?.get('redirect_uri'), login.redirectUri);
  } finally {
    await login.close();
    await ps.stop();
  }
});
