/**
 * A real OAuth authorization server for the resource-server tests: `oidc-provider` (a certified
 * OpenID provider) started in-process on 127.0.0.1, with its own signing key, resource
 * indicators (RFC 8707: the access token's audience is the resource asked for; a JWT, or an opaque
 * token checked by introspection) and the client credentials grant, so
 * tests get tokens headlessly. And an HTTP peer that sends a bearer token with every request.
 */
import { createServer, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
import Provider from 'oidc-provider';
import { HttpPeer } from '../http-e2e/support.js';

export const CLIENT = { id: 'mcp-test-client', secret: 'mcp-test-client-secret' };
/** Another client of the same authorization server: another caller. */
export const OTHER_CLIENT = { id: 'mcp-other-client', secret: 'mcp-other-client-secret' };
/** The resource server's own credentials, for token introspection. */
export const RS_CLIENT = { id: 'mcp-resource-server', secret: 'mcp-resource-server-secret' };
export const SCOPES = ['mcp', 'notes:read', 'notes:write'];

export interface AuthorizationServer {
  readonly issuer: string;
  /**
   * A client-credentials access token for `resource` (its audience) with `scope`. `ttl`: its
   * lifetime in seconds (default 300); `opaque`: a reference token, checked by introspection;
   * `client`: who asks (default CLIENT); `dpop`: a DPoP key, to which the token is then bound (RFC 9449).
   */
  token(
    resource: string,
    scope: string,
    opts?: { ttl?: number; opaque?: boolean; client?: typeof CLIENT; dpop?: DpopKey },
  ): Promise<string>;
  stop(): Promise<void>;
}

/**
 * `clients`: more oidc-provider client records (e.g. one authenticating with private_key_jwt);
 * `dpopNonce`: every DPoP proof at the token endpoint must carry a nonce it issued (RFC 9449 §8).
 */
export async function startAuthorizationServer(opts: { clients?: object[]; dpopNonce?: boolean } = {}): Promise<AuthorizationServer> {
  let handler: ((req: never, res: never) => void) | undefined;
  const http: NodeHttpServer = createServer((req, res) => handler!(req as never, res as never));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: `key-${issuer}`, alg: 'RS256', use: 'sig' };
  // What the next token request asks for beyond resource and scope (the client credentials grant has no parameter for it).
  let next: { ttl: number; opaque: boolean } = { ttl: 300, opaque: false };

  const provider = new Provider(issuer, {
    jwks: { keys: [jwk as never] },
    cookies: { keys: ['janus-test-cookie-key'] },
    ttl: { ClientCredentials: () => next.ttl },
    scopes: ['openid', ...SCOPES],
    clients: [
      ...[CLIENT, OTHER_CLIENT].map((c) => ({
        client_id: c.id,
        client_secret: c.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: SCOPES.join(' '),
      })),
      { client_id: RS_CLIENT.id, client_secret: RS_CLIENT.secret, grant_types: [], redirect_uris: [], response_types: [] },
      ...(opts.clients ?? []),
    ],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      ...(opts.dpopNonce
        ? { dPoP: { enabled: true, nonceSecret: crypto.getRandomValues(Buffer.alloc(32)), requireNonce: () => true } }
        : {}),
      // The resource server's client may introspect every token (the default policy asks to be replaced).
      introspection: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => ({
          scope: SCOPES.join(' '),
          audience: resourceIndicator,
          accessTokenTTL: next.ttl,
          accessTokenFormat: next.opaque ? 'opaque' : 'jwt',
        }),
      },
    },
  } as never);
  const callback = provider.callback();
  handler = callback as never;

  return {
    issuer,
    async token(resource, scope, opts = {}) {
      next = { ttl: opts.ttl ?? 300, opaque: opts.opaque ?? false };
      const client = opts.client ?? CLIENT;
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          ...(opts.dpop !== undefined ? { dpop: await dpopProof(opts.dpop, 'POST', `${issuer}/token`) } : {}),
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }).toString(),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!response.ok || typeof body.access_token !== 'string') throw new Error(`token request failed: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** A client's DPoP key pair (RFC 9449). */
export interface DpopKey {
  readonly privateKey: Awaited<ReturnType<typeof jose.generateKeyPair>>['privateKey'];
  readonly publicJwk: jose.JWK;
}

export async function dpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
  return { privateKey, publicJwk: await jose.exportJWK(publicKey) };
}

/** A DPoP proof for one request; with `token`, bound to it (`ath`). `claims` override the computed ones. */
export async function dpopProof(
  key: DpopKey,
  method: string,
  url: string,
  token?: string,
  claims: Record<string, unknown> = {},
): Promise<string> {
  const ath =
    token === undefined
      ? {}
      : { ath: jose.base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)))) };
  return new jose.SignJWT({ htm: method, htu: url, jti: crypto.randomUUID(), ...ath, ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk })
    .setIssuedAt(typeof claims.iat === 'number' ? claims.iat : undefined)
    .sign(key.privateKey);
}

/** An HTTP peer that sends `Authorization: Bearer <token>` with every request (none while `token` is undefined). */
export class BearerPeer extends HttpPeer {
  token: string | undefined;
  constructor(url: URL, revision: string, token?: string) {
    super(url, revision);
    this.token = token;
  }
  override sessionHeaders(): Record<string, string | undefined> {
    return { ...super.sessionHeaders(), authorization: this.token === undefined ? undefined : `Bearer ${this.token}` };
  }
}

/** The `WWW-Authenticate` parameters of a Bearer (RFC 6750 §3) or DPoP (RFC 9449 §7.1) challenge, by name. */
export function challengeParams(header: string | string[] | undefined): Record<string, string> {
  const value = Array.isArray(header) ? header.join(', ') : (header ?? '');
  const scheme = /^(Bearer|DPoP)\s/i.exec(value);
  if (scheme === null) return {};
  const out: Record<string, string> = {};
  for (const m of value.slice(scheme[0].length).matchAll(/([a-z_]+)="([^"]*)"/gi)) out[m[1]!] = m[2]!;
  return out;
}
