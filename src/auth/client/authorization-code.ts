/**
 * The authorization code grant with PKCE S256 (OAuth 2.1 §4.1), the MCP way: `resource`
 * (RFC 8707) on both requests, the authorization response checked (state, then `iss` per
 * RFC 9207 as the 2026-07-28 table says) before the code goes anywhere.
 */
import * as oauth from 'oauth4webapi';
import { authError } from './errors.js';
import type { OAuthHttp } from './http.js';
import type { RedirectHandler } from './options.js';
import { withDPoPNonce } from './dpop-nonce.js';
import { clientAuthentication } from './registration.js';
import type { RegisteredClient } from './token-store.js';

export interface CodeGrantRequest {
  http: OAuthHttp;
  as: oauth.AuthorizationServer;
  /** Whether `as` came from a metadata document (the 2025-03-26 default endpoints advertise nothing). */
  fromMetadata: boolean;
  client: RegisteredClient;
  resource: string;
  /** Undefined: no `scope` parameter at all. */
  scopes: string[] | undefined;
  redirectUri: string;
  redirect: RedirectHandler;
  /** DPoP proofs on the token request (RFC 9449 §5), when configured. */
  dpop?: oauth.DPoPHandle;
}

export async function authorizationCodeGrant(req: CodeGrantRequest): Promise<oauth.TokenEndpointResponse> {
  const { as, http } = req;
  const methods = as.code_challenge_methods_supported;
  if (req.fromMetadata && !methods?.includes('S256')) {
    // 2025-11-25 §Authorization Code Protection: no advertised PKCE support, no authorization.
    throw authError(
      `the authorization server ${as.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported is ${methods ? JSON.stringify(methods) : 'missing'}); MCP clients must not proceed without it.`,
    );
  }
  if (!as.authorization_endpoint) throw authError(`the authorization server ${as.issuer} has no authorization_endpoint.`);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint);
  const p = url.searchParams;
  p.set('response_type', 'code');
  p.set('client_id', req.client.client_id);
  p.set('redirect_uri', req.redirectUri);
  p.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  p.set('code_challenge_method', 'S256');
  p.set('state', state);
  if (req.scopes?.length) p.set('scope', req.scopes.join(' '));
  p.set('resource', req.resource);

  const back = await req.redirect(url);
  const client = { client_id: req.client.client_id };
  let params: URLSearchParams;
  try {
    // state, then iss (exact string against the validated metadata's issuer; required when advertised), then error.
    params = oauth.validateAuthResponse(as, client, back, state);
  } catch (e) {
    throw authResponseError(e, as, back);
  }
  // A use_dpop_nonce refusal comes before the code is redeemed: the same code goes again with the nonce (RFC 9449 §8).
  return withDPoPNonce(req.dpop, async () => {
    const res = await oauth.authorizationCodeGrantRequest(as, client, clientAuthentication(req.client), params, req.redirectUri, verifier, {
      ...http.options,
      DPoP: req.dpop,
      additionalParameters: { resource: req.resource },
    });
    try {
      return await oauth.processAuthorizationCodeResponse(as, client, res);
    } catch (e) {
      if (req.dpop && oauth.isDPoPNonceError(e)) throw e;
      throw tokenError(e, as);
    }
  });
}

export async function refreshGrant(
  http: OAuthHttp,
  as: oauth.AuthorizationServer,
  client: RegisteredClient,
  refreshToken: string,
  resource: string,
  dpop?: oauth.DPoPHandle,
): Promise<oauth.TokenEndpointResponse> {
  const c = { client_id: client.client_id };
  return withDPoPNonce(dpop, async () => {
    const res = await oauth.refreshTokenGrantRequest(as, c, clientAuthentication(client), refreshToken, {
      ...http.options,
      DPoP: dpop,
      additionalParameters: { resource },
    });
    try {
      return await oauth.processRefreshTokenResponse(as, c, res);
    } catch (e) {
      if (dpop && oauth.isDPoPNonceError(e)) throw e;
      throw tokenError(e, as);
    }
  });
}

function authResponseError(e: unknown, as: oauth.AuthorizationServer, back: URL): Error {
  const iss = back.searchParams.get('iss');
  if (e instanceof oauth.AuthorizationResponseError) {
    const desc = e.error_description ? `: ${e.error_description}` : '';
    return authError(`the authorization server ${as.issuer} refused the authorization request (${e.error}${desc}).`, e);
  }
  const message = e instanceof Error ? e.message : String(e);
  if (/"iss"/.test(message)) {
    return authError(
      iss === null
        ? `the authorization response has no iss parameter, though the authorization server ${as.issuer} advertises authorization_response_iss_parameter_supported (RFC 9207). It was not used: the code was not sent to the token endpoint.`
        : `the authorization response says it comes from ${JSON.stringify(iss)}, not from ${JSON.stringify(as.issuer)}, the authorization server this client sent the user to (RFC 9207 mix-up protection; compared as exact strings). It was not used: the code was not sent to the token endpoint.`,
      e,
    );
  }
  if (/"state"/.test(message)) {
    return authError(`the authorization response does not carry the state of this client's request (${message}); it was not used.`, e);
  }
  return authError(`the authorization response is not usable: ${message}`, e);
}

export function tokenError(e: unknown, as: oauth.AuthorizationServer): Error {
  if (e instanceof oauth.ResponseBodyError) {
    const desc = e.error_description ? `: ${e.error_description}` : '';
    return authError(`the token endpoint of ${as.issuer} refused the request (HTTP ${e.status}, ${e.error}${desc}).`, e);
  }
  if (e instanceof oauth.WWWAuthenticateChallengeError) {
    return authError(`the token endpoint of ${as.issuer} refused the client's authentication (HTTP ${e.status}).`, e);
  }
  return authError(`the token endpoint of ${as.issuer} gave an unusable answer: ${e instanceof Error ? e.message : String(e)}`, e);
}
