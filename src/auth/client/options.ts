/** What the OAuth client of `connect({ auth })` accepts. */
import type { TokenStore } from './token-store.js';

/**
 * The user's part of the authorization code flow: show `authorizationUrl` to the user (open a
 * browser) or follow it (headless), and resolve with the URL the authorization server
 * redirected to (the `redirectUri` with `code`, `state` and `iss`, or `error`).
 */
export type RedirectHandler = (authorizationUrl: URL) => Promise<URL>;

/** A client registered ahead of time with an authorization server. */
export interface PreRegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** Default: `client_secret_basic` with a secret (RFC 8414's default), `none` without one; or the AS's only advertised method. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /**
   * The issuer it was registered with. When given, the credentials are used with that
   * authorization server only (client IDs are unique to the server that issued them).
   */
  issuer?: string;
}

export interface OAuthClientOptions {
  /** Where the authorization server sends the user back; must match the registration. */
  redirectUri: string | URL;
  /** Drives the user's part of the flow (see `headlessRedirect` for CI and tests). */
  redirect: RedirectHandler;
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
