/**
 * A primary with replicas, watched by Redis Sentinel: node-redis's sentinel client asks the
 * sentinels which node is the primary, and moves its connections (subscriptions included) to
 * the new one when they fail it over.
 */
import { createSentinel } from 'redis';
import { CommandLink, connectWithin, type Listener } from './commands.js';

export interface SentinelLinkOptions {
  /** The sentinels, as host:port (any one reachable is enough). */
  sentinels: readonly { host: string; port: number }[];
  /** The primary's name in the sentinels' configuration (`sentinel monitor <name> …`). */
  name: string;
  /** Credentials of the Redis nodes. */
  username?: string;
  password?: string;
  /** Credentials of the sentinels themselves, when they require them. */
  sentinelUsername?: string;
  sentinelPassword?: string;
  connectTimeoutMs: number;
  failoverWaitMs: number;
  onError: (error: Error) => void;
}

const MAX_RECONNECT_DELAY_MS = 1000;

function createSentinelClient(options: SentinelLinkOptions) {
  const socket = {
    connectTimeout: options.connectTimeoutMs,
    reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS),
  };
  return createSentinel({
    name: options.name,
    sentinelRootNodes: options.sentinels.map(({ host, port }) => ({ host, port })),
    nodeClientOptions: {
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
      disableOfflineQueue: true,
      socket,
    },
    sentinelClientOptions: {
      ...(options.sentinelUsername === undefined ? {} : { username: options.sentinelUsername }),
      ...(options.sentinelPassword === undefined ? {} : { password: options.sentinelPassword }),
      socket,
    },
    // Look for a new primary often: a failover is otherwise noticed on the next failed command only.
    scanInterval: 1000,
  });
}

type SentinelClient = ReturnType<typeof createSentinelClient>;

export class SentinelLink extends CommandLink {
  readonly publishCommand = 'PUBLISH';
  readonly #client: SentinelClient;
  readonly #listeners = new WeakMap<Listener, (message: string | Buffer, channel: string | Buffer) => void>();
  #closing: Promise<void> | undefined;

  private constructor(client: SentinelClient, where: string, failoverWaitMs: number) {
    super(where, (timeout) => client.withCommandOptions({ timeout }), failoverWaitMs);
    this.#client = client;
  }

  /** Finds the primary through the sentinels and connects, or rejects within `connectTimeoutMs` naming them. */
  static async connect(options: SentinelLinkOptions): Promise<SentinelLink> {
    const where = `Redis primary '${options.name}' of Sentinel ${options.sentinels.map((s) => `${s.host}:${s.port}`).join(', ')}`;
    const client = createSentinelClient(options);
    await connectWithin(client, {
      where,
      timeoutMs: options.connectTimeoutMs,
      readyEvent: 'topology-change',
      check: 'check that the sentinels run, that they monitor a primary by that name, and the credentials',
      onError: options.onError,
      drop: () => client.destroy(),
    });
    return new SentinelLink(client, where, options.failoverWaitMs);
  }

  get listening(): boolean {
    return this.#client.isReady;
  }

  async publish(channel: string, message: string, timeoutMs: number): Promise<void> {
    await this.run(timeoutMs, () => this.#client.withCommandOptions({ timeout: timeoutMs }).publish(channel, message));
  }

  async subscribe(channels: readonly string[], listener: Listener): Promise<void> {
    await this.#client.subscribe([...channels], this.#wrapped(listener));
  }

  async unsubscribe(channels: readonly string[], listener: Listener): Promise<void> {
    await this.#client.unsubscribe([...channels], this.#wrapped(listener));
  }

  /** The same function for the same listener: node-redis unsubscribes by identity, and types its listeners for buffers too. */
  #wrapped(listener: Listener): (message: string | Buffer, channel: string | Buffer) => void {
    let wrapped = this.#listeners.get(listener);
    if (!wrapped) {
      wrapped = (message, channel) => listener(String(message), String(channel));
      this.#listeners.set(listener, wrapped);
    }
    return wrapped;
  }

  close(): Promise<void> {
    return (this.#closing ??= this.#client.isOpen ? this.#client.close() : Promise.resolve());
  }
}
