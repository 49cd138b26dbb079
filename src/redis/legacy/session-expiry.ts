/**
 * The end of sessions that expire in Redis, unused by every instance: so that exactly one
 * instance runs the session's `onClosed`. Keyspace notifications would need the server
 * configured for them and are not delivered reliably on a Redis Cluster (each node notifies
 * only its own subscribers, and a notification is lost with a connection); instead, every
 * session is listed in `{<prefix>sessions}:expiry`, scored by when its record expires, and
 * every instance sweeps that index on a timer:
 *
 * 1. the entries whose time has passed (Redis's clock);
 * 2. for each, the record's own time to live: a record renewed since lives on, and its entry is
 *    moved to its new expiry (`ZADD XX`: an entry removed meanwhile is not put back);
 * 3. a record that is gone is claimed with `ZREM`, which removes the entry for exactly one
 *    caller; that instance takes the session's hook data (`:info`, written when it initialized)
 *    and runs the hook.
 *
 * `DELETE` removes the entry before the record, so a session ended that way is never claimed by
 * a sweep. The index has one slot (its own hash tag); a record and its `:info` have the
 * session's. Each step names keys of one slot only, as a Redis Cluster requires.
 */
import type { ExpiredSession, NewSessionRecord } from '../../server/legacy/spi.js';
import type { RedisLink } from '../link.js';
import { CLAIM, DUE, RESCORE, TAKE_INFO, TTL } from './session-scripts.js';

/** How many due entries one sweep looks at (the next sweep takes the rest). */
const BATCH = 100;

export interface ExpirySweepOptions {
  readonly link: RedisLink;
  readonly indexKey: string;
  /** The session's record, its knowers and info keys. */
  readonly keysOf: (id: string) => { readonly record: string; readonly knowers: string; readonly info: string };
  readonly timeoutMs: number;
  /** Mean time between two sweeps of this instance (each waits 75-125 % of it, so instances spread out). */
  readonly periodMs: number;
  readonly onError: (error: Error) => void;
}

export type ExpiredHandler = (expired: ExpiredSession) => void;

export class ExpirySweep {
  readonly #handlers = new Set<ExpiredHandler>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sweeping = false;
  /** Reported once per outage, not once per sweep. */
  #failing = false;

  constructor(private readonly o: ExpirySweepOptions) {}

  /** Runs `handler` for each session this instance claims; the sweep runs while someone listens. */
  on(handler: ExpiredHandler): () => void {
    this.#handlers.add(handler);
    if (this.#handlers.size === 1) this.#schedule();
    return () => {
      this.#handlers.delete(handler);
      if (this.#handlers.size === 0) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  #schedule(): void {
    const wait = this.o.periodMs * (0.75 + Math.random() / 2);
    this.#timer = setTimeout(() => {
      void this.sweep().finally(() => {
        if (this.#handlers.size > 0) this.#schedule();
      });
    }, wait);
    this.#timer.unref?.();
  }

  /** One sweep: claims and ends what has expired. */
  async sweep(): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      const due = (await this.#run(DUE, [this.o.indexKey], [String(BATCH)])) as string[];
      for (const id of due) await this.#settle(id);
      this.#failing = false;
    } catch (cause) {
      // A lost connection is the link's to report (once per outage); anything else is reported here, once until a sweep succeeds.
      if (!this.#failing && this.o.link.listening) {
        const error = new Error('[janus-mcp/redis] could not sweep expired sessions (their onClosed waits for the next sweep)');
        error.cause = cause;
        this.o.onError(error);
      }
      this.#failing = true;
    } finally {
      this.#sweeping = false;
    }
  }

  async #settle(id: string): Promise<void> {
    const keys = this.o.keysOf(id);
    const left = Number(await this.#run(TTL, [keys.record], []));
    if (left !== -2) {
      // Renewed since it was listed (or, -1, without an expiry, which this store never leaves): look again later.
      await this.#run(RESCORE, [this.o.indexKey], [id, String(left > 0 ? left : this.o.periodMs)]);
      return;
    }
    if (Number(await this.#run(CLAIM, [this.o.indexKey], [id])) !== 1) return; // another instance claimed it
    const info = (await this.#run(TAKE_INFO, [keys.info, keys.knowers], [])) as string[];
    const record = hookData(info);
    if (record === undefined) return; // it never initialized: nobody heard of it, nobody hears of its end
    for (const handler of this.#handlers) {
      try {
        handler({ id, record });
      } catch (error) {
        this.o.onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  #run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return this.o.link.script(script, keys, args, this.o.timeoutMs);
  }
}

/** `:info` (flat field, value pairs), as the record it was copied from. */
function hookData(flat: readonly string[]): NewSessionRecord | undefined {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  const protocolVersion = fields.get('v');
  const caps = parse(fields.get('caps'));
  if (protocolVersion === undefined || !isObject(caps)) return undefined;
  const info = parse(fields.get('info')) as { name?: unknown; version?: unknown } | undefined;
  const principal = fields.get('p');
  return {
    protocolVersion,
    clientCapabilities: caps,
    ...(info !== undefined && typeof info.name === 'string' && typeof info.version === 'string'
      ? { clientInfo: { ...info, name: info.name, version: info.version } }
      : {}),
    ...(principal === undefined ? {} : { principal }),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
