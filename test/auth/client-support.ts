/**
 * The OAuth client's test bed: a real authorization server (`oidc-provider` on 127.0.0.1, with
 * dynamic registration, the authorization code grant with PKCE, refresh tokens and resource
 * indicators, so that access tokens are JWTs whose audience is the MCP server asked for), and a
 * protected MCP endpoint: a Janus server behind a minimal bearer check written here (JWT
 * verified with jose against the provider's JWKS, audience = the endpoint's URL), which answers
 * 401 or 403 with the challenges of RFC 6750 / RFC 9728 and serves protected resource metadata.
 *
 * The user's part: oidc-provider sends the browser to interaction pages (login, then consent).
 * The test plays the browser (`browserRedirect`): it follows the redirects with fetch, carrying
 * cookies, and the interaction pages here log the user in and grant what was asked at once. The
 * authorization endpoint's final redirect to the client's redirect_uri is what the handler
 * returns.
 */
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
import Provider from 'oidc-provider';
import type { RedirectHandler } from '../../src/client/index.js';
import { createServer as createMcpServer } from '../../src/server/index.js';
import { createFetchHandler } from '../../src/transports/http/index.js';

export const REDIRECT_URI = 'http://127.0.0.1/callback';
/** The protected server's scopes: listing needs mcp:read, calling a tool mcp:write. */
export const RESOURCE_SCOPES = ['mcp:read', 'mcp:write'];

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ http: NodeHttpServer; origin: string }> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { http, origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

function close(http: NodeHttpServer): Promise<void> {
  return new Promise((resolve) => {
    http.closeAllConnections();
    http.close(() => resolve());
  });
}

export interface TestAuthorizationServer {
  readonly issuer: string;
  /** Every request it received, `METHOD /path`. */
  readonly requests: string[];
  /** The grant_type of every successful token request. */
  readonly grants: string[];
  /** The query of every authorization request. */
  readonly authorizations: URLSearchParams[];
  stop(): Promise<void>;
}

export async function startAuthorizationServer(opts: { accessTokenTTL?: number } = {}): Promise<TestAuthorizationServer> {
  const requests: string[] = [];
  const grants: string[] = [];
  const authorizations: URLSearchParams[] = [];
  let provider: InstanceType<typeof Provider> | undefined;
  let callback: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const { http, origin: issuer } = await listen((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    requests.push(`${req.method} ${url.pathname}`);
    if (url.pathname === '/auth') authorizations.push(url.searchParams);
    if (url.pathname.startsWith('/interaction/')) {
      interact(req, res).catch((e: unknown) => {
        res.statusCode = 500;
        res.end(String(e));
      });
      return;
    }
    callback!(req, res);
  });

  /** The login and consent pages: the user logs in at once, as "alice", and grants whatever the client asks for. */
  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const p = provider as any;
    const details = await p.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await p.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false });
      return;
    }
    const asked = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    const grant = details.grantId
      ? await p.Grant.find(details.grantId)
      : new p.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    if (asked.missingOIDCScope) grant.addOIDCScope(asked.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(asked.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    await p.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }

  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'client-test-key', alg: 'RS256', use: 'sig' };
  provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    cookies: { keys: ['janus-client-test-cookie-key'] },
    scopes: ['openid', 'offline_access'],
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // Refresh tokens for every client registered with the refresh_token grant (the default also
    // wants offline_access granted as an OpenID scope, which a plain OAuth request does not get).
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => ({
          scope: RESOURCE_SCOPES.join(' '),
          audience: resourceIndicator,
          accessTokenTTL: opts.accessTokenTTL ?? 300,
          accessTokenFormat: 'jwt',
        }),
      },
    },
  } as never);
  provider.on('grant.success', (ctx: any) => grants.push(String(ctx.oidc.params.grant_type)));
  callback = provider.callback() as never;
  return { issuer, requests, grants, authorizations, stop: () => close(http) };
}

/**
 * The user's browser: follows the authorization server's redirects with fetch, keeping its
 * cookies (one jar per browser), and stops at the first redirect to `redirectUri`, which it
 * returns without loading it.
 */
export function browser(): (url: URL, redirectUri: string) => Promise<URL> {
  const jar = new Map<string, string>();
  return async (start, redirectUri) => {
    let url = start;
    for (let hops = 0; hops < 10; hops++) {
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
      await res.body?.cancel();
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const i = pair!.indexOf('=');
        jar.set(pair!.slice(0, i).trim(), pair!.slice(i + 1).trim());
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`the authorization server answered ${url.href} with HTTP ${res.status} and no redirect`);
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) return next;
      url = next;
    }
    throw new Error('too many redirects');
  };
}

/** A redirect handler for REDIRECT_URI that plays the user's browser (see `browser`). */
export function browserRedirect(): RedirectHandler {
  const b = browser();
  return (url) => b(url, REDIRECT_URI);
}

export interface ProtectedServer {
  /** The MCP endpoint: `<origin>/mcp`. */
  readonly url: URL;
  /** The bearer tokens it accepted, in order. */
  readonly accepted: string[];
  /** How many 401/403 challenges it answered with. */
  readonly challenges: number;
  /** Tokens it now refuses with 401 invalid_token (as if revoked). */
  readonly refused: Set<string>;
  /** What its protected resource metadata says (changeable by a test). */
  metadata: { resource: string; authorization_servers: string[]; scopes_supported?: string[] };
  /** Extra routes (e.g. a fake authorization server's metadata), by path. */
  readonly routes: Map<string, () => Response>;
  stop(): Promise<void>;
}

/**
 * A Janus server (tools `whoami`, which needs mcp:write) behind a bearer check against
 * `issuer`: 401 with `resource_metadata` and `scope="mcp:read"` without a valid token, 403
 * insufficient_scope for a tool call without mcp:write.
 */
export async function startProtectedServer(issuer: string): Promise<ProtectedServer> {
  const server = createMcpServer({ name: 'protected', version: '1.0.0' });
  server.tool('whoami', (_args, ctx) => ({ content: [{ type: 'text', text: String((ctx as { auth?: unknown }).auth ?? 'someone') }] }));
  const mcp = createFetchHandler(server, { dnsRebindingProtection: false });
  const jwks = jose.createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const accepted: string[] = [];
  const refused = new Set<string>();
  const routes = new Map<string, () => Response>();
  let origin = '';
  let challenges = 0;
  const state: ProtectedServer = {
    get challenges() {
      return challenges;
    },
    get url() {
      return new URL(`${origin}/mcp`);
    },
    accepted,
    refused,
    metadata: { resource: '', authorization_servers: [issuer] },
    routes,
    stop: async () => close(http),
  };
  const prmUrl = () => `${origin}/.well-known/oauth-protected-resource/mcp`;
  const challenge = (status: number, params: Record<string, string>) => {
    challenges++;
    return new Response(JSON.stringify({ error: params.error ?? 'unauthorized' }), {
      status,
      headers: {
        'content-type': 'application/json',
        'www-authenticate': `Bearer ${Object.entries({ resource_metadata: prmUrl(), ...params })
          .map(([k, v]) => `${k}="${v}"`)
          .join(', ')}`,
      },
    });
  };

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const route = routes.get(url.pathname);
    if (route) return route();
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') return Response.json(state.metadata);
    if (url.pathname !== '/mcp') return new Response('not found', { status: 404 });
    const header = request.headers.get('authorization');
    const token = /^Bearer (.+)$/.exec(header ?? '')?.[1];
    if (!token) return challenge(401, { scope: 'mcp:read' });
    let scopes: string[];
    try {
      if (refused.has(token)) throw new Error('revoked');
      const { payload } = await jose.jwtVerify(token, jwks, { issuer, audience: `${origin}/mcp` });
      scopes = String(payload.scope ?? '').split(' ');
    } catch {
      return challenge(401, { scope: 'mcp:read', error: 'invalid_token' });
    }
    if (request.method === 'POST') {
      const body = (await request.clone().json()) as { method?: string };
      if (body.method === 'tools/call' && !scopes.includes('mcp:write'))
        return challenge(403, { scope: 'mcp:write', error: 'insufficient_scope' });
    }
    accepted.push(token);
    return mcp(request);
  }

  const http = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const response = await handle(new Request(new URL(req.url ?? '/', origin), { method: req.method, headers, body }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    })().catch((e: unknown) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  state.metadata = { resource: `${origin}/mcp`, authorization_servers: [issuer], scopes_supported: RESOURCE_SCOPES };
  return state;
}
