/**
 * Verified access tokens, kept so that a token seen again is not verified again (option
 * `tokenCache`). Keyed by the exact token string and the resource it was verified for; an entry
 * holds only what is a pure function of the token and the verifier's configuration (the
 * signature, `iss`, `aud`, `exp`, `nbf`, the introspection answer), never what depends on the
 * request (the DPoP proof, the scheme, the scopes an operation needs: checked every time).
 * Failed verifications are not kept. Runtime-neutral.
 */
import type { AuthInfo } from '../../server/index.js';

/** A verified token and how long its verification may be reused. */
export interface Verified {
  readonly auth: AuthInfo;
  /** Reuse until this time (ms since the epoch); 0: never. */
  readonly until: number;
  /** Asked at every reuse: false once what the verification relied on changed (the issuer's keys were refetched). */
  readonly current?: () => boolean;
}

interface Entry extends Verified {
  readonly resource: string;
}

export class TokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The identity `token` was verified as for `resource`, while that verification may still be reused. */
  get(token: string, resource: string, now: number): AuthInfo | undefined {
    const e = this.#entries.get(token);
    if (e === undefined) return undefined;
    if (e.resource === resource && now < e.until && (e.current === undefined || e.current())) return e.auth;
    // Expired, stale, or verified for another resource (another Host): verify again.
    this.#entries.delete(token);
    return undefined;
  }

  set(token: string, resource: string, v: Verified, now: number): void {
    if (this.#limit <= 0 || !(v.until > now)) return;
    this.#entries.delete(token);
    // FIFO: the oldest entry makes room (Map keeps insertion order). A token evicted while in use is verified once more.
    if (this.#entries.size >= this.#limit) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(token, { auth: freeze(v.auth), until: v.until, current: v.current, resource });
  }
}

/** A cached identity is shared by every request with that token: nobody may change it. */
function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) freeze(v);
  }
  return value;
}
