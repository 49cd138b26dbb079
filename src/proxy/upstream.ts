/**
 * The proxy's upstream connection: the current Janus client, failures turned into errors that
 * name the upstream (for downstream clients), and reconnection with backoff when the upstream
 * goes away (a command that exits, a URL that stops answering).
 */
import { ChannelError, ErrorCode, JanusError, McpError } from '../errors/index.js';
import { type Client, type ConnectOptions, connect, type Target } from '../client/index.js';
import { callScope } from './scope.js';

export interface ReconnectPolicy {
  attempts: number;
  delayMs: number;
}

export const DEFAULT_RECONNECT: ReconnectPolicy = { attempts: 5, delayMs: 500 };
/** The longest wait between two attempts, however many came before. */
const MAX_DELAY_MS = 30_000;

/** The transport failed or the connection is gone, as opposed to an answer or a local condition. */
export function isGone(e: unknown): boolean {
  return e instanceof ChannelError || (e instanceof JanusError && e.code === 'TRANSPORT_CLOSED');
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export class Upstream {
  private current: Client;
  /** Why the upstream is unavailable, while it is. */
  private lostBecause: unknown;
  private attempt = 0;
  private gaveUp = false;
  private closed = false;
  private wake: (() => void) | undefined;
  private readonly reconnected = new Set<(client: Client) => void | Promise<void>>();

  constructor(
    client: Client,
    /** Names the upstream in errors: its server name and where it is. */
    readonly label: string,
    /** What to connect to again: a URL or a command (undefined for a Transport or a Client, used once). */
    private readonly target: Target | undefined,
    private readonly connectOptions: ConnectOptions,
    private readonly policy: ReconnectPolicy | false,
    private readonly reportError: (e: unknown) => void,
  ) {
    this.current = client;
  }

  get client(): Client {
    return this.current;
  }

  /** Called with the new client after each reconnection (the mirror syncs, subscriptions are renewed). */
  onReconnect(listener: (client: Client) => void | Promise<void>): void {
    this.reconnected.add(listener);
  }

  /**
   * Runs `work` against the upstream. Its own errors (`McpError`: the upstream's answer, a
   * cancellation) pass as they are; a broken connection becomes an `McpError` naming the
   * upstream, and starts reconnection.
   */
  async use<T>(what: string, work: (client: Client) => Promise<T>): Promise<T> {
    if (this.lostBecause !== undefined) throw this.unavailable(this.lostBecause);
    const client = this.current;
    try {
      return await work(client);
    } catch (e) {
      if (e instanceof McpError || (e instanceof JanusError && e.code === 'ABORTED')) throw e;
      if (isGone(e)) {
        this.lost(client, e);
        throw this.unavailable(e);
      }
      throw new McpError(ErrorCode.InternalError, `${this.label}: ${what} failed: ${messageOf(e)}`);
    }
  }

  /** The client `client` no longer reaches the upstream (a failed call, a watcher that ended). */
  lost(client: Client, cause: unknown): void {
    if (this.closed || client !== this.current || this.lostBecause !== undefined) return;
    this.lostBecause = cause;
    void client.close().catch(() => {});
    if (this.target === undefined || this.policy === false) {
      this.gaveUp = true;
      return;
    }
    // Outside any call's context: the new client's read loop must not inherit that call.
    callScope.exit(() => void this.reconnect(this.policy as ReconnectPolicy));
  }

  private unavailable(cause: unknown): McpError {
    const state = this.gaveUp
      ? this.target === undefined || this.policy === false
        ? 'not reconnecting (reconnect is off, or the upstream was given as a Transport or Client)'
        : `gave up reconnecting after ${(this.policy as ReconnectPolicy).attempts} attempts`
      : `reconnecting, attempt ${Math.max(this.attempt, 1)} of ${(this.policy as ReconnectPolicy).attempts}`;
    return new McpError(ErrorCode.InternalError, `${this.label} is unavailable (${state}): ${messageOf(cause)}`);
  }

  private async reconnect(policy: ReconnectPolicy): Promise<void> {
    for (this.attempt = 1; this.attempt <= policy.attempts; this.attempt++) {
      await this.pause(Math.min(policy.delayMs * 2 ** (this.attempt - 1), MAX_DELAY_MS));
      if (this.closed) return;
      try {
        const client = await connect(this.target!, this.connectOptions);
        if (this.closed) return void (await client.close());
        this.current = client;
        this.lostBecause = undefined;
        this.attempt = 0;
        for (const listener of this.reconnected) {
          try {
            await listener(client);
          } catch (e) {
            this.reportError(e);
          }
        }
        return;
      } catch (e) {
        this.lostBecause = e;
      }
    }
    this.gaveUp = true;
  }

  /** A wait that `close()` cuts short. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    await this.current.close();
  }
}
