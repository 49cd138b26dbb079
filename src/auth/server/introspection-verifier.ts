/**
 * Opaque access tokens checked by token introspection (RFC 7662) with `oauth4webapi`: the
 * token must be active, issued by the issuer, and for this resource (its `aud`). Loaded lazily.
 */
import * as oauth from 'oauth4webapi';
import type { AuthInfo } from '../../server/index.js';
import { insecureAllowed, type IssuerMetadata } from './authorization-server.js';
import { AuthorizationServerUnavailable, InvalidTokenError } from './errors.js';
import type { IntrospectionOptions } from './options.js';
import { authFromClaims } from './token-claims.js';

export class IntrospectionVerifier {
  readonly #metadata: IssuerMetadata;
  readonly #options: IntrospectionOptions;

  constructor(metadata: IssuerMetadata, options: IntrospectionOptions) {
    this.#metadata = metadata;
    this.#options = options;
  }

  async #server(): Promise<oauth.AuthorizationServer> {
    const endpoint = this.#options.endpoint;
    if (endpoint !== undefined) return { issuer: this.#metadata.issuer, introspection_endpoint: endpoint };
    const as = await this.#metadata.get();
    if (as.introspection_endpoint === undefined) {
      throw new AuthorizationServerUnavailable(`authorization server ${as.issuer} advertises no introspection_endpoint`);
    }
    return as;
  }

  async verify(token: string): Promise<AuthInfo> {
    const as = await this.#server();
    const client: oauth.Client = { client_id: this.#options.clientId };
    let claims: oauth.IntrospectionResponse;
    try {
      const response = await oauth.introspectionRequest(as, client, oauth.ClientSecretBasic(this.#options.clientSecret), token, {
        ...insecureAllowed(new URL(as.introspection_endpoint!)),
      });
      claims = await oauth.processIntrospectionResponse(as, client, response);
    } catch (e) {
      throw new AuthorizationServerUnavailable(`token introspection at ${as.introspection_endpoint} failed`, { cause: e });
    }
    if (claims.active !== true) throw new InvalidTokenError('the access token is not active');
    if (claims.iss !== undefined && claims.iss !== this.#metadata.issuer) {
      throw new InvalidTokenError('the access token was not issued by the expected authorization server');
    }
    return authFromClaims(claims, this.#metadata.issuer, token);
  }
}
