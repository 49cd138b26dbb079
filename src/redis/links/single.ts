/**
 * One Redis (or Valkey) by URL: a connection for commands and one subscribed to channels (a
 * subscribed Redis connection runs no other command).
 */
import { closeRedis, connectRedis, redactUrl, type RedisConnection } from '../connect.js';
import { CommandLink, type Listener } from './commands.js';

export interface SingleLinkOptions {
  url: string;
  connectTimeoutMs: number;
  failoverWaitMs: number;
  onError: (error: Error) => void;
}

export class SingleLink extends CommandLink {
  readonly publishCommand = 'PUBLISH';
  readonly #command: RedisConnection;
  readonly #subscriber: RedisConnection;
  #closing: Promise<void> | undefined;

  private constructor(command: RedisConnection, subscriber: RedisConnection, where: string, failoverWaitMs: number) {
    super(where, (timeout) => command.withCommandOptions({ timeout }), failoverWaitMs);
    this.#command = command;
    this.#subscriber = subscriber;
  }

  /** Connects both connections, or rejects naming the URL and leaves nothing open. */
  static async connect(options: SingleLinkOptions): Promise<SingleLink> {
    const { url, connectTimeoutMs, onError } = options;
    const command = await connectRedis({ url, connectTimeoutMs, role: 'command', onError });
    try {
      const subscriber = await connectRedis({ url, connectTimeoutMs, role: 'subscriber', onError });
      return new SingleLink(command, subscriber, redactUrl(url), options.failoverWaitMs);
    } catch (error) {
      await closeRedis(command).catch(() => command.destroy());
      throw error;
    }
  }

  get listening(): boolean {
    return this.#subscriber.isReady;
  }

  async publish(channel: string, message: string, timeoutMs: number): Promise<void> {
    await this.run(timeoutMs, () => this.#command.withCommandOptions({ timeout: timeoutMs }).publish(channel, message));
  }

  async subscribe(channels: readonly string[], listener: Listener): Promise<void> {
    await this.#subscriber.subscribe([...channels], listener);
  }

  async unsubscribe(channels: readonly string[], listener: Listener): Promise<void> {
    await this.#subscriber.unsubscribe([...channels], listener);
  }

  close(): Promise<void> {
    return (this.#closing ??= Promise.all([this.#command, this.#subscriber].map(closeRedis)).then(() => undefined));
  }
}
