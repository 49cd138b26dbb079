/**
 * Finding the authorization server: protected resource metadata (RFC 9728; 2026-07-28
 * authorization-server-discovery.mdx), then authorization server metadata (RFC 8414 and OpenID
 * Connect Discovery, in the spec's order), each checked before anything in it is used.
 */
import * as oauth from 'oauth4webapi';
import { authError } from './errors.js';
import type { OAuthHttp } from './http.js';

/** RFC 9728 §2, the members the client uses. */
export interface ResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  [member: string]: unknown;
}

/** Authorization server metadata, and whether it came from a document or from the 2025-03-26 default endpoints. */
export interface FoundAuthorizationServer {
  as: oauth.AuthorizationServer;
  fromMetadata: boolean;
}

async function getJson(http: OAuthHttp, url: URL): Promise<{ status: number; body?: unknown; res: Response }> {
  const res = await http.fetch(url, { headers: { accept: 'application/json' }, redirect: 'manual' });
  if (res.status !== 200) {
    res.body?.cancel().catch(() => {});
    return { status: res.status, res };
  }
  try {
    return { status: 200, body: await res.clone().json(), res };
  } catch {
    return { status: 200, res };
  }
}

/**
 * Whether metadata naming `resource` may be used for the MCP server at `server`: same origin,
 * and the server's path at or under the resource's (a root resource covers the whole origin,
 * as when the metadata is served at the root well-known).
 */
export function resourceCovers(resource: string, server: URL): boolean {
  let r: URL;
  try {
    r = new URL(resource);
  } catch {
    return false;
  }
  if (r.origin !== server.origin || r.hash) return false;
  const path = r.pathname;
  if (path === '/' || path === server.pathname) return true;
  return server.pathname.startsWith(path.endsWith('/') ? path : `${path}/`);
}

/**
 * The protected resource metadata of the MCP server at `server`: from the challenge's
 * `resource_metadata` URL when given, then the path-based well-known, then the root one.
 * Undefined when there is none (a 2025-03-26 server). Metadata for another resource is refused.
 */
export async function discoverResourceMetadata(
  http: OAuthHttp,
  server: URL,
  challengeUrl: string | undefined,
): Promise<ResourceMetadata | undefined> {
  const candidates: URL[] = [];
  if (challengeUrl) {
    try {
      candidates.push(new URL(challengeUrl, server));
    } catch {
      // An unusable URL in the challenge: the well-knowns still apply.
    }
  }
  const root = new URL('/.well-known/oauth-protected-resource', server);
  if (server.pathname !== '/')
    candidates.push(new URL(`/.well-known/oauth-protected-resource${server.pathname.replace(/\/$/, '')}`, server));
  candidates.push(root);
  for (const url of candidates) {
    const { body } = await getJson(http, url);
    if (!isObject(body) || typeof body.resource !== 'string') continue;
    const prm = body as ResourceMetadata;
    if (!resourceCovers(prm.resource, server)) {
      throw authError(
        `the protected resource metadata at ${url.href} is for ${JSON.stringify(prm.resource)}, not for ${server.href}. ` +
          'Metadata for another resource must not be used (it could send the token somewhere else); nothing was requested from any authorization server. ' +
          "Check the server's configuration of its resource URL.",
      );
    }
    if (!Array.isArray(prm.authorization_servers) || typeof prm.authorization_servers[0] !== 'string') {
      throw authError(
        `the protected resource metadata at ${url.href} names no authorization server (authorization_servers is missing or empty).`,
      );
    }
    return prm;
  }
  return undefined;
}

/** The metadata URLs of an issuer, in the spec's order (path insertion before OpenID Connect path appending). */
export function metadataUrls(issuer: string): URL[] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  const at = (p: string) => new URL(p, u.origin);
  if (!path) return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/**
 * The metadata of the authorization server `issuer` (as published by the resource: compared
 * as strings, never normalised). A document whose `issuer` differs is refused outright.
 * Undefined when no well-known has a document.
 */
export async function discoverAuthorizationServer(http: OAuthHttp, issuer: string): Promise<FoundAuthorizationServer | undefined> {
  let urls: URL[];
  try {
    urls = metadataUrls(issuer);
  } catch (e) {
    throw authError(`the authorization server ${JSON.stringify(issuer)} is not a URL.`, e);
  }
  for (const url of urls) {
    const { status, body, res } = await getJson(http, url);
    if (status !== 200 || !isObject(body)) continue;
    const mismatch = () =>
      authError(
        `the authorization server metadata at ${url.href} says its issuer is ${JSON.stringify(body.issuer)}, not ${JSON.stringify(issuer)} ` +
          '(the issuer the protected resource named). Metadata for another issuer must not be used (RFC 8414 §3.3); nothing was sent to its endpoints.',
      );
    let as: oauth.AuthorizationServer;
    try {
      as = await oauth.processDiscoveryResponse(new URL(issuer), res);
    } catch (e) {
      if (e instanceof oauth.OperationProcessingError && e.code === oauth.JSON_ATTRIBUTE_COMPARISON) throw mismatch();
      throw authError(`the authorization server metadata at ${url.href} is not usable: ${(e as Error).message}`, e);
    }
    // oauth4webapi compares URLs after parsing them; the spec wants the strings identical.
    if (as.issuer !== issuer) throw mismatch();
    return { as, fromMetadata: true };
  }
  return undefined;
}

/** 2025-03-26 (no metadata at all): the default endpoints at the authorization base URL. */
export function defaultEndpoints(base: string): FoundAuthorizationServer {
  const at = (p: string) => new URL(p, base).href;
  return {
    as: { issuer: base, authorization_endpoint: at('/authorize'), token_endpoint: at('/token'), registration_endpoint: at('/register') },
    fromMetadata: false,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
