/** The identity (`ctx.auth`) in a verified token's claims. Runtime-neutral. */
import type { AuthInfo } from '../../server/index.js';
import { grantedScopes } from './scopes.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function authFromClaims(claims: Readonly<Record<string, unknown>>, issuer: string, token: string): AuthInfo {
  const aud = claims.aud;
  const audience = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
  return {
    subject: str(claims.sub),
    clientId: str(claims.client_id) ?? str(claims.azp),
    scopes: grantedScopes(claims),
    issuer: str(claims.iss) ?? issuer,
    audience,
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    claims,
    token,
  };
}
