/**
 * JWT access tokens (RFC 9068) checked with `jose` against the issuer's JWKS, found through
 * its metadata: signature, `iss`, `aud` (this resource), `exp`, `nbf`. Loaded lazily, only by
 * servers configured with `auth`.
 */
import * as jose from 'jose';
import type { AuthInfo } from '../../server/index.js';
import type { IssuerMetadata } from './authorization-server.js';
import { AuthorizationServerUnavailable, InvalidTokenError } from './errors.js';
import { authFromClaims } from './token-claims.js';

/** jose errors that say nothing about the token: the key set could not be fetched or read. */
function unavailable(e: unknown): boolean {
  return !(e instanceof jose.errors.JOSEError) || e instanceof jose.errors.JWKSTimeout || e instanceof jose.errors.JWKSInvalid;
}

export class JwtVerifier {
  readonly #metadata: IssuerMetadata;
  readonly #clockTolerance: number;
  #jwks: ReturnType<typeof jose.createRemoteJWKSet> | undefined;

  constructor(metadata: IssuerMetadata, clockToleranceSec: number) {
    this.#metadata = metadata;
    this.#clockTolerance = clockToleranceSec;
  }

  async #keySet(): Promise<ReturnType<typeof jose.createRemoteJWKSet>> {
    if (this.#jwks !== undefined) return this.#jwks;
    const as = await this.#metadata.get();
    if (typeof as.jwks_uri !== 'string') {
      throw new AuthorizationServerUnavailable(`authorization server ${as.issuer} publishes no jwks_uri for its JWT access tokens`);
    }
    // createRemoteJWKSet caches the keys and refetches (rate-limited) when a token names an unknown kid.
    this.#jwks ??= jose.createRemoteJWKSet(new URL(as.jwks_uri));
    return this.#jwks;
  }

  async verify(token: string, resource: string): Promise<AuthInfo> {
    const issuer = this.#metadata.issuer;
    const keys = await this.#keySet();
    try {
      const { payload } = await jose.jwtVerify(token, keys, {
        issuer,
        audience: resource,
        requiredClaims: ['exp'],
        clockTolerance: this.#clockTolerance,
      });
      return authFromClaims(payload, issuer, token);
    } catch (e) {
      if (unavailable(e))
        throw new AuthorizationServerUnavailable(`the keys of authorization server ${issuer} cannot be read`, { cause: e });
      throw new InvalidTokenError(describe(e), { cause: e });
    }
  }
}

/** A short reason for the challenge's error_description; the details stay here. */
function describe(e: unknown): string {
  if (e instanceof jose.errors.JWTExpired) return 'the access token expired';
  if (e instanceof jose.errors.JWTClaimValidationFailed) {
    if (e.claim === 'aud') return 'the access token was not issued for this resource';
    if (e.claim === 'iss') return 'the access token was not issued by the expected authorization server';
    if (e.claim === 'nbf') return 'the access token is not valid yet';
    return `the access token's ${e.claim} claim is not valid`;
  }
  if (e instanceof jose.errors.JWKSNoMatchingKey || e instanceof jose.errors.JWSSignatureVerificationFailed) {
    return 'the access token signature does not verify against the authorization server keys';
  }
  return 'the access token is not a valid JWT';
}
