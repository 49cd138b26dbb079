/**
 * Which client_id to present to an authorization server, in the spec's order
 * (2026-07-28 client-registration.mdx): pre-registered credentials for that server, a Client ID
 * Metadata Document URL where the server supports them, else dynamic registration (RFC 7591).
 */
import * as oauth from 'oauth4webapi';
import { authError } from './errors.js';
import type { OAuthHttp } from './http.js';
import { isLoopback } from './http.js';
import type { OAuthClientOptions, PreRegisteredClient } from './options.js';
import type { RegisteredClient } from './token-store.js';

const SECRET_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

/** The client for `as`, obtained the first way that applies. */
export async function obtainClient(http: OAuthHttp, as: oauth.AuthorizationServer, options: OAuthClientOptions): Promise<RegisteredClient> {
  const pre = preRegistered(options, as.issuer);
  if (pre) return fromPreRegistered(pre, as);
  if (as.client_id_metadata_document_supported === true && options.clientMetadataUrl) {
    return { client_id: options.clientMetadataUrl, token_endpoint_auth_method: 'none' };
  }
  if (as.registration_endpoint) return register(http, as, options);
  throw authError(
    `the authorization server ${as.issuer} offers no way for this client to register (no registration_endpoint` +
      `${as.client_id_metadata_document_supported ? ', and no auth.clientMetadataUrl was given for its Client ID Metadata Document support' : ''}). ` +
      'Register a client with it and pass its credentials as auth.client.',
  );
}

function preRegistered(options: OAuthClientOptions, issuer: string): PreRegisteredClient | undefined {
  const c = options.client;
  if (typeof c === 'function') return c(issuer);
  // Credentials bound to an issuer are never presented to another authorization server.
  return c && (c.issuer === undefined || c.issuer === issuer) ? c : undefined;
}

function fromPreRegistered(c: PreRegisteredClient, as: oauth.AuthorizationServer): RegisteredClient {
  const supported = as.token_endpoint_auth_methods_supported;
  let method: string = c.tokenEndpointAuthMethod ?? 'none';
  if (!c.tokenEndpointAuthMethod && c.clientSecret !== undefined) {
    // RFC 8414 §2: client_secret_basic when the server does not say.
    method =
      !supported || supported.includes('client_secret_basic')
        ? 'client_secret_basic'
        : supported.includes('client_secret_post')
          ? 'client_secret_post'
          : 'client_secret_basic';
  }
  return { client_id: c.clientId, client_secret: c.clientSecret, token_endpoint_auth_method: method };
}

/** The token endpoint authentication to register with: the first the server supports of basic, post, none. */
function registrationMethod(as: oauth.AuthorizationServer): string {
  const supported = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const method = [...SECRET_METHODS, 'none'].find((m) => supported.includes(m));
  if (!method) {
    throw authError(
      `the authorization server ${as.issuer} supports none of the token endpoint authentication methods this client has (client_secret_basic, client_secret_post, none): it lists ${supported.join(', ')}.`,
    );
  }
  return method;
}

async function register(http: OAuthHttp, as: oauth.AuthorizationServer, options: OAuthClientOptions): Promise<RegisteredClient> {
  const redirectUri = new URL(String(options.redirectUri));
  const method = registrationMethod(as);
  const grants = as.grant_types_supported;
  // Asking for refresh_token lets the server issue refresh tokens (2026-07-28 §Refresh Tokens), unless it does not have the grant.
  const grantTypes = ['authorization_code', ...(!grants || grants.includes('refresh_token') ? ['refresh_token'] : [])];
  const metadata: Partial<oauth.OmitSymbolProperties<oauth.Client>> = {
    client_name: options.clientName ?? 'Janus MCP client',
    redirect_uris: [redirectUri.href],
    grant_types: grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: method,
    // SEP-837: native for loopback and private-use scheme redirects, web otherwise.
    application_type: redirectUri.protocol === 'https:' && !isLoopback(redirectUri) ? 'web' : 'native',
  };
  const res = await oauth.dynamicClientRegistrationRequest(as, metadata, http.options);
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> | undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null) body = value as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  // RFC 7591 says 201; some servers answer 200. Lenient on the rest (client_secret_expires_at is often missing).
  if ((res.status !== 201 && res.status !== 200) || typeof body?.client_id !== 'string') {
    const why =
      typeof body?.error === 'string'
        ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`
        : `HTTP ${res.status}`;
    throw authError(`dynamic client registration at ${as.registration_endpoint} failed (${why}).`);
  }
  const registered = typeof body.token_endpoint_auth_method === 'string' ? body.token_endpoint_auth_method : method;
  return {
    client_id: body.client_id,
    client_secret: typeof body.client_secret === 'string' && registered !== 'none' ? body.client_secret : undefined,
    token_endpoint_auth_method: registered,
  };
}

/** oauth4webapi's client authentication for a registered client. */
export function clientAuthentication(client: RegisteredClient): oauth.ClientAuth {
  const method = client.token_endpoint_auth_method;
  if (method === 'none') return oauth.None();
  if (client.client_secret === undefined) {
    throw authError(`the client ${client.client_id} authenticates with ${method} at the token endpoint but has no client secret.`);
  }
  if (method === 'client_secret_post') return oauth.ClientSecretPost(client.client_secret);
  if (method === 'client_secret_basic') return secretBasic(client.client_secret);
  throw authError(
    `the token endpoint authentication method ${method} of client ${client.client_id} is not supported (client_secret_basic, client_secret_post and none are).`,
  );
}

/**
 * client_secret_basic (RFC 6749 §2.3.1): id and secret form-urlencoded, then Basic. The WHATWG
 * urlencoded serializer leaves `-`, `.`, `_` and `*` as they are, where oauth4webapi's encodes
 * them too; servers that skip the decoding step (common) then see the plain id they issued.
 */
function secretBasic(secret: string): oauth.ClientAuth {
  const encode = (s: string) => new URLSearchParams([['', s]]).toString().slice(1);
  return (_as, client, _body, headers) => {
    headers.set('authorization', `Basic ${btoa(`${encode(client.client_id)}:${encode(secret)}`)}`);
  };
}
