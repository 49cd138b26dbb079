/**
 * JWT access tokens (RFC 9068) checked with `jose` against the issuer's JWKS, found through
 * its metadata: signature, `iss`, `aud` (this resource), `exp`, `nbf`. Loaded lazily, only by
 * servers configured with `auth`.
 */
import * as jose from 'jose';
import type { IssuerMetadata } from './authorization-server.js';
import { AuthorizationServerUnavailable, InvalidTokenError } from './errors.js';
import { authFromClaims } from './token-claims.js';
import type { Verified } from './token-cache.js';

/** jose errors that say nothing about the token: the key set could not be fetched or read. */
function unavailable(e: unknown): boolean {
  return !(e instanceof jose.errors.JOSEError) || e instanceof jose.errors.JWKSTimeout || e instanceof jose.errors.JWKSInvalid;
}

export class JwtVerifier {
  readonly #metadata: IssuerMetadata;
  readonly #clockTolerance: number;
  #jwks: ReturnType<typeof jose.createRemoteJWKSet> | undefined;
  /** Bumped whenever jose may have refetched the key set: a verification from before no longer counts. */
  #generation = 0;

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

  /**
   * Verifies `token`, and says how long that verification holds: until its `exp` (with the
   * clock tolerance), while the key set it was checked against is the current one and fresh.
   */
  async verify(token: string, resource: string): Promise<Verified> {
    const issuer = this.#metadata.issuer;
    const keys = await this.#keySet();
    // Which key set the signature was checked against, as a generation: -1 when that is not sure.
    let stamp = -1;
    const lookup: jose.JWTVerifyGetKey = async (header, jws) => {
      const fresh = keys.fresh;
      const cooling = keys.coolingDown;
      const generation = this.#generation;
      try {
        return await keys(header, jws);
      } finally {
        // jose refetches the set when its copy is older than its cache age (not fresh before:
        // this lookup waited for the refetch and used the new set), or for an unknown kid after
        // its cooldown (cooling down after, not before: this lookup, or one at the same time, refetched).
        if (!fresh) stamp = ++this.#generation;
        else if (!cooling && keys.coolingDown) this.#generation++;
        else stamp = generation;
      }
    };
    try {
      const { payload } = await jose.jwtVerify(token, lookup, {
        issuer,
        audience: resource,
        requiredClaims: ['exp'],
        clockTolerance: this.#clockTolerance,
      });
      return {
        auth: authFromClaims(payload, issuer, token),
        until: (payload.exp! + this.#clockTolerance) * 1000,
        current: () => this.#generation === stamp && keys.fresh,
      };
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
