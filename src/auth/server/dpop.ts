/**
 * DPoP proofs at the resource (RFC 9449 §4.3, §7.1), checked with `jose`: a `dpop+jwt` signed
 * by the public key in its own header, for this request's method and URL, fresh, used once,
 * carrying the hash of the access token, by the key the token is bound to (`cnf.jkt`).
 * Loaded lazily, on the first DPoP request.
 */
import * as jose from 'jose';
import { DPOP_ALGORITHMS } from './dpop-algorithms.js';
import { InvalidDpopProof } from './errors.js';

export interface ProofContext {
  readonly proof: string;
  readonly method: string;
  /** The URLs this request may be named by (the one it reached, the configured resource). */
  readonly urls: readonly string[];
  readonly token: string;
  /** The token's `cnf.jkt`. */
  readonly jkt: string;
}

/** A URL as `htu` compares (RFC 9449 §4.3 item 9): no query, no fragment. */
function htuForm(u: string): string | undefined {
  try {
    const url = new URL(u);
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** The proofs' `jti`s seen within their lifetime, so that a proof is used once (RFC 9449 §11.1). */
export class ReplayCache {
  readonly #seen = new Map<string, number>();
  constructor(readonly limit = 100_000) {}

  /** False when `key` was seen before and has not expired. */
  claim(key: string, expiresAt: number, now: number): boolean {
    const until = this.#seen.get(key);
    if (until !== undefined && until > now) return false;
    if (this.#seen.size >= this.limit) this.#prune(now);
    this.#seen.set(key, expiresAt);
    return true;
  }

  #prune(now: number): void {
    for (const [k, until] of this.#seen) if (until <= now) this.#seen.delete(k);
    // Still full: the oldest go first (Map keeps insertion order).
    for (const k of this.#seen.keys()) {
      if (this.#seen.size < this.limit) break;
      this.#seen.delete(k);
    }
  }
}

function describe(e: unknown): string {
  if (e instanceof jose.errors.JWTExpired || e instanceof jose.errors.JWTClaimValidationFailed) {
    return e.claim === 'iat' ? 'the DPoP proof is too old or from the future (iat)' : `the DPoP proof's ${e.claim} claim is not valid`;
  }
  return 'the DPoP proof does not verify (typ dpop+jwt, an asymmetric alg, the signature by the jwk in its header)';
}

export async function verifyDpopProof(
  c: ProofContext,
  replay: ReplayCache,
  options: { readonly maxAgeSec: number; readonly clockToleranceSec: number },
): Promise<void> {
  let payload: jose.JWTPayload;
  let header: jose.JWTHeaderParameters;
  try {
    ({ payload, protectedHeader: header } = await jose.jwtVerify(c.proof, jose.EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...DPOP_ALGORITHMS],
      maxTokenAge: options.maxAgeSec,
      clockTolerance: options.clockToleranceSec,
    }));
  } catch (e) {
    throw new InvalidDpopProof(describe(e), { cause: e });
  }
  if (payload.htm !== c.method) throw new InvalidDpopProof('the DPoP proof is for another HTTP method (htm)');
  const htu = typeof payload.htu === 'string' ? htuForm(payload.htu) : undefined;
  if (htu === undefined || !c.urls.some((u) => htuForm(u) === htu)) throw new InvalidDpopProof('the DPoP proof is for another URL (htu)');
  const ath = jose.base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(c.token))));
  if (payload.ath !== ath) throw new InvalidDpopProof('the DPoP proof is for another access token (ath)');
  if ((await jose.calculateJwkThumbprint(header.jwk!, 'sha256')) !== c.jkt) {
    throw new InvalidDpopProof('the DPoP proof is signed by another key than the access token is bound to');
  }
  if (typeof payload.jti !== 'string' || payload.jti === '') throw new InvalidDpopProof('the DPoP proof has no jti');
  const now = Date.now() / 1000;
  if (!replay.claim(`${c.jkt} ${payload.jti}`, payload.iat! + options.maxAgeSec + options.clockToleranceSec, now)) {
    throw new InvalidDpopProof('the DPoP proof was used before (jti)');
  }
}
