/** `WWW-Authenticate: Bearer …` challenges (RFC 6750 §3, RFC 9728 §5.1). Runtime-neutral. */

export type ChallengeError = 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof';

export interface ChallengeParams {
  readonly resourceMetadata: string;
  readonly scope?: readonly string[];
  readonly error?: ChallengeError;
  readonly description?: string;
  /** A `DPoP` challenge (RFC 9449 §7.1) with these proof algorithms, instead of `Bearer`. */
  readonly dpopAlgs?: readonly string[];
}

/** A quoted value; RFC 6750 §3 allows only printable ASCII without `"` and `\\` in them, so anything else becomes a space. */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, ' ')}"`;
}

export function bearerChallenge(p: ChallengeParams): string {
  const parts: string[] = [];
  if (p.dpopAlgs !== undefined) parts.push(`algs=${quoted(p.dpopAlgs.join(' '))}`);
  if (p.error !== undefined) parts.push(`error=${quoted(p.error)}`);
  if (p.description !== undefined) parts.push(`error_description=${quoted(p.description)}`);
  if (p.scope !== undefined && p.scope.length > 0) parts.push(`scope=${quoted(p.scope.join(' '))}`);
  parts.push(`resource_metadata=${quoted(p.resourceMetadata)}`);
  return `${p.dpopAlgs !== undefined ? 'DPoP' : 'Bearer'} ${parts.join(', ')}`;
}
