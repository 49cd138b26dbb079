/**
 * examples/api-oauth as a user gets it: installed, built and started by the command its README
 * gives, against a real OpenID provider (oidc-provider, in this process on 127.0.0.1) and a
 * small issue-tracker API (also here, on loopback) as its upstream.
 *
 * - Without a token: 401 with the challenge that tells a client where to log in.
 * - The Janus client logs in headlessly, in both eras: dynamic registration, the authorization
 *   code with PKCE for the endpoint as resource, through `headlessRedirect` with the session of a
 *   user who signed in to the provider before (the provider's users consent to every client,
 *   as a company's own provider may); a step-up to `issues:write` when a tool needs it. Its
 *   tools reach the upstream with the server's own key, on behalf of the verified user.
 * - A token without a tool's scope: 403 `insufficient_scope`, naming every scope it needs.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as jose from 'jose';
import Provider, { interactionPolicy } from 'oidc-provider';
import { connect, headlessRedirect, InMemoryTokenStore, tokenStoreKey } from '../../src/client/index.js';
import { BearerPeer, challengeParams } from '../auth/server-support.js';
import { MODERN } from '../support/common.js';
import { freePort } from '../support/example-process.js';
import { installExample, type Project, readmeCommands, typeCheckReadme, root, run, startProcess } from './support.js';

const NAME = 'api-oauth';
/** What the provider grants for the MCP endpoint: never issues:triage. */
const GRANTABLE = ['issues:read', 'issues:write'];
const UPSTREAM_KEY = 'upstream-key-of-the-mcp-server';
const REDIRECT_URI = 'http://127.0.0.1/callback';
const PORTAL = { id: 'portal', secret: 'portal-secret', callback: 'http://127.0.0.1/portal/callback' };

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ http: NodeHttpServer; origin: string }> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { http, origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

function stop(http: NodeHttpServer | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (http === undefined) return resolve();
    http.closeAllConnections();
    http.close(() => resolve());
  });
}

// ---- the upstream: an issue tracker's HTTP API, as upstream.ts of the example expects it ----

interface Issue {
  id: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  reporter: string;
}

interface Upstream {
  origin: string;
  http: NodeHttpServer;
  issues: Issue[];
  /** Every request: method, path, and the headers that carry identity. */
  requests: Array<{ method: string; path: string; authorization?: string; onBehalfOf?: string }>;
}

async function startUpstream(): Promise<Upstream> {
  const issues: Issue[] = [{ id: 1, title: 'Login page is slow', body: 'Takes 5 s', state: 'open', reporter: 'bob' }];
  const requests: Upstream['requests'] = [];
  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const { http, origin } = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    requests.push({
      method: req.method ?? '',
      path: `${url.pathname}${url.search}`,
      authorization: req.headers.authorization,
      onBehalfOf: req.headers['x-on-behalf-of'] as string | undefined,
    });
    if (req.headers.authorization !== `Bearer ${UPSTREAM_KEY}`) return send(res, 401, { error: 'bad API key' });
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      if (req.method === 'GET' && url.pathname === '/issues') {
        const state = url.searchParams.get('state') ?? 'open';
        return send(
          res,
          200,
          issues.filter((i) => state === 'all' || i.state === state),
        );
      }
      if (req.method === 'POST' && url.pathname === '/issues') {
        const { title, body, reporter } = JSON.parse(raw) as { title: string; body: string; reporter: string };
        if (title.startsWith('!')) return send(res, 422, { error: 'a title may not start with "!"' });
        const issue: Issue = { id: issues.length + 1, title, body, state: 'open', reporter };
        issues.push(issue);
        return send(res, 201, issue);
      }
      send(res, 404, { error: 'no such route' });
    });
  });
  return { origin, http, issues, requests };
}

// ---- the OpenID provider ----

interface AuthorizationServer {
  issuer: string;
  http: NodeHttpServer;
  /** The scope asked for in each authorization request. */
  authorizations: string[];
}

/**
 * oidc-provider with dynamic registration, PKCE, resource indicators (JWT access tokens whose
 * audience is the resource asked for) and refresh tokens. Login and consent pages are played by
 * the test: the user "alice" signs in, and grants what is asked. Once signed in, her consent to
 * any client is loaded without a page (`loadExistingGrant`), so the authorization endpoint
 * redirects back at once: what `headlessRedirect` needs.
 */
async function startAuthorizationServer(): Promise<AuthorizationServer> {
  let provider: any;
  const authorizations: string[] = [];
  const { http, origin: issuer } = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://as');
    if (url.pathname === '/auth') authorizations.push(url.searchParams.get('scope') ?? '');
    if (url.pathname.startsWith('/interaction/')) {
      interact(req, res).catch((e: unknown) => res.writeHead(500).end(String(e)));
      return;
    }
    callback(req, res);
  });

  /** The login and consent pages: alice signs in at once, and grants what is asked. */
  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    if (details.prompt.details.missingOIDCScope) grant.addOIDCScope(details.prompt.details.missingOIDCScope.join(' '));
    await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }

  // By default a native application (a loopback redirect URI) is asked for consent on every
  // authorization; here the consent she gave once holds for every application.
  const policy = interactionPolicy.base();
  policy.get('consent').checks.remove('native_client_prompt');

  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'example-test-key', alg: 'RS256', use: 'sig' };
  provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    cookies: { keys: ['janus-example-cookie-key'] },
    scopes: ['openid', 'offline_access'],
    clients: [
      {
        client_id: PORTAL.id,
        client_secret: PORTAL.secret,
        redirect_uris: [PORTAL.callback],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { policy, url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    loadExistingGrant: async (ctx: any) => {
      const { client, session, params } = ctx.oidc;
      if (!session?.accountId) return undefined;
      const id = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      const grant = id ? await provider.Grant.find(id) : new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      const asked = String(params.scope ?? '')
        .split(' ')
        .filter(Boolean);
      const oidc = asked.filter((s) => s === 'openid' || s === 'offline_access');
      if (oidc.length > 0) grant.addOIDCScope(oidc.join(' '));
      for (const resource of [params.resource ?? []].flat()) {
        const granted = asked.filter((s) => GRANTABLE.includes(s));
        if (granted.length > 0) grant.addResourceScope(resource, granted.join(' '));
      }
      await grant.save();
      return grant;
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => ({
          scope: GRANTABLE.join(' '),
          audience: resourceIndicator,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
        }),
      },
    },
  } as never);
  const callback = provider.callback() as (req: IncomingMessage, res: ServerResponse) => void;
  return { issuer, http, authorizations };
}

/**
 * The user's browser after she signed in to the provider once (through another application of
 * hers, the portal): a fetch that carries her cookies. `headlessRedirect` uses it, so the
 * provider knows her and redirects back at once.
 */
async function signedInBrowser(issuer: string): Promise<typeof fetch> {
  const jar = new Map<string, string>();
  const browserFetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(input, { ...init, headers });
    for (const cookie of res.headers.getSetCookie()) {
      const pair = cookie.split(';')[0]!;
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  };
  const verifier = randomBytes(32).toString('base64url');
  let url = new URL(`${issuer}/auth`);
  url.search = new URLSearchParams({
    client_id: PORTAL.id,
    response_type: 'code',
    redirect_uri: PORTAL.callback,
    scope: 'openid',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  for (let hops = 0; hops < 10; hops++) {
    const res = await browserFetch(url, { redirect: 'manual' });
    await res.body?.cancel();
    const location = res.headers.get('location');
    assert.ok(location, `the sign-in stopped at ${url.href} with HTTP ${res.status}`);
    url = new URL(location, url);
    if (url.href.startsWith(PORTAL.callback)) {
      assert.ok(url.searchParams.get('code'), url.href);
      return browserFetch;
    }
  }
  assert.fail('the sign-in never came back to the portal');
}

// ---- the example ----

let project: Project;
let upstream: Upstream;
let as: AuthorizationServer;
let example: Awaited<ReturnType<typeof startProcess>>;
let url: URL;

before(async () => {
  [project, upstream, as] = await Promise.all([installExample(NAME), startUpstream(), startAuthorizationServer()]);
  const commands = readmeCommands(NAME);
  assert.deepEqual(commands.slice(0, 2), ['npm install', 'npm run build'], 'installExample ran these');
  const line = commands.find((c) => c.includes('node dist/main.js'))!;
  const words = line.split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  assert.deepEqual(Object.keys(env), ['AUTH_ISSUER', 'UPSTREAM_URL', 'UPSTREAM_API_KEY', 'PORT']);
  assert.deepEqual(words, ['node', 'dist/main.js']);
  // The README's command, with this test's provider, upstream and port.
  Object.assign(env, {
    AUTH_ISSUER: as.issuer,
    UPSTREAM_URL: upstream.origin,
    UPSTREAM_API_KEY: UPSTREAM_KEY,
    PORT: String(await freePort()),
  });
  example = await startProcess('node', ['dist/main.js'], { cwd: project.dir, env, ready: /listening on (http:\/\/\S+)/ });
  url = new URL(example.match[1]!);
});
after(async () => {
  example?.child.kill('SIGTERM');
  await example?.exit;
  await Promise.all([stop(upstream?.http), stop(as?.http)]);
  project?.remove();
});

test("the README's curl shows the protected resource metadata that clients start from, as the README prints it", async () => {
  const curl = readmeCommands(NAME).find((c) => c.startsWith('curl'))!;
  assert.ok(curl, 'the README has a curl command');
  const { stdout } = await run('sh', ['-c', curl.replaceAll('http://127.0.0.1:3000', url.origin)]);
  const readme = readFileSync(join(root, 'examples', NAME, 'README.md'), 'utf8');
  const shown = /```sh\ncurl [^\n]*\n```\n\n```text\n([^\n]*)\n```/.exec(readme)?.[1];
  assert.ok(shown, 'the README shows what curl prints');
  assert.deepEqual(
    JSON.parse(stdout),
    JSON.parse(shown.replaceAll('http://127.0.0.1:3000', url.origin).replaceAll('https://auth.example.com', as.issuer)),
  );
});

test('without a token: 401 with a Bearer challenge naming the scope and the metadata, in both eras', async () => {
  const modern = await new BearerPeer(url, MODERN).modern('tools/call', { name: 'list_issues', arguments: {} });
  const legacy = await new BearerPeer(url, '2025-11-25').request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'anonymous', version: '1.0.0' },
  });
  for (const reply of [modern, legacy]) {
    assert.equal(reply.status, 401);
    const header = String(reply.headers['www-authenticate']);
    assert.match(header, /^Bearer /);
    assert.deepEqual(challengeParams(header), {
      scope: 'issues:read',
      resource_metadata: `${url.origin}/.well-known/oauth-protected-resource/mcp`,
    });
  }
  assert.equal(upstream.requests.length, 0, 'nothing reached the upstream');
});

for (const protocolVersion of ['2026-07-28', '2025-11-25'] as const) {
  describe(`${protocolVersion}: the Janus client logs in headlessly and calls the upstream through the tools`, () => {
    const store = new InMemoryTokenStore();
    let client: Awaited<ReturnType<typeof connect>>;
    before(async () => {
      const browser = await signedInBrowser(as.issuer);
      client = await connect(url.href, {
        ...(protocolVersion === '2025-11-25' ? { protocolVersion } : {}),
        auth: { redirectUri: REDIRECT_URI, redirect: headlessRedirect({ fetch: browser }), store, clientName: 'example test' },
      });
      assert.equal(client.protocolVersion, protocolVersion);
    });
    after(() => client?.close());

    test('whoami is alice; list_issues reaches the upstream with the server’s key, on her behalf', async () => {
      const me = (await client.callTool('whoami', {})).structuredContent as { subject: string; scopes: string[] };
      assert.equal(me.subject, 'alice');
      assert.ok(me.scopes.includes('issues:read'), JSON.stringify(me));
      const before = upstream.requests.length;
      const listed = await client.callTool('list_issues', { state: 'all' });
      assert.deepEqual((listed.structuredContent as { issues: Issue[] }).issues[0], upstream.issues[0]);
      assert.deepEqual(upstream.requests.slice(before), [
        { method: 'GET', path: '/issues?state=all', authorization: `Bearer ${UPSTREAM_KEY}`, onBehalfOf: 'alice' },
      ]);
    });

    test('create_issue needs issues:write: the client steps up, and the issue is reported by alice', async () => {
      const asked = as.authorizations.length;
      const created = await client.callTool('create_issue', { title: `Broken in ${protocolVersion}`, body: 'details' });
      assert.equal(created.isError, undefined, JSON.stringify(created));
      const issue = created.structuredContent as Issue;
      assert.deepEqual(upstream.issues.at(-1), issue);
      assert.equal(issue.reporter, 'alice');
      const scopes = as.authorizations.slice(asked).map((s) =>
        s
          .split(' ')
          .filter((x) => x !== 'offline_access')
          .sort()
          .join(' '),
      );
      assert.deepEqual(scopes, ['issues:read issues:write'], 'one step-up, asking for both scopes');
      // An error of the upstream that the model can act on is a tool error with its message.
      const refused = await client.callTool('create_issue', { title: '!urgent' });
      assert.equal(refused.isError, true);
      assert.deepEqual(refused.content, [{ type: 'text', text: 'The issue tracker says: a title may not start with "!"' }]);
    });

    test('close_issue needs issues:triage, which the token lacks: 403 insufficient_scope naming every scope it needs', async () => {
      const record = await store.get(tokenStoreKey(url.href, as.issuer));
      const token = record?.tokens?.access_token;
      assert.ok(token, 'the client keeps its token in the store it was given');
      const before = upstream.requests.length;
      const peer = new BearerPeer(url, protocolVersion, token);
      if (protocolVersion !== MODERN) await peer.initialize();
      const reply =
        protocolVersion === MODERN
          ? await peer.modern('tools/call', { name: 'close_issue', arguments: { id: 1 } })
          : await peer.request('tools/call', { name: 'close_issue', arguments: { id: 1 } });
      assert.equal(reply.status, 403);
      const params = challengeParams(reply.headers['www-authenticate']);
      assert.equal(params.error, 'insufficient_scope');
      assert.deepEqual(params.scope?.split(' ').sort(), ['issues:read', 'issues:triage']);
      assert.equal(upstream.requests.length, before, 'the handler did not run');
      // The same token still calls what it may.
      const ok =
        protocolVersion === MODERN
          ? await peer.modern('tools/call', { name: 'whoami', arguments: {} })
          : await peer.request('tools/call', { name: 'whoami', arguments: {} });
      assert.equal(ok.status, 200);
    });
  });
}

test("the README's TypeScript compiles against the package", async () => {
  assert.deepEqual(await typeCheckReadme(project, NAME), []);
});
