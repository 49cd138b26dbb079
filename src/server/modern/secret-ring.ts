/**
 * The secrets MRTR `requestState` is sealed and opened with, as a set that may change while
 * the server runs (shared by every instance, rotated without a restart). A fixed list
 * is the simplest ring; `janus-mcp/redis` keeps one in Redis that every instance follows. The
 * codec asks the ring on each seal and open, so a ring must answer from memory, cheaply.
 */
import { JanusError } from '../../protocol/errors.js';

/** A secret the `requestState` keys are derived from (HKDF-SHA-256): a non-empty string or bytes. */
export type Secret = string | Uint8Array;

/**
 * A changing set of `requestState` secrets. Both methods are called on every seal or open and
 * must answer from memory. Return the same array from `opening()` for as long as the set has
 * not changed: keys are derived again only when it is a different array.
 */
export interface SecretRing {
  /** The secret new states are sealed with; one of `opening()`. */
  sealing(): Secret;
  /**
   * Every secret a presented state may have been sealed with, the sealing one included, best
   * first (the newest). Every instance that may receive a retry must be able to open what any
   * of them seals: a new secret is opened everywhere before anyone seals with it.
   */
  opening(): readonly Secret[];
}

function checked(secret: unknown): Secret {
  if (!(typeof secret === 'string' || secret instanceof Uint8Array) || secret.length === 0) {
    throw new JanusError('REGISTRATION', 'requestState.secrets must be non-empty strings or Uint8Arrays');
  }
  return secret;
}

/** A ring that never changes: the first secret seals, all open. Throws on an empty or invalid secret. */
export function fixedRing(secrets: readonly Secret[]): SecretRing {
  const all = Object.freeze(secrets.map(checked));
  const first = all[0];
  if (first === undefined) throw new JanusError('REGISTRATION', 'requestState.secrets must not be empty');
  return { sealing: () => first, opening: () => all };
}

/**
 * The ring of a server given no secrets: one random secret of 32 bytes, made when first asked
 * for. Most servers never seal a `requestState`, and making one loads the runtime's crypto.
 */
export function randomRing(random: (bytes: number) => Uint8Array): SecretRing {
  let all: readonly Secret[] | undefined;
  const opening = (): readonly Secret[] => (all ??= Object.freeze([random(32)]));
  return { sealing: () => opening()[0]!, opening };
}

export function isSecretRing(value: unknown): value is SecretRing {
  return typeof value === 'object' && value !== null && typeof (value as SecretRing).opening === 'function';
}

const enc = new TextEncoder();
const SALT = enc.encode('janus-mcp requestState');
const INFO = enc.encode('AES-256-GCM v1');

export type AesKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

async function deriveKey(secret: Secret): Promise<AesKey> {
  const valid = checked(secret);
  const raw = typeof valid === 'string' ? enc.encode(valid) : valid;
  const base = await crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: SALT, info: INFO }, base, { name: 'AES-GCM', length: 256 }, false, [
    'encrypt',
    'decrypt',
  ]);
}

/**
 * The AES keys of a ring, derived once per secret: while the ring answers with the same
 * `opening()` array and `sealing()` secret, both methods return the promises they returned
 * before. Keys of secrets that left the ring are forgotten.
 */
export class RingKeys {
  private readonly ring: SecretRing;
  private opening: readonly Secret[] | undefined;
  private derived = new Map<Secret, Promise<AesKey>>();
  private openKeys: Promise<AesKey[]> = Promise.resolve([]);
  private sealingSecret: Secret | undefined;
  private sealKey: Promise<AesKey> | undefined;

  constructor(ring: SecretRing) {
    this.ring = ring;
  }

  /** The key to seal with now. */
  sealing(): Promise<AesKey> {
    this.open();
    const secret = this.ring.sealing();
    if (this.sealKey === undefined || secret !== this.sealingSecret) {
      this.sealingSecret = secret;
      this.sealKey = this.derive(secret);
    }
    return this.sealKey;
  }

  /** The keys to try on a presented state, in the ring's order. */
  open(): Promise<AesKey[]> {
    const opening = this.ring.opening();
    if (opening !== this.opening) {
      const derived = new Map<Secret, Promise<AesKey>>();
      for (const secret of opening) derived.set(secret, this.derived.get(secret) ?? this.derive(secret));
      this.derived = derived;
      this.opening = opening;
      this.openKeys = Promise.all(opening.map((s) => derived.get(s)!));
      this.openKeys.catch(() => undefined);
    }
    return this.openKeys;
  }

  private derive(secret: Secret): Promise<AesKey> {
    const key = this.derived.get(secret) ?? deriveKey(secret);
    // Awaited by whoever seals or opens with it; a bad secret must not also crash the process unhandled.
    key.catch(() => undefined);
    return key;
  }
}
