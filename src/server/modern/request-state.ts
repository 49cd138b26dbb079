/**
 * Signed `requestState` for multi round-trip requests (basic/patterns/mrtr.mdx §requestState
 * integrity): HMAC-SHA256 over the payload, an expiry, and a binding to the originating
 * method, target and arguments, so any instance holding the keys can verify it and a
 * tampered, expired or replayed-elsewhere state is refused. The first key signs; every
 * key verifies, which is how keys rotate.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { canonicalJson } from '../../protocol/canonical-json.js';
import { base64UrlToBytes, bytesToBase64Url } from '../../protocol/base64.js';

export interface StatePayload {
  /** Method and target (tool/prompt name or URI) the state belongs to. */
  m: string;
  t: string;
  /** Digest of the arguments. */
  d: string;
  /** Expiry, ms since epoch. */
  x: number;
  /** Answers of earlier rounds, by input key. */
  a: Record<string, unknown>;
  /** Keys asked in the round this state was issued with. */
  k: string[];
}

export interface RequestStateOptions {
  /** HMAC secrets; the first signs, all verify. Default: a random key per process. */
  secrets?: (string | Uint8Array)[];
  /** How long a state stays valid (default 10 minutes). */
  ttlMs?: number;
}

const enc = new TextEncoder();
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

export class RequestStateCodec {
  private readonly keys: Promise<HmacKey[]>;
  readonly ttlMs: number;

  constructor(options: RequestStateOptions = {}) {
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    const secrets = options.secrets?.length ? options.secrets : [crypto.getRandomValues(new Uint8Array(32))];
    this.keys = Promise.all(
      secrets.map((s) =>
        crypto.subtle.importKey('raw', typeof s === 'string' ? enc.encode(s) : s, { name: 'HMAC', hash: 'SHA-256' }, false, [
          'sign',
          'verify',
        ]),
      ),
    );
  }

  async digest(value: unknown): Promise<string> {
    return bytesToBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(canonicalJson(value ?? {}))))).slice(0, 22);
  }

  async sign(payload: StatePayload): Promise<string> {
    const body = bytesToBase64Url(enc.encode(JSON.stringify(payload)));
    const [key] = await this.keys;
    const sig = new Uint8Array(await crypto.subtle.sign('HMAC', key!, enc.encode(body)));
    return `${body}.${bytesToBase64Url(sig)}`;
  }

  /** Verifies and decodes; throws -32602 on any failure. */
  async verify(state: unknown, expect: { m: string; t: string; d: string }): Promise<StatePayload> {
    const bad = (why: string) => new McpError(ErrorCode.InvalidParams, `Invalid requestState: ${why}`);
    if (typeof state !== 'string') throw bad('must be a string');
    const dot = state.indexOf('.');
    if (dot <= 0) throw bad('malformed');
    const body = state.slice(0, dot);
    let sig: Uint8Array;
    try {
      sig = base64UrlToBytes(state.slice(dot + 1));
    } catch {
      throw bad('malformed signature');
    }
    let valid = false;
    for (const key of await this.keys) {
      if (await crypto.subtle.verify('HMAC', key, sig, enc.encode(body))) {
        valid = true;
        break;
      }
    }
    if (!valid) throw bad('signature does not verify');
    let payload: StatePayload;
    try {
      payload = JSON.parse(new TextDecoder().decode(base64UrlToBytes(body))) as StatePayload;
    } catch {
      throw bad('malformed payload');
    }
    if (payload.x < Date.now()) throw bad('expired');
    if (payload.m !== expect.m || payload.t !== expect.t || payload.d !== expect.d) {
      throw bad('issued for a different request');
    }
    return payload;
  }
}
