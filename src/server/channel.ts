/**
 * A connection that carries many messages both ways (stdio, an in-memory pair, a WebSocket):
 * what a message transport opens with `core.openChannel(host)`. The core keeps it, so that
 * `server.close()` ends it; it holds the requests in flight on it, so that
 * `notifications/cancelled` reaches them (such a channel cancels by notification). Where the
 * handshake era is served, its session of the channel is what `openChannel` returns (it is a
 * channel too, and more); where it is not, this plain one.
 */
import type { JsonRpcMessage, RequestId } from '../protocol/jsonrpc.js';
import { JanusError } from '../protocol/errors.js';
import type { Abortable } from './cancel.js';

/** In-flight requests; tells a waiter when the last one settles (graceful stdio shutdown). */
export class InflightMap extends Map<RequestId, Abortable> {
  private idle: (() => void) | undefined;
  override delete(id: RequestId): boolean {
    const removed = super.delete(id);
    if (removed && this.size === 0 && this.idle) {
      const idle = this.idle;
      this.idle = undefined;
      idle();
    }
    return removed;
  }
  /** Resolves once nothing is in flight. */
  settled(): Promise<void> {
    return this.size === 0 ? Promise.resolve() : new Promise((r) => (this.idle = r));
  }
}

/** Where a channel's messages that belong to no request go (stdio: stdout), and what it hears of its end. */
export interface ChannelHost {
  /** The transport's own id for the channel, if it has one; absent, or already taken, a random UUID. */
  readonly id?: string;
  /** Writes a message to the client on the channel's own stream. */
  send(message: JsonRpcMessage): void;
  /**
   * Whether `send` reaches the client right now (absent: always). A channel whose client is not
   * listening (Streamable HTTP with no GET stream open) makes the server keep what it could
   * not say, and say it again later.
   */
  readonly connected?: boolean;
  /** The server ended the channel itself (`server.close()`): release its streams now. */
  onSessionClosed?(): void;
}

/** A channel as its transport holds it (`core.openChannel`). */
export interface ServerChannel {
  /** The channel's id: the transport's own (`ChannelHost.id`), or a random UUID. */
  readonly id: string;
  /** Set once the channel closed. */
  readonly closed: boolean;
  /**
   * The peer stopped sending (stdin ended): what the server asked of it fails now, and the
   * promise resolves once the requests in flight on the channel are answered.
   */
  inputEnded(reason: string): Promise<void>;
  /** Runs `hook` once the channel closes (at once if it has). */
  onClosed(hook: () => void): void;
  /** Ends the channel: requests in flight abort, a session on it ends. */
  close(): void | Promise<void>;
}

/** A channel of a core that serves no handshake era: cancellation and shutdown only. */
export class Channel implements ServerChannel {
  readonly id: string;
  readonly inflight = new InflightMap();
  closed = false;
  private hooks: Array<() => void> = [];

  constructor(
    readonly host: ChannelHost,
    /** Tells the core the channel ended (it forgets it). */
    private readonly ended: (channel: Channel) => void,
  ) {
    this.id = typeof host.id === 'string' && host.id !== '' ? host.id : crypto.randomUUID();
  }

  inputEnded(): Promise<void> {
    return this.inflight.settled();
  }

  onClosed(hook: () => void): void {
    if (this.closed) hook();
    else this.hooks.push(hook);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const request of this.inflight.values()) request.abort(new JanusError('TRANSPORT_CLOSED', 'channel closed'));
    this.inflight.clear();
    this.ended(this);
    const hooks = this.hooks;
    this.hooks = [];
    for (const hook of hooks) hook();
    this.host.onSessionClosed?.();
  }
}
