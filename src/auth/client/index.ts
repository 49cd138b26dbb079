/**
 * The OAuth client of `janus-mcp/client` (`connect(url, { auth })`). Nothing here loads an
 * OAuth library: the flow (and oauth4webapi) is imported when a server first asks for a token.
 */
export { OAuthClient } from './oauth-client.js';
export { headlessRedirect, type HeadlessRedirectOptions } from './headless.js';
export { FileTokenStore } from './file-token-store.js';
export { loopbackLogin, type LoopbackLogin, type LoopbackLoginOptions } from './loopback.js';
export {
  InMemoryTokenStore,
  tokenStoreKey,
  type RegisteredClient,
  type StoredAuthorization,
  type StoredTokens,
  type TokenStore,
} from './token-store.js';
export { parseBearerChallenge, type BearerChallenge } from './challenge.js';
export type {
  AssertionSource,
  AuthorizationCodeGrantOptions,
  ClientCredentials,
  ClientCredentialsGrantOptions,
  DPoPOptions,
  EnterpriseManagedGrantOptions,
  GrantOptions,
  JwtBearerGrantOptions,
  OAuthClientOptions,
  OAuthProvider,
  PreRegisteredClient,
  RedirectHandler,
} from './options.js';
