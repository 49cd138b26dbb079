/**
 * Registry changes and resource updates across instances (a change made on any instance
 * reaches every open listen stream on every instance, in order, once). Each event is
 * published on one channel (sharded on a Redis Cluster) and comes back through a second, subscribed connection to every
 * instance, this one included, so all instances see one order. When Redis cannot take it,
 * this instance still tells its own streams: fan-out degrades to local, it does not stop.
 */
import type { Backplane, ServerEvent } from '../spi/index.js';
import { eventsChannel, listsKey } from './keys.js';
import type { RedisLink } from './link.js';

/** How a {@link RedisBackplane} publishes. */
export interface RedisBackplaneOptions {
  /** Key and channel prefix (default 'janus:'), one per server deployment: events go out on `{<prefix>registry}:events`. */
  prefix?: string;
  /** How long a PUBLISH may take, per try, before the event is delivered here only (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Reports a subscriber that threw and messages on the channel that are not events. */
  onError?: (error: Error) => void;
  /**
   * Count each list's changes in `{<prefix>registry}:lists`, bumped in the same step as the
   * change is published (the handshake era's shared sessions tell from it which lists changed
   * since a client fetched them).
   */
  countLists?: boolean;
}

/** KEYS: the counters. ARGV: the kind, the publish command, the channel (in the counters' slot), the envelope. */
const COUNT_AND_PUBLISH = `
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
return redis.call(ARGV[2], ARGV[3], ARGV[4])
`;

/** What goes on the channel: the publishing instance, its sequence number, the event. */
interface Envelope {
  o: string;
  s: number;
  e: ServerEvent;
}

type ListKind = Extract<ServerEvent, { type: 'list_changed' }>['kind'];
const LIST_KINDS: ReadonlySet<string> = new Set<ListKind>(['tools', 'prompts', 'resources']);
/**
 * Events remembered as delivered: this instance's own, so one delivered locally is not
 * delivered again when Redis echoes it late, and every instance's, so one published twice (a
 * try whose answer a failover cut off, tried again) is delivered once.
 */
const REMEMBERED = 4096;

/** A `Backplane` on Redis publish/subscribe (sharded on a cluster). `start()` subscribes; `redisCluster()` does both. */
export class RedisBackplane implements Backplane {
  readonly #link: RedisLink;
  readonly #channel: string;
  readonly #listsKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #onError: (error: Error) => void;
  readonly #handlers = new Set<(event: ServerEvent) => void>();
  readonly #origin = crypto.randomUUID();
  readonly #delivered = new Set<string>();
  readonly #listener = (message: string) => this.#receive(message);
  #seq = 0;

  constructor(link: RedisLink, options: RedisBackplaneOptions = {}) {
    const prefix = options.prefix ?? 'janus:';
    this.#link = link;
    this.#channel = eventsChannel(prefix);
    this.#listsKey = options.countLists ? listsKey(prefix) : undefined;
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#onError = options.onError ?? ((e) => console.error('[janus-mcp/redis]', e));
  }

  /** Subscribes to the channel (the link subscribes again by itself after a reconnection or failover). */
  async start(): Promise<void> {
    await this.#link.subscribe([this.#channel], this.#listener);
  }

  /**
   * Publishes the event on the Redis channel for every instance; when Redis cannot take it in
   * time (a failover included), it still reaches this instance's own subscribers.
   */
  publish(event: ServerEvent): void {
    const seq = ++this.#seq;
    // A subscriber that is reconnecting would miss it: tell this instance's streams now.
    if (!this.#link.listening) this.#deliverOnce(this.#origin, seq, event);
    const envelope = JSON.stringify({ o: this.#origin, s: seq, e: event } satisfies Envelope);
    const published =
      this.#listsKey !== undefined && event.type === 'list_changed'
        ? this.#link.evalInOrder(
            COUNT_AND_PUBLISH,
            [this.#listsKey],
            [event.kind, this.#link.publishCommand, this.#channel, envelope],
            this.#timeoutMs,
          )
        : this.#link.publish(this.#channel, envelope, this.#timeoutMs);
    published.catch(() => this.#deliverOnce(this.#origin, seq, event));
  }

  subscribe(handler: (event: ServerEvent) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /** Unsubscribes from the channel (the link is the cluster's to close). */
  async stop(): Promise<void> {
    await this.#link.unsubscribe([this.#channel], this.#listener);
  }

  #receive(message: string): void {
    const envelope = parseEnvelope(message);
    if (!envelope) {
      this.#onError(new Error(`[janus-mcp/redis] ignored a message on ${this.#channel} that is not an event`));
      return;
    }
    this.#deliverOnce(envelope.o, envelope.s, envelope.e);
  }

  /** Delivers an event once, whichever way and however often it arrives. */
  #deliverOnce(origin: string, seq: number, event: ServerEvent): void {
    const id = `${seq}@${origin}`;
    if (this.#delivered.has(id)) return;
    this.#delivered.add(id);
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
