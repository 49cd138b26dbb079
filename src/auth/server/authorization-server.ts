/**
 * The issuer's metadata (RFC 8414, else OpenID Connect Discovery 1.0), fetched once and kept,
 * with `oauth4webapi`, which also checks that the document names the issuer it was asked
 * about. Loaded only when a protected server verifies its first token.
 */
import * as oauth from 'oauth4webapi';
import { AuthorizationServerUnavailable } from './errors.js';

/** `http:` issuers are the configuration's choice (a local authorization server); oauth4webapi refuses them unless told. */
export function insecureAllowed(url: URL): Record<symbol, boolean> {
  return url.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
}

/** Fetches the issuer's metadata: the OAuth well-known first, then the OpenID one. */
export async function discoverIssuer(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  let last: unknown;
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    try {
      const response = await oauth.discoveryRequest(url, { algorithm, ...insecureAllowed(url) });
      return await oauth.processDiscoveryResponse(url, response);
    } catch (e) {
      last = e;
    }
  }
  throw new AuthorizationServerUnavailable(`the metadata of authorization server ${issuer} cannot be read: ${String(last)}`, {
    cause: last,
  });
}

/** One metadata fetch shared by every request; a failure is forgotten so the next request tries again. */
export class IssuerMetadata {
  #pending: Promise<oauth.AuthorizationServer> | undefined;
  constructor(readonly issuer: string) {}

  get(): Promise<oauth.AuthorizationServer> {
    this.#pending ??= discoverIssuer(this.issuer).catch((e: unknown) => {
      this.#pending = undefined;
      throw e;
    });
    return this.#pending;
  }
}
