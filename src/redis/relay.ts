/**
 * The proxy's continuation relay on Redis publish/subscribe (sharded on a Redis Cluster): each
 * proxy instance subscribes to a channel of its own, `{<prefix>proxy-relay:<instance>}`, and a
 * retry that reaches another instance is published there (src/proxy/relays.ts speaks the
 * messages). The publish runs in a script that returns how many subscribers got it: none means
 * the instance is gone, said at once instead of after a silence. Channels of different
 * instances have different hash tags, so on a cluster they spread over the shards.
 */
import { StoreKey } from '../spi/index.js';
import type { RedisLink } from './link.js';

/**
 * The proxy's relay, as janus-mcp/proxy defines it (`ContinuationRelay`): the two build on the
 * public entries only, so neither imports the other; `test/proxy/cluster-redis.test.ts` checks
 * that the proxy finds this one.
 */
interface ContinuationRelay {
  listen(instance: string, receive: (message: string) => void): Promise<() => Promise<void>>;
  send(instance: string, message: string): Promise<boolean>;
}

/** The key janus-mcp/proxy looks its relay up under (its `CONTINUATION_RELAY`): the same id. */
export const CONTINUATION_RELAY = new StoreKey<ContinuationRelay>('janus-mcp/proxy.continuation-relay');

/** How a {@link RedisContinuationRelay} names its channels and bounds its publishes. */
export interface RedisContinuationRelayOptions {
  /** Channel prefix (default 'janus:'), one per deployment. */
  prefix?: string;
  /** How long a publish may wait for Redis, per try (default 2000 ms). */
  commandTimeoutMs?: number;
}

/**
 * KEYS: a name in the channel's slot (never written: it routes the script to the channel's
 * shard on a cluster). ARGV: the publish command, the channel, the message. Returns how many
 * subscribers got it.
 */
const PUBLISH_COUNTED = `return redis.call(ARGV[1], ARGV[2], ARGV[3])`;

/** A `ContinuationRelay` on one Redis, a Redis Cluster or a Sentinel-managed primary. */
export class RedisContinuationRelay implements ContinuationRelay {
  readonly #link: RedisLink;
  readonly #prefix: string;
  readonly #timeoutMs: number;

  constructor(link: RedisLink, options: RedisContinuationRelayOptions = {}) {
    this.#link = link;
    this.#prefix = options.prefix ?? 'janus:';
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
  }

  #tag(instance: string): string {
    return `{${this.#prefix}proxy-relay:${instance}}`;
  }

  async listen(instance: string, receive: (message: string) => void): Promise<() => Promise<void>> {
    const channel = this.#tag(instance);
    const listener = (message: string) => receive(message);
    await this.#link.subscribe([channel], listener);
    return () => this.#link.unsubscribe([channel], listener);
  }

  async send(instance: string, message: string): Promise<boolean> {
    const tag = this.#tag(instance);
    // By its text every time: the messages of one sender reach Redis in the order they were sent.
    const received = await this.#link.evalInOrder(
      PUBLISH_COUNTED,
      [`${tag}:route`],
      [this.#link.publishCommand, tag, message],
      this.#timeoutMs,
    );
    return Number(received) > 0;
  }
}
