/** Asymmetric JWS algorithms a DPoP proof may use (RFC 9449 §4.2: not `none`, no MAC). No imports: the metadata names them without loading jose. */
export const DPOP_ALGORITHMS: readonly string[] = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
];
