/** What the OAuth client of `connect({ auth })` accepts. */
import type { CryptoKey, CryptoKeyPair } from 'oauth4webapi';
import type { TokenStore } from './token-store.js';

/**
 * The user's part of the authorization code flow: show `authorizationUrl` to the user (open a
 * browser) or follow it (headless), and resolve with the URL the authorization server
 * redirected to (the `redirectUri` with `code`, `state` and `iss`, or `error`).
 */
export type RedirectHandler = (authorizationUrl: URL) => Promise<URL>;

/** A client registered ahead of time with an authorization server. */
export interface PreRegisteredClient {
  /** The client id the authorization server issued. */
  clientId: string;
  /** Its secret, for a confidential client. */
  clientSecret?: string;
  /** Default: `client_secret_basic` with a secret (RFC 8414's default), `none` without one; or the AS's only advertised method. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /**
   * The issuer it was registered with. When given, the credentials are used with that
   * authorization server only (client IDs are unique to the server that issued them).
   */
  issuer?: string;
}

/**
 * How a client without a user authenticates at a token endpoint. The method: `tokenEndpointAuthMethod`
 * when given, else `private_key_jwt` with a `privateKey`, `client_secret_basic` with a
 * `clientSecret`, `none` (the client_id in the body) with neither.
 */
export interface ClientCredentials {
  /** The client's id at the authorization server. */
  clientId: string;
  /** The secret for `client_secret_basic` / `client_secret_post`. */
  clientSecret?: string;
  /**
   * The key for `private_key_jwt` (RFC 7523 §2.2): a PKCS#8 PEM string or a CryptoKey. The
   * client assertion is signed with it (iss = sub = clientId, aud = the authorization server's issuer).
   */
  privateKey?: string | CryptoKey;
  /** The JWS algorithm of `privateKey` (default ES256), e.g. RS256, PS256, EdDSA. */
  signingAlgorithm?: string;
  /** The `kid` header of the client assertion, when the authorization server holds several keys of the client. */
  keyId?: string;
  /**
   * How the client authenticates at the token endpoint (default: from the credentials given, as
   * above).
   */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
}

/** The authorization code grant with PKCE (the default): a user authorizes in a browser. */
export interface AuthorizationCodeGrantOptions {
  /** The grant's name. */
  type: 'authorization_code';
}

/**
 * The client credentials grant (OAuth 2.1 §4.2; extension io.modelcontextprotocol/oauth-client-credentials):
 * the client acts for itself. No user, no redirect: `redirectUri` and `redirect` are not needed.
 */
export interface ClientCredentialsGrantOptions extends ClientCredentials {
  /** The grant's name. */
  type: 'client_credentials';
  /** The scopes to ask for (default: the server's challenge's scope, else its `scopes_supported`). */
  scope?: string[];
}

/** A JWT, or what produces a fresh one each time a token is requested (workload tokens are short-lived). */
export type AssertionSource = string | (() => string | Promise<string>);

/**
 * The JWT bearer grant (RFC 7523 §2.1) with a workload identity token as the `assertion`:
 * workload identity federation (SEP-1933). An `invalid_grant`, `invalid_scope` or
 * `unauthorized_client` answer is a JanusError 'AUTH', not retried.
 */
export interface JwtBearerGrantOptions extends ClientCredentials {
  /** The grant's name. */
  type: 'jwt_bearer';
  /** The workload's JWT (its audience must be the authorization server). */
  assertion: AssertionSource;
  /** The scopes to ask for (default: the server's challenge's scope, else its `scopes_supported`). */
  scope?: string[];
}

/**
 * Enterprise-managed authorization (SEP-990, extension io.modelcontextprotocol/enterprise-managed-authorization):
 * the user's ID token is exchanged at the enterprise IdP for an ID-JAG (RFC 8693 token exchange),
 * which the client then presents to the MCP server's authorization server (RFC 7523 jwt-bearer grant).
 * `clientId` and its credentials are the client's at the MCP server's authorization server.
 */
export interface EnterpriseManagedGrantOptions extends ClientCredentials {
  /** The grant's name. */
  type: 'enterprise_managed';
  /**
   * The enterprise identity provider: where the ID token is exchanged, and the client's
   * credentials there.
   */
  idp: {
    /** The IdP's token endpoint (where the token exchange goes). */
    tokenEndpoint: string;
    /** The IdP's issuer (default: the token endpoint's origin). */
    issuer?: string;
    /** The user's ID token from the IdP (the token exchange's subject_token). */
    idToken: AssertionSource;
  } & ClientCredentials;
  /** The scopes to ask for (default: the server's challenge's scope, else its `scopes_supported`). */
  scope?: string[];
}

/** Which grant obtains the tokens: picked by the application, never guessed. */
export type GrantOptions =
  | AuthorizationCodeGrantOptions
  | ClientCredentialsGrantOptions
  | JwtBearerGrantOptions
  | EnterpriseManagedGrantOptions;

/**
 * DPoP (RFC 9449): sender-constrained tokens. Every token request and every request to the MCP
 * server carries a proof signed with the key pair (server nonces from either are honoured), and
 * the token goes out as `Authorization: DPoP`.
 */
export interface DPoPOptions {
  /**
   * The key pair proofs are signed with (its public key extractable). Default: one generated per
   * OAuthClient (ES256) — pass your own to use tokens from a persistent store after a restart.
   */
  keyPair?: CryptoKeyPair;
  /** The algorithm of the generated key pair (default ES256). */
  algorithm?: string;
}

/**
 * How the client obtains OAuth access tokens for an MCP server (`connect(url, { auth })`): the
 * grant, the client's registration (pre-registered, metadata document or dynamic), the redirect
 * handling for a user's login, the token store, and DPoP.
 */
export interface OAuthClientOptions {
  /**
   * Which grant to use (default `{ type: 'authorization_code' }`). The other grants need no
   * user: client credentials, JWT bearer (workload identity), enterprise-managed.
   */
  grant?: GrantOptions;
  /** DPoP-bound tokens (`true`: a generated key pair). Default: bearer tokens. */
  dpop?: boolean | DPoPOptions;
  /** Where the authorization server sends the user back; must match the registration. Required for the authorization code grant. */
  redirectUri?: string | URL;
  /** Drives the user's part of the flow (see `headlessRedirect` for CI and tests). Required for the authorization code grant. */
  redirect?: RedirectHandler;
  /**
   * Pre-registered credentials, used first when they apply to the authorization server: one
   * client (bound to `issuer` when it says so) or a lookup by issuer.
   */
  client?: PreRegisteredClient | ((issuer: string) => PreRegisteredClient | undefined);
  /**
   * An HTTPS URL of this client's metadata document (Client ID Metadata Documents), used as the
   * `client_id` with authorization servers that advertise
   * `client_id_metadata_document_supported`; otherwise dynamic registration is used.
   */
  clientMetadataUrl?: string;
  /** `client_name` for dynamic registration (default "Janus MCP client"). */
  clientName?: string;
  /** Where tokens and registrations are kept (default: in memory, per OAuthClient). */
  store?: TokenStore;
  /**
   * Ask for `offline_access` (a refresh token) when the authorization server lists it in
   * `scopes_supported` (default true; 2026-07-28 authorization §Refresh Tokens).
   */
  offlineAccess?: boolean;
  /**
   * Allow plain-HTTP authorization servers and metadata on hosts other than loopback ones
   * (default false: OAuth 2.1 wants TLS; localhost, 127.0.0.1 and [::1] are allowed for development).
   */
  allowInsecureHttp?: boolean;
  /** The fetch used for metadata, registration and token requests (default: the connection's `fetch`, else global fetch). */
  fetch?: typeof fetch;
  /** Most authorizations in a row without a request getting through (default 3), against a server that never accepts the token. */
  maxAuthorizationAttempts?: number;
}

/** Something that gives a connection's HTTP requests their authorization (the OAuth client, or an application's own). */
export interface OAuthProvider {
  /** A fetch for the MCP server at `serverUrl` that adds the Authorization header and obtains tokens as needed, over `inner`. */
  fetchFor(serverUrl: URL, inner: typeof fetch): typeof fetch;
}
