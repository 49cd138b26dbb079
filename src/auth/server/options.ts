/** What a protected MCP server (an OAuth 2.1 resource server) is configured with. Runtime-neutral, no imports. */
import type { AuthInfo } from '../../server/index.js';

/**
 * Checks an access token by your own means (an API gateway's, a custom token format). Return
 * the verified identity, or throw an `InvalidTokenError` to refuse the token (401
 * `invalid_token`); any other error is reported and answered 503. The resource server still
 * checks what it returns: the issuer, that `audience` names this server, and the expiry.
 */
export type TokenVerifier = (token: string, context: { readonly resource: string; readonly issuer: string }) => Promise<AuthInfo>;

/** RFC 7662 token introspection, for authorization servers that issue opaque access tokens. */
export interface IntrospectionOptions {
  /** The introspection endpoint; default: `introspection_endpoint` from the issuer's metadata. */
  endpoint?: string;
  /** This resource server's client credentials at the authorization server (HTTP Basic). */
  clientId: string;
  /** The secret that goes with `clientId`. */
  clientSecret: string;
}

/**
 * The HTTP endpoint as an OAuth 2.1 resource server (`auth` option): which authorization server's
 * tokens it accepts and how they are verified, and the scopes every request needs. Requests
 * without a valid token get 401 with a `WWW-Authenticate` challenge.
 */
export interface ResourceServerOptions {
  /**
   * The authorization server's issuer identifier. Its metadata (RFC 8414, else OpenID Connect
   * Discovery) gives the JWKS for JWT access tokens; every token must carry this `iss`.
   */
  issuer: string;
  /**
   * This server's canonical URL (RFC 8707 / RFC 9728 `resource`): every token's audience must
   * name it, and the protected resource metadata advertises it. Default: derived from each
   * request, `http(s)://` + its Host header + the endpoint's path (Host is checked by the
   * DNS-rebinding guard). Set it in production, where a proxy in front may change the scheme,
   * host or path, and with `path: false`.
   */
  resource?: string;
  /** Scopes every request needs (401 challenges name them; a token without them gets 403). */
  scopes?: string[];
  /** `scopes_supported` of the metadata. Default: `scopes`. */
  scopesSupported?: string[];
  /** `resource_name` of the metadata: a name for people. */
  resourceName?: string;
  /** `resource_documentation` of the metadata: a page for people. */
  resourceDocumentation?: string;
  /**
   * Broader scopes that imply narrower ones (authorization.mdx: servers MUST account for
   * scope hierarchies), e.g. `{ 'notes:admin': ['notes:read', 'notes:write'] }`.
   */
  impliedScopes?: Record<string, string[]>;
  /** Your own token check, instead of JWT verification against the issuer's JWKS. */
  verify?: TokenVerifier;
  /** Check tokens by introspection (RFC 7662) instead of as JWTs. */
  introspection?: IntrospectionOptions;
  /** Allowed clock skew for `exp`/`nbf`, in seconds. Default 0. */
  clockToleranceSec?: number;
  /**
   * DPoP (RFC 9449). A DPoP-bound token (`cnf.jkt`) is always accepted only with
   * `Authorization: DPoP` and a valid proof, and never as a Bearer token; `required: true`
   * refuses every token that is not DPoP-bound (metadata: `dpop_bound_access_tokens_required`).
   * `maxAgeSec`: how old a proof may be (its `iat`), default 300.
   */
  dpop?: { required?: boolean; maxAgeSec?: number };
  /**
   * Verified tokens are kept, so that a token seen again is not verified again: keyed by the
   * exact token and the resource, never past the token's `exp`, a JWT only while the issuer's
   * key set it was checked against is current (jose refetches it after 10 minutes or for an
   * unknown `kid`), an introspection answer at most `introspectionMaxAgeSec` (default 60; 0:
   * introspect every request). `maxEntries`: at most this many tokens (default 10,000; the
   * oldest goes first). Refused tokens and the answers of a custom `verify` are never kept; the
   * DPoP proof and the scopes are checked on every request. `false`: verify every request.
   */
  tokenCache?: false | { maxEntries?: number; introspectionMaxAgeSec?: number };
}
