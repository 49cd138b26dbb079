/**
 * What every link does the same way on each topology: its commands, each bounded by its own
 * timeout (deadline.ts) and tried again while a failover lasts (failover.ts), and how it
 * connects (within a deadline, reporting each later outage once). A link of one topology adds
 * only its publish/subscribe and its client.
 */
import { JanusError } from '../../errors/index.js';
import { bounded } from '../deadline.js';
import { withFailover } from '../failover.js';
import type { RedisLink } from '../link.js';
import { runCached } from '../script.js';

/** The node-redis calls a link makes, which a client, a cluster and a sentinel client all have. */
export interface CommandSurface {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  hGetAll(key: string): Promise<unknown>;
  del(keys: string | string[]): Promise<unknown>;
}

/** A node-redis client of any topology, as `withCommandOptions` gives it for one timeout. */
export type CommandsFor = (timeoutMs: number) => CommandSurface;

export type Listener = (message: string, channel: string) => void;

/** The commands of a `RedisLink`; its topology adds publish/subscribe. */
export abstract class CommandLink implements RedisLink {
  abstract readonly publishCommand: 'PUBLISH' | 'SPUBLISH';
  abstract readonly listening: boolean;
  abstract publish(channel: string, message: string, timeoutMs: number): Promise<void>;
  abstract subscribe(channels: readonly string[], listener: Listener): Promise<void>;
  abstract unsubscribe(channels: readonly string[], listener: Listener): Promise<void>;
  abstract close(): Promise<void>;

  protected constructor(
    readonly where: string,
    private readonly commands: CommandsFor,
    /** How long a command goes on being tried while no primary takes it (0: once). */
    private readonly failoverWaitMs: number,
  ) {}

  /** One command, bounded per try, tried again through a failover. */
  protected run<T>(timeoutMs: number, send: (c: CommandSurface) => Promise<T>): Promise<T> {
    return withFailover(() => bounded(send(this.commands(timeoutMs)), timeoutMs), this.failoverWaitMs);
  }

  script(script: string, keys: string[], args: string[], timeoutMs: number): Promise<unknown> {
    const options = { keys, arguments: args };
    return withFailover(() => {
      const c = this.commands(timeoutMs);
      return runCached(
        script,
        (sha) => bounded(c.evalSha(sha, options), timeoutMs),
        () => bounded(c.eval(script, options), timeoutMs),
      );
    }, this.failoverWaitMs);
  }

  evalInOrder(script: string, keys: string[], args: string[], timeoutMs: number): Promise<unknown> {
    return this.run(timeoutMs, (c) => c.eval(script, { keys, arguments: args }));
  }

  async hGetAll(key: string, timeoutMs: number): Promise<Record<string, string>> {
    return toStringRecord(await this.run(timeoutMs, (c) => c.hGetAll(key)));
  }

  async del(keys: string[], timeoutMs: number): Promise<void> {
    if (keys.length > 0) await this.run(timeoutMs, (c) => c.del(keys));
  }
}

/** HGETALL's reply as a record of strings (node-redis gives an object of strings in RESP2 and RESP3 alike). */
function toStringRecord(reply: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof reply !== 'object' || reply === null) return out;
  for (const [k, v] of Object.entries(reply)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** A node-redis client as `connectWithin` handles it: its events, how it connects, how it is dropped. */
interface Connectable {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  connect(): Promise<unknown>;
}

/**
 * Connects `client` within `timeoutMs`, or drops it (`drop`) and rejects with a `JanusError`
 * ('CONNECTION') saying that `where` cannot be reached, why, and what to check. Once up, a lost
 * connection is reported to `onError` once per outage (until `readyEvent` says it is back), and
 * never crashes the process (an 'error' event without a listener would).
 */
export async function connectWithin(
  client: Connectable,
  options: { where: string; timeoutMs: number; readyEvent: string; check: string; onError: (error: Error) => void; drop: () => unknown },
): Promise<void> {
  let up = false;
  let lost = false;
  client.on('error', (error: unknown) => {
    if (!up || lost) return;
    lost = true;
    options.onError(new JanusError('CONNECTION', `${options.where}: connection lost; reconnecting`, { cause: error }));
  });
  client.on(options.readyEvent, () => {
    lost = false;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
  });
  try {
    await Promise.race([client.connect(), deadline]);
    up = true;
  } catch (error) {
    await Promise.resolve(options.drop()).catch(() => undefined);
    const why = error instanceof Error ? error.message : String(error);
    throw new JanusError('CONNECTION', `Cannot reach the ${options.where} (${why}): ${options.check}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
