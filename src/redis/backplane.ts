/**
 * Registry changes and resource updates across instances (a change made on any instance
 * reaches every open listen stream on every instance, in order, once). Each event is
 * PUBLISHed on one channel and comes back through a second, subscribed connection to every
 * instance, this one included, so all instances see one order. When Redis cannot take it,
 * this instance still tells its own streams: fan-out degrades to local, it does not stop.
 */
import type { Backplane, ServerEvent } from '../spi/index.js';
import type { RedisConnection } from './connect.js';
import { bounded } from './deadline.js';

/** How a {@link RedisBackplane} publishes. */
export interface RedisBackplaneOptions {
  /** The channel (default 'janus:events'); one per server deployment. */
  channel?: string;
  /** How long a PUBLISH may take before the event is delivered here only (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Reports a subscriber that threw and messages on the channel that are not events. */
  onError?: (error: Error) => void;
  /**
   * A hash that counts each list's changes, bumped in the same step as the change is published
   * (shared sessions tell from it which lists changed since a client fetched them).
   */
  listsKey?: string;
}

/** KEYS: the counters. ARGV: the kind, the channel, the envelope. */
const COUNT_AND_PUBLISH = `
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
return redis.call('PUBLISH', ARGV[2], ARGV[3])
`;

/** What goes on the channel: the publishing instance, its sequence number, the event. */
interface Envelope {
  o: string;
  s: number;
  e: ServerEvent;
}

type ListKind = Extract<ServerEvent, { type: 'list_changed' }>['kind'];
const LIST_KINDS: ReadonlySet<string> = new Set<ListKind>(['tools', 'prompts', 'resources']);
/** Own events remembered as delivered, so one delivered locally is not delivered again when Redis echoes it late. */
const REMEMBERED = 1024;

/** A `Backplane` on Redis publish/subscribe. `start()` subscribes; `redisCluster()` does both. */
export class RedisBackplane implements Backplane {
  readonly #publisher: RedisConnection;
  readonly #subscriber: RedisConnection;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #onError: (error: Error) => void;
  readonly #listsKey: string | undefined;
  readonly #handlers = new Set<(event: ServerEvent) => void>();
  readonly #origin = crypto.randomUUID();
  readonly #delivered = new Set<number>();
  #seq = 0;

  /** `subscriber` must be a connection of its own: a subscribed Redis connection runs no other command. */
  constructor(publisher: RedisConnection, subscriber: RedisConnection, options: RedisBackplaneOptions = {}) {
    this.#publisher = publisher;
    this.#subscriber = subscriber;
    this.#channel = options.channel ?? 'janus:events';
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#onError = options.onError ?? ((e) => console.error('[janus-mcp/redis]', e));
    this.#listsKey = options.listsKey;
  }

  /** Subscribes to the channel (node-redis subscribes again by itself after a reconnection). */
  async start(): Promise<void> {
    await this.#subscriber.subscribe(this.#channel, (message) => this.#receive(message));
  }

  /**
   * Publishes the event on the Redis channel for every instance; when Redis cannot take it in
   * time, it still reaches this instance's own subscribers.
   */
  publish(event: ServerEvent): void {
    const seq = ++this.#seq;
    // A subscriber that is reconnecting would miss it: tell this instance's streams now.
    if (!this.#subscriber.isReady) this.#deliverOwn(seq, event);
    const envelope = JSON.stringify({ o: this.#origin, s: seq, e: event } satisfies Envelope);
    const published =
      this.#listsKey !== undefined && event.type === 'list_changed'
        ? // EVAL, not EVALSHA: a NOSCRIPT fallback would send it after a later event's PUBLISH, out of order.
          bounded(
            this.#publisher
              .withCommandOptions({ timeout: this.#timeoutMs })
              .eval(COUNT_AND_PUBLISH, { keys: [this.#listsKey], arguments: [event.kind, this.#channel, envelope] }),
            this.#timeoutMs,
          )
        : bounded(this.#publisher.withCommandOptions({ timeout: this.#timeoutMs }).publish(this.#channel, envelope), this.#timeoutMs);
    published.catch(() => this.#deliverOwn(seq, event));
  }

  subscribe(handler: (event: ServerEvent) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  #receive(message: string): void {
    const envelope = parseEnvelope(message);
    if (!envelope) {
      this.#onError(new Error(`[janus-mcp/redis] ignored a message on ${this.#channel} that is not an event`));
      return;
    }
    if (envelope.o === this.#origin) this.#deliverOwn(envelope.s, envelope.e);
    else this.#deliver(envelope.e);
  }

  /** Delivers one of this instance's events once, whichever way it arrives first. */
  #deliverOwn(seq: number, event: ServerEvent): void {
    if (this.#delivered.has(seq)) return;
    this.#delivered.add(seq);
    if (this.#delivered.size > REMEMBERED) this.#delivered.delete(this.#delivered.values().next().value!);
    this.#deliver(event);
  }

  #deliver(event: ServerEvent): void {
    for (const handler of this.#handlers) {
      try {
        handler(event);
      } catch (error) {
        this.#onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}

function parseEnvelope(message: string): Envelope | undefined {
  let v: unknown;
  try {
    v = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const { o, s, e } = v as Partial<Record<keyof Envelope, unknown>>;
  if (typeof o !== 'string' || typeof s !== 'number' || typeof e !== 'object' || e === null) return undefined;
  const event = e as Record<string, unknown>;
  if (event.type === 'list_changed' && typeof event.kind === 'string' && LIST_KINDS.has(event.kind)) {
    return { o, s, e: { type: 'list_changed', kind: event.kind as ListKind } };
  }
  if (event.type === 'resource_updated' && typeof event.uri === 'string') return { o, s, e: { type: 'resource_updated', uri: event.uri } };
  const n = event.notification as Record<string, unknown> | null | undefined;
  if (event.type === 'topic' && typeof event.topic === 'string' && typeof n === 'object' && n !== null && typeof n.method === 'string') {
    const params = typeof n.params === 'object' && n.params !== null ? (n.params as Record<string, unknown>) : undefined;
    const notification =
      params === undefined ? { jsonrpc: '2.0' as const, method: n.method } : { jsonrpc: '2.0' as const, method: n.method, params };
    return { o, s, e: { type: 'topic', topic: event.topic, notification } };
  }
  return undefined;
}
