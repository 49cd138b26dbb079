/**
 * Sealed `requestState` for multi round-trip requests (2026-07-28 basic/patterns/mrtr.mdx
 * §Server Requirements items 4-5, §Security Considerations). The state carries the answers of
 * earlier rounds, which may be personal (an e-mail address the user typed), so it is
 * encrypted and authenticated with AES-256-GCM: the client can neither read nor change it.
 * Inside are an expiry, the request it belongs to (method, target, a digest of the arguments),
 * the client it was issued to (a digest of the authenticated principal when the transport
 * knows one, else of the declared clientInfo and capabilities) and a random id that the retry
 * claims in a `RequestStateStore`, so each state is accepted once.
 *
 * Keys are derived (HKDF-SHA-256) from the configured secrets: the first seals, every one
 * opens, which is how secrets rotate. A `SecretRing` (secret-ring.ts) changes them while the
 * server runs. Web Crypto (`crypto.subtle`) everywhere, no `node:` import; on Node the same
 * operations go through `node:crypto`, reached as `process.getBuiltinModule`: synchronous,
 * where each Web Crypto call is a job on libuv's thread pool and a promise (the six of an MRTR
 * round trip were most of its CPU). Same algorithms, same bytes: a state sealed by one opens
 * with the other.
 */
import { canonicalJson } from '../../protocol/canonical-json.js';
import { base64UrlToBytes, bytesToBase64Url } from '../../protocol/base64.js';
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { InMemoryRequestStateStore, type RequestStateStore } from './request-state-store.js';
import { type AesKey, fixedRing, isSecretRing, randomRing, RingKeys, type Secret, type SecretRing } from './secret-ring.js';
import { builtinModule } from '../../protocol/builtin.js';

/** What a state is bound to: the request it was issued for and the client it was issued to. */
export interface StateBinding {
  /** Method and target (tool or prompt name, URI). */
  m: string;
  t: string;
  /** Digest of the arguments. */
  d: string;
  /** Digest of the client: its authenticated principal, else its declared clientInfo and capabilities. */
  c: string;
}

/** What a round leaves for the next one. */
export interface RoundState {
  /** Answers of earlier rounds, by input key. */
  a: Record<string, unknown>;
  /** Keys asked in the round this state was issued with. */
  k: string[];
  /** How many `input_required` rounds this request has had, this one included. */
  r: number;
}

export interface StatePayload extends StateBinding, RoundState {
  /** Expiry, ms since the epoch. */
  x: number;
  /** Random id, claimed once in the store. */
  n: string;
}

/**
 * How a 2026-07-28 server seals the `requestState` of its `input_required` results, so that a
 * retry can be trusted and accepted once (`createServer({ requestState })`).
 */
export interface RequestStateOptions {
  /**
   * Secrets (strings or bytes) the sealing keys are derived from; the first seals, all open.
   * Every instance that may receive a retry needs them. Or a `SecretRing`, whose secrets may
   * change while the server runs (`janus-mcp/redis` rotates one). Default: a random key per process.
   */
  secrets?: readonly Secret[] | SecretRing;
  /** How long a state stays valid (default 10 minutes). */
  ttlMs?: number;
  /**
   * Where used states are recorded, so each is accepted once (default: an
   * `InMemoryRequestStateStore` in this process). Instances behind one endpoint share one.
   */
  store?: RequestStateStore;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The part of `node:crypto` used here (typed locally: the server imports no `node:` module). */
interface NodeCrypto {
  createHash(algorithm: 'sha256'): { update(data: string): { digest(encoding: 'base64url'): string } };
  createCipheriv(algorithm: 'aes-256-gcm', key: object, iv: Uint8Array): NodeCipher;
  createDecipheriv(algorithm: 'aes-256-gcm', key: object, iv: Uint8Array): NodeCipher & { setAuthTag(tag: Uint8Array): void };
  KeyObject: { from(key: AesKey): object };
  randomBytes(size: number): Uint8Array;
}
interface NodeCipher {
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
  getAuthTag(): Uint8Array;
}

let nodeCrypto: NodeCrypto | null | undefined;
/** `node:crypto` when the runtime has `process.getBuiltinModule` (Node 20.16+), else null. */
function nodeCryptoOrNull(): NodeCrypto | null {
  if (nodeCrypto !== undefined) return nodeCrypto;
  nodeCrypto = builtinModule<NodeCrypto>('node:crypto') ?? null;
  return nodeCrypto;
}

/** `n` random bytes, from node:crypto where it is reached, else Web Crypto. */
function randomBytes(n: number): Uint8Array {
  const c = nodeCryptoOrNull();
  return c === null ? crypto.getRandomValues(new Uint8Array(n)) : c.randomBytes(n);
}

/** A Web Crypto key as node:crypto takes it, made once per key. */
const keyObjects = new WeakMap<AesKey, object>();
function keyObject(c: NodeCrypto, key: AesKey): object {
  let k = keyObjects.get(key);
  if (k === undefined) keyObjects.set(key, (k = c.KeyObject.from(key)));
  return k;
}

const TAG_BYTES = 16;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** AES-256-GCM as Web Crypto has it: ciphertext ‖ 16-byte tag. */
async function encrypt(key: AesKey, iv: Uint8Array, plain: Uint8Array): Promise<Uint8Array> {
  const c = nodeCryptoOrNull();
  if (c === null) return new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain));
  const cipher = c.createCipheriv('aes-256-gcm', keyObject(c, key), iv);
  return concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/** The plaintext, or a rejection when the key is not the one or the data was changed. */
async function decrypt(key: AesKey, iv: Uint8Array, sealed: Uint8Array): Promise<Uint8Array> {
  const c = nodeCryptoOrNull();
  if (c === null) return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, sealed));
  if (sealed.length < TAG_BYTES) throw new Error('too short');
  const decipher = c.createDecipheriv('aes-256-gcm', keyObject(c, key), iv);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
}
/** The token's format version: `v1.` + base64url(iv ‖ AES-GCM ciphertext and tag). */
const PREFIX = 'v1.';
const IV_BYTES = 12;

export class RequestStateCodec {
  private readonly keys: RingKeys;
  readonly ttlMs: number;
  readonly store: RequestStateStore;

  constructor(options: RequestStateOptions = {}) {
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.store = options.store ?? new InMemoryRequestStateStore();
    const secrets = options.secrets;
    this.keys = new RingKeys(isSecretRing(secrets) ? secrets : secrets?.length ? fixedRing(secrets) : randomRing(randomBytes));
  }

  async digest(value: unknown): Promise<string> {
    const text = canonicalJson(value ?? {});
    const c = nodeCryptoOrNull();
    if (c !== null) return c.createHash('sha256').update(text).digest('base64url').slice(0, 22);
    return bytesToBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(text)))).slice(0, 22);
  }

  /** Seals the state of a round that ends with `input_required`, valid for `ttlMs` from now. */
  async seal(binding: StateBinding, round: RoundState): Promise<string> {
    const payload: StatePayload = {
      ...binding,
      ...round,
      x: Date.now() + this.ttlMs,
      n: bytesToBase64Url(randomBytes(16)),
    };
    const iv = randomBytes(IV_BYTES);
    const key = await this.keys.sealing();
    const sealed = await encrypt(key, iv, enc.encode(JSON.stringify(payload)));
    const token = new Uint8Array(IV_BYTES + sealed.length);
    token.set(iv);
    token.set(sealed, IV_BYTES);
    return PREFIX + bytesToBase64Url(token);
  }

  /**
   * Opens a state presented by a retry: authentic, unexpired, issued for this request and this
   * client, and never presented before (it is claimed now). Throws -32602 otherwise.
   */
  async open(state: unknown, expect: StateBinding): Promise<StatePayload> {
    const payload = await this.decrypt(state);
    if (typeof payload.x !== 'number' || payload.x < Date.now()) throw bad('expired');
    if (payload.m !== expect.m || payload.t !== expect.t || payload.d !== expect.d) throw bad('issued for a different request');
    if (payload.c !== expect.c) throw bad('issued to a different client');
    if (!(await this.store.claim(payload.n, payload.x, payload.x - this.ttlMs)))
      throw bad('already used (each requestState is accepted once)');
    return payload;
  }

  private async decrypt(state: unknown): Promise<StatePayload> {
    if (typeof state !== 'string') throw bad('must be a string');
    if (!state.startsWith(PREFIX)) throw bad('malformed');
    let token: Uint8Array;
    try {
      token = base64UrlToBytes(state.slice(PREFIX.length));
    } catch {
      throw bad('malformed');
    }
    if (token.length <= IV_BYTES) throw bad('malformed');
    const iv = token.subarray(0, IV_BYTES);
    const sealed = token.subarray(IV_BYTES);
    for (const key of await this.keys.open()) {
      let plain: Uint8Array;
      try {
        plain = await decrypt(key, iv, sealed);
      } catch {
        continue; // another key sealed it, or it was changed
      }
      return parsePayload(plain);
    }
    // Retired secrets are among the ones this server no longer has: a ring drops a secret once the states it sealed have expired.
    throw bad(
      'it does not verify (tampered, or sealed with a secret this server does not have or no longer keeps); start the request again',
    );
  }
}

function bad(why: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid requestState: ${why}`);
}

/** The payload of an authentic state: written by `seal`, so only its shape is checked. */
function parsePayload(plain: Uint8Array): StatePayload {
  let value: unknown;
  try {
    value = JSON.parse(dec.decode(plain));
  } catch {
    throw bad('malformed payload');
  }
  if (!isPayload(value)) throw bad('malformed payload');
  return value;
}

function isPayload(v: unknown): v is StatePayload {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Partial<Record<keyof StatePayload, unknown>>;
  return (
    typeof p.m === 'string' &&
    typeof p.t === 'string' &&
    typeof p.d === 'string' &&
    typeof p.c === 'string' &&
    typeof p.x === 'number' &&
    typeof p.n === 'string' &&
    typeof p.r === 'number' &&
    typeof p.a === 'object' &&
    p.a !== null &&
    Array.isArray(p.k)
  );
}
