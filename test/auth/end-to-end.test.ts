/**
 * Janus's client through Janus's protected server, with a real authorization server
 * (oidc-provider) between them, in both eras: interactively (authorization
 * code with PKCE, the user's browser played by the test, a step-up when a tool needs a scope the
 * first token lacks) and headlessly (client credentials). The server sees the verified caller
 * on ctx.auth.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { createServer } from '../../src/server/index.js';
import { serve, type Served } from '../http-e2e/support.js';
import * as interactive from './client-support.js';
import * as headless from './server-support.js';

// Every handshake revision is served on the Streamable HTTP endpoint, 2024-11-05 included.
const ERAS = ['2024-11-05', '2025-11-25', '2026-07-28'] as const;

/** A server whose listing needs `read` and whose `whoami` tool also needs `write`; whoami tells who called. */
function protectedServer(issuer: string, read: string, write: string): Promise<Served> {
  const server = createServer({ name: 'protected', version: '1.0.0' });
  server.tool('whoami', { description: 'who called', scopes: [write] }, (_args, ctx) =>
    JSON.stringify({ subject: ctx.auth?.subject, clientId: ctx.auth?.clientId, scopes: ctx.auth?.scopes }),
  );
  return serve(server, { auth: { issuer, scopes: [read] } });
}

async function whoami(client: Awaited<ReturnType<typeof connect>>): Promise<{ subject?: string; clientId?: string; scopes: string[] }> {
  const result = await client.callTool('whoami', {});
  const first = result.content[0] as { type: string; text: string };
  return JSON.parse(first.text);
}

describe('interactive: authorization code, the browser step driven by the test', () => {
  let as: interactive.TestAuthorizationServer;
  let served: Served;
  before(async () => {
    as = await interactive.startAuthorizationServer();
    served = await protectedServer(as.issuer, 'mcp:read', 'mcp:write');
  });
  after(async () => {
    await served?.close();
    await as?.stop();
  });

  for (const protocolVersion of ERAS) {
    test(`${protocolVersion}: listing with mcp:read, then a step-up to mcp:write for the tool; the server sees alice`, async () => {
      const before = as.authorizations.length;
      const client = await connect(served.url, {
        protocolVersion,
        auth: { redirectUri: interactive.REDIRECT_URI, redirect: interactive.browserRedirect() },
      });
      try {
        assert.deepEqual(
          (await client.listTools()).tools.map((t) => t.name),
          ['whoami'],
        );
        const caller = await whoami(client);
        assert.equal(caller.subject, 'alice');
        assert.ok(caller.scopes.includes('mcp:read') && caller.scopes.includes('mcp:write'), JSON.stringify(caller));
        // One authorization for the listing, one more for the step-up (offline_access rides along: the server offers refresh).
        const asked = as.authorizations.slice(before).map((q) =>
          q
            .get('scope')
            ?.split(' ')
            .filter((scope) => scope !== 'offline_access')
            .sort()
            .join(' '),
        );
        assert.deepEqual(asked, ['mcp:read', 'mcp:read mcp:write']);
      } finally {
        await client.close();
      }
    });
  }
});

describe('headless: client credentials', () => {
  let as: headless.AuthorizationServer;
  let served: Served;
  before(async () => {
    as = await headless.startAuthorizationServer();
    served = await protectedServer(as.issuer, 'mcp', 'notes:write');
  });
  after(async () => {
    await served?.close();
    await as?.stop();
  });

  for (const protocolVersion of ERAS) {
    test(`${protocolVersion}: the client gets a token for the server by itself, and the server sees it`, async () => {
      const client = await connect(served.url, {
        protocolVersion,
        auth: {
          grant: {
            type: 'client_credentials',
            clientId: headless.CLIENT.id,
            clientSecret: headless.CLIENT.secret,
            scope: ['mcp', 'notes:write'],
          },
        },
      });
      try {
        const caller = await whoami(client);
        assert.equal(caller.clientId, headless.CLIENT.id);
        assert.ok(caller.scopes.includes('notes:write'), JSON.stringify(caller));
      } finally {
        await client.close();
      }
    });
  }
});
