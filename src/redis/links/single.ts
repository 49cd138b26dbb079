/**
 * One Redis (or Valkey) by URL: a connection for commands and one subscribed to channels (a
 * subscribed Redis connection runs no other command).
 */
import { closeRedis, connectRedis, redactUrl, type RedisConnection } from '../connect.js';
import type { RedisLink } from '../link.js';
import { LinkCommands } from './commands.js';

export interface SingleLinkOptions {
  url: string;
  connectTimeoutMs: number;
  failoverWaitMs: number;
  onError: (error: Error) => void;
}

export class SingleLink implements RedisLink {
  readonly publishCommand = 'PUBLISH';
  readonly where: string;
  readonly #command: RedisConnection;
  readonly #subscriber: RedisConnection;
  readonly #commands: LinkCommands;
  #closing: Promise<void> | undefined;

  private constructor(command: RedisConnection, subscriber: RedisConnection, where: string, failoverWaitMs: number) {
    this.#command = command;
    this.#subscriber = subscriber;
    this.where = where;
    this.#commands = new LinkCommands((timeout) => command.withCommandOptions({ timeout }), failoverWaitMs);
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

  script(script: string, keys: string[], args: string[], timeoutMs: number): Promise<unknown> {
    return this.#commands.script(script, keys, args, timeoutMs);
  }

  evalInOrder(script: string, keys: string[], args: string[], timeoutMs: number): Promise<unknown> {
    return this.#commands.evalInOrder(script, keys, args, timeoutMs);
  }

  hGetAll(key: string, timeoutMs: number): Promise<Record<string, string>> {
    return this.#commands.hGetAll(key, timeoutMs);
  }

  async del(keys: string[], timeoutMs: number): Promise<void> {
    if (keys.length > 0) await this.#commands.run(timeoutMs, (c) => c.del(keys));
  }

  async publish(channel: string, message: string, timeoutMs: number): Promise<void> {
    await this.#commands.run(timeoutMs, () => this.#command.withCommandOptions({ timeout: timeoutMs }).publish(channel, message));
  }

  async subscribe(channels: readonly string[], listener: (message: string, channel: string) => void): Promise<void> {
    await this.#subscriber.subscribe([...channels], listener);
  }

  async unsubscribe(channels: readonly string[], listener: (message: string, channel: string) => void): Promise<void> {
    await this.#subscriber.unsubscribe([...channels], listener);
  }

  close(): Promise<void> {
    return (this.#closing ??= Promise.all([this.#command, this.#subscriber].map(closeRedis)).then(() => undefined));
  }
}
