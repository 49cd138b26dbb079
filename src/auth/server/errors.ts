/** A token the resource server refuses: answered 401 with `error="invalid_token"` (RFC 6750 §3.1). */
export class InvalidTokenError extends Error {
  /** Always `InvalidTokenError`. */
  override readonly name = 'InvalidTokenError';
}

/** The authorization server (its metadata, JWKS or introspection endpoint) cannot be reached: 503. */
export class AuthorizationServerUnavailable extends Error {
  override readonly name = 'AuthorizationServerUnavailable';
}

/** A DPoP proof that does not hold (RFC 9449 §7.1): 401 with `error="invalid_dpop_proof"`. */
export class InvalidDpopProof extends Error {
  override readonly name = 'InvalidDpopProof';
}
