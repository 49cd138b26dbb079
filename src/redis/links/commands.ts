/**
 * The commands every link sends, the same way on each topology: each bounded by its own
 * timeout (deadline.ts), tried again while a failover lasts (failover.ts).
 */
import { bounded } from '../deadline.js';
import { withFailover } from '../failover.js';
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

export class LinkCommands {
  constructor(
    private readonly commands: CommandsFor,
    /** How long a command goes on being tried while no primary takes it (0: once). */
    private readonly failoverWaitMs: number,
  ) {}

  /** One command, bounded per try, tried again through a failover. */
  run<T>(timeoutMs: number, send: (c: CommandSurface) => Promise<T>): Promise<T> {
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
    const reply = await this.run(timeoutMs, (c) => c.hGetAll(key));
    return toStringRecord(reply);
  }
}

/** HGETALL's reply as a record of strings (node-redis gives an object of strings in RESP2 and RESP3 alike). */
function toStringRecord(reply: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof reply !== 'object' || reply === null) return out;
  for (const [k, v] of Object.entries(reply)) if (typeof v === 'string') out[k] = v;
  return out;
}
