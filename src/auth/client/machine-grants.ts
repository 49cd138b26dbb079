/**
 * The grants without a user (the authorization extensions): client credentials, the JWT bearer
 * grant with a workload token, and enterprise-managed authorization (token exchange at the IdP
 * for an ID-JAG, then the JWT bearer grant). All token requests go through oauth4webapi, client
 * assertions are signed by it with keys jose imports; DPoP proofs are added when configured.
 */
import * as jose from 'jose';
import * as oauth from 'oauth4webapi';
import { tokenError } from './authorization-code.js';
import { withDPoPNonce } from './dpop-nonce.js';
import { authError } from './errors.js';
import type { OAuthHttp } from './http.js';
import type { AssertionSource, ClientCredentials, GrantOptions } from './options.js';
import { clientAuthentication } from './registration.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

export type MachineGrant = Exclude<GrantOptions, { type: 'authorization_code' }>;

export interface MachineGrantRequest {
  http: OAuthHttp;
  as: oauth.AuthorizationServer;
  grant: MachineGrant;
  resource: string;
  scopes: string[] | undefined;
  dpop: oauth.DPoPHandle | undefined;
}

/** A token for `resource` from `as` by the grant the application chose. */
export async function machineGrant(req: MachineGrantRequest): Promise<oauth.TokenEndpointResponse> {
  const { grant } = req;
  const params: Record<string, string> = { resource: req.resource };
  if (req.scopes?.length) params.scope = req.scopes.join(' ');
  if (grant.type === 'client_credentials') {
    return tokenRequest(req, grant, (client, auth, options) => oauth.clientCredentialsGrantRequest(req.as, client, auth, params, options));
  }
  const assertion =
    grant.type === 'jwt_bearer' ? await resolve(grant.assertion) : await idJag(req.http, req.as, grant, req.resource, req.scopes);
  return tokenRequest(req, grant, (client, auth, options) =>
    oauth.genericTokenEndpointRequest(req.as, client, auth, JWT_BEARER, { ...params, assertion }, options),
  );
}

type Send = (client: oauth.Client, auth: oauth.ClientAuth, options: oauth.TokenEndpointRequestOptions) => Promise<Response>;

/** One token request, sent again once when the authorization server asks for a DPoP nonce (RFC 9449 §8). */
async function tokenRequest(req: MachineGrantRequest, credentials: ClientCredentials, send: Send): Promise<oauth.TokenEndpointResponse> {
  const client: oauth.Client = { client_id: credentials.clientId };
  const auth = await authenticationOf(credentials);
  const options = { ...req.http.options, DPoP: req.dpop };
  return withDPoPNonce(req.dpop, async () => {
    const res = await send(client, auth, options);
    try {
      return await oauth.processGenericTokenEndpointResponse(req.as, client, res);
    } catch (e) {
      if (req.dpop && oauth.isDPoPNonceError(e)) throw e;
      throw tokenError(e, req.as);
    }
  });
}

/** RFC 8693 token exchange at the IdP: the user's ID token for an ID-JAG whose audience is `as` (SEP-990). */
async function idJag(
  http: OAuthHttp,
  as: oauth.AuthorizationServer,
  grant: Extract<MachineGrant, { type: 'enterprise_managed' }>,
  resource: string,
  scopes: string[] | undefined,
): Promise<string> {
  const { idp } = grant;
  const idpAs: oauth.AuthorizationServer = { issuer: idp.issuer ?? new URL(idp.tokenEndpoint).origin, token_endpoint: idp.tokenEndpoint };
  const client: oauth.Client = { client_id: idp.clientId };
  const params: Record<string, string> = {
    requested_token_type: ID_JAG,
    subject_token: await resolve(idp.idToken),
    subject_token_type: ID_TOKEN,
    audience: as.issuer,
    resource,
  };
  if (scopes?.length) params.scope = scopes.join(' ');
  const res = await oauth.genericTokenEndpointRequest(idpAs, client, await authenticationOf(idp), TOKEN_EXCHANGE, params, http.options);
  let body: oauth.TokenEndpointResponse;
  try {
    // The ID-JAG is not an access token: its token_type is N_A (RFC 8693 §2.2.1).
    body = await oauth.processGenericTokenEndpointResponse(idpAs, client, res, { recognizedTokenTypes: { n_a: () => {} } });
  } catch (e) {
    throw tokenError(e, idpAs);
  }
  if (body.issued_token_type !== ID_JAG) {
    throw authError(
      `the IdP ${idpAs.issuer} answered the token exchange with a ${String(body.issued_token_type)}, not an ID-JAG (${ID_JAG}).`,
    );
  }
  return body.access_token;
}

async function authenticationOf(c: ClientCredentials): Promise<oauth.ClientAuth> {
  const method =
    c.tokenEndpointAuthMethod ?? (c.privateKey ? 'private_key_jwt' : c.clientSecret !== undefined ? 'client_secret_basic' : 'none');
  if (method !== 'private_key_jwt') {
    return clientAuthentication({ client_id: c.clientId, client_secret: c.clientSecret, token_endpoint_auth_method: method });
  }
  if (!c.privateKey) throw authError(`private_key_jwt needs a privateKey for client ${c.clientId}.`);
  const alg = c.signingAlgorithm ?? 'ES256';
  let key: oauth.CryptoKey;
  try {
    key = typeof c.privateKey === 'string' ? await jose.importPKCS8(c.privateKey, alg) : c.privateKey;
  } catch (e) {
    throw authError(
      `the private key of client ${c.clientId} is not a PKCS#8 PEM ${alg} key: ${e instanceof Error ? e.message : String(e)}`,
      e,
    );
  }
  return oauth.PrivateKeyJwt(c.keyId ? { key, kid: c.keyId } : key);
}

async function resolve(source: AssertionSource): Promise<string> {
  return typeof source === 'function' ? source() : source;
}
