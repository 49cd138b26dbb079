/**
 * A handshake-era session: what `initialize` negotiated, the client's log level and
 * resource subscriptions, in-flight requests (for cancellation) and the server's own
 * pending requests to the client. Kept lean: many may be open at once.
 */
import { JanusError } from '../../protocol/errors.js';
import type { JsonRpcNotification, JsonRpcResponse, RequestId } from '../../protocol/jsonrpc.js';
import { requestMessage, unwrap } from '../../jsonrpc/envelope.js';
import { PendingRequests } from '../../jsonrpc/pending.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../protocol/types.js';
import type { LegacyVersion } from '../../protocol/versions.js';
import type { SessionHandle } from '../context.js';
import type { Inbound, LegacySession, SessionHost, TransportKind } from '../transport-seam.js';
import type { Abortable } from '../cancel.js';
import type { ListKind } from '../registry.js';

const NOTHING: readonly JsonRpcNotification[] = Object.freeze([]);

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

/** What the core hears of a session's life (core.ts): its hooks, pings and session map follow it. */
export interface SessionLifecycle {
  /** `notifications/initialized` arrived after a successful `initialize`: once per session. */
  initialized(session: Session): void;
  /** `notifications/roots/list_changed` arrived on an initialized session. */
  rootsChanged(session: Session): void;
  /** The session ended, however: once. */
  closed(session: Session): void;
}

export class Session implements LegacySession {
  readonly id: string;
  protocolVersion: LegacyVersion | undefined;
  initialized = false;
  closed = false;
  /** The channel `initialize` came on (a session's traffic all comes one way). */
  transport: TransportKind | undefined;
  /** What server code acts on (legacy/session-handle.ts), made when first asked for. */
  handle: SessionHandle | undefined;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities = {};
  logLevel: LoggingLevel | undefined;
  subscriptions: Set<string> | undefined;
  /** Inbound requests in flight, by id, so `notifications/cancelled` can abort them. */
  readonly inflight = new InflightMap();
  /** The server's own requests to the client; made on the first one (most sessions never ask). */
  private outbound: PendingRequests<JsonRpcResponse> | undefined;
  private closeHooks: Array<(s: Session) => void> = [];
  private readonly lifecycle: SessionLifecycle | undefined;
  /**
   * Seed 004's marker: lists changed since the client last fetched them, each with whether the
   * change reached the client live. Cleared only by fetching the list, not by announcing it.
   */
  private changedLists: Map<ListKind, boolean> | undefined;

  constructor(
    readonly host: SessionHost,
    lifecycle?: SessionLifecycle,
    /** Server-to-client requests that may wait for an answer at once (limits.maxPendingClientRequests). */
    private readonly maxPending = Number.POSITIVE_INFINITY,
    id: string = crypto.randomUUID(),
  ) {
    this.id = id;
    this.lifecycle = lifecycle;
  }

  /** `notifications/initialized`: the session is ready, once `initialize` succeeded (lifecycle.mdx §Initialization). */
  markInitialized(): void {
    if (this.initialized || this.closed || this.protocolVersion === undefined) return;
    this.initialized = true;
    this.lifecycle?.initialized(this);
  }

  /** `notifications/roots/list_changed` (client/roots.mdx §Root List Changes). */
  rootsChanged(): void {
    if (this.initialized && !this.closed) this.lifecycle?.rootsChanged(this);
  }

  /** Runs once the session closes (immediately if it already has). */
  onClosed(hook: (s: Session) => void): void {
    if (this.closed) hook(this);
    else this.closeHooks.push(hook);
  }

  /**
   * Sends a server-to-client request on `via` (the stream of the request that caused it), or
   * without one on the session's host, and awaits the answer.
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    via: Inbound | undefined,
    signal: AbortSignal | undefined,
    timeoutMs = 60_000,
  ): Promise<Record<string, unknown>> {
    if (this.closed) throw new JanusError('TRANSPORT_CLOSED', 'session closed');
    // Nothing would carry it (HTTP with no GET stream open): say so now, not at the timeout.
    if (via === undefined && this.host.connected === false) {
      throw new JanusError(
        'TRANSPORT_CLOSED',
        `${method} not sent: nothing reaches the client of session ${this.id} now (on Streamable HTTP, it has no GET stream open)`,
      );
    }
    this.outbound ??= new PendingRequests(0);
    if (this.outbound.size >= this.maxPending) {
      throw new JanusError('PROTOCOL', `${method} not sent: ${this.maxPending} requests to the client are already waiting for an answer`);
    }
    const id = this.outbound.nextId();
    const channel = via ?? this.host;
    const call = this.outbound.start(
      {
        id,
        method,
        signal,
        timeoutMs,
        timeoutError: (m, ms) => new JanusError('TIMEOUT', `${m}: no answer from the client within ${ms} ms`),
        // Given up (abort, timeout): the client is told, so it can stop asking its user
        // (lifecycle.mdx §Timeouts: the sender SHOULD send notifications/cancelled).
        onCancel: (error) => {
          try {
            channel.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: error.message } });
          } catch {
            // The channel is gone: nobody is left to tell.
          }
        },
      },
      () => {
        channel.send(requestMessage(id, method, params));
        return undefined;
      },
    );
    return unwrap(await call.promise);
  }

  /** A list changed; `live` says whether its list_changed notification reached the client now. */
  listChanged(kind: ListKind, live: boolean): void {
    (this.changedLists ??= new Map()).set(kind, live || this.changedLists.get(kind) === true);
  }

  /** The client fetched the current list: nothing to announce for it any more. */
  listFetched(kind: ListKind): void {
    this.changedLists?.delete(kind);
  }

  pendingAnnouncements(): readonly JsonRpcNotification[] {
    const changed = this.changedLists;
    if (changed === undefined || changed.size === 0) return NOTHING;
    const out: JsonRpcNotification[] = [];
    for (const [kind, live] of changed) if (!live) out.push({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });
    return out;
  }

  /** Routes the client's answer to one of our requests; false if none was waiting. */
  settle(response: JsonRpcResponse): boolean {
    return this.outbound?.settle(response.id, response) ?? false;
  }

  /** The peer can no longer answer (it stopped sending): fail our requests to it now. */
  failPending(reason: string): void {
    this.outbound?.rejectAll(new JanusError('TRANSPORT_CLOSED', reason));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.inflight.values()) c.abort(new JanusError('TRANSPORT_CLOSED', 'session closed'));
    this.inflight.clear();
    this.failPending('session closed');
    this.lifecycle?.closed(this);
    const hooks = this.closeHooks;
    this.closeHooks = [];
    for (const hook of hooks) hook(this);
    this.host.onSessionClosed?.();
  }
}
