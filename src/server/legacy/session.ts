/**
 * A handshake-era session: what `initialize` negotiated, the client's log level and
 * resource subscriptions, in-flight requests (for cancellation) and the server's own
 * pending requests to the client. Kept lean: many may be open at once.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcResponse, RequestId } from '../../protocol/jsonrpc.js';
import { requestMessage, unwrap } from '../../jsonrpc/envelope.js';
import { PendingRequests } from '../../jsonrpc/pending.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../protocol/types.js';
import { isLegacyVersion, type LegacyVersion } from '../../protocol/versions.js';
import type { SiteSession } from '../call.js';
import type { ClientView, SessionHandle } from '../context.js';
import type { Inbound, TransportKind } from '../transport-seam.js';
import { InflightMap } from '../channel.js';
import type { LegacySession, SessionHost } from './transport-seam.js';
import type { ListKind } from '../registry.js';
import type { SessionRecord } from './session-store.js';
import type { SharedSession } from './shared-session.js';

const NOTHING: readonly JsonRpcNotification[] = Object.freeze([]);

/** What the core hears of a session's life (core.ts): its hooks, pings and session map follow it. */
export interface SessionLifecycle {
  /** `notifications/initialized` arrived after a successful `initialize`: once per session. */
  initialized(session: Session): void;
  /** `notifications/roots/list_changed` arrived on an initialized session. */
  rootsChanged(session: Session): void;
  /** The session ended, however, or this instance let it go (`released`): once. */
  closed(session: Session): void;
  /** A shared session another instance opened is served here now (cluster). */
  adopted(session: Session): void;
}

export class Session implements LegacySession {
  readonly id: string;
  protocolVersion: LegacyVersion | undefined;
  initialized = false;
  closed = false;
  /** This instance let the session go without ending it (cluster: another may serve it on). */
  released = false;
  /** Cluster: the session's shared record and the signals about it; absent in one process. */
  shared: SharedSession | undefined;
  /** The channel `initialize` came on (a session's traffic all comes one way). */
  transport: TransportKind | undefined;
  /** What server code acts on (legacy/session-handle.ts), made when first asked for. */
  handle: SessionHandle | undefined;
  /** What extensions act on (session-site.ts), made when first asked for. */
  site: SiteSession | undefined;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities = {};
  private clientView: ClientView | undefined;
  /** Who opened the session, when its transport authenticated them (`Inbound.principal` at `initialize`). */
  principal: string | undefined;
  logLevel: LoggingLevel | undefined;
  subscriptions: Set<string> | undefined;
  /** Inbound requests in flight, by id, so `notifications/cancelled` can abort them. */
  readonly inflight = new InflightMap();
  /** The server's own requests to the client; made on the first one (most sessions never ask). */
  private outbound: PendingRequests<JsonRpcResponse> | undefined;
  private closeHooks: Array<(s: Session) => void> = [];
  /** Cluster: unsolicited messages waiting to learn where the GET stream is, in order. */
  private outbox: Promise<unknown> = Promise.resolve();
  private readonly lifecycle: SessionLifecycle | undefined;
  /**
   * The "changed since last fetched" marker: lists changed since the client last fetched them,
   * each with whether the change reached the client live. Cleared only by fetching the list,
   * not by announcing it.
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

  /**
   * `notifications/initialized`: the session is ready, once `initialize` succeeded
   * (lifecycle.mdx §Initialization). Shared, it resolves once the record says so, before the
   * transport acknowledges: the client's next request may reach another instance.
   */
  markInitialized(): void | Promise<void> {
    if (this.initialized || this.closed || this.protocolVersion === undefined) return;
    // Shared: ready here only once ready everywhere (a failed write leaves the client to send it again).
    if (this.shared !== undefined) return this.shared.update({ initialized: true }).then(() => this.ready());
    this.ready();
  }

  private ready(): void {
    if (this.initialized || this.closed) return;
    this.initialized = true;
    this.lifecycle?.initialized(this);
  }

  /** `logging/setLevel`. */
  setLogLevel(level: LoggingLevel): void | Promise<void> {
    this.logLevel = level;
    return this.shared?.update({ logLevel: level });
  }

  /** `resources/subscribe`: at most `max` per session. */
  async subscribe(uri: string, max: number): Promise<void> {
    const fits =
      this.shared !== undefined
        ? await this.shared.subscribe(uri, max)
        : this.subscriptions?.has(uri) === true || (this.subscriptions?.size ?? 0) < max;
    if (!fits) {
      throw new McpError(ErrorCode.InvalidParams, `resources/subscribe: at most ${max} resources per session; unsubscribe from one first`);
    }
    (this.subscriptions ??= new Set()).add(uri);
  }

  /** `resources/unsubscribe`. */
  async unsubscribe(uri: string): Promise<void> {
    if (this.shared !== undefined) await this.shared.unsubscribe(uri);
    this.subscriptions?.delete(uri);
  }

  /**
   * Cluster: takes what the shared record says, without the lifecycle's hooks (they ran where
   * it happened). False when the record is not one this server can serve.
   */
  apply(record: SessionRecord): boolean {
    if (!isLegacyVersion(record.protocolVersion)) return false;
    this.protocolVersion = record.protocolVersion;
    this.clientInfo = record.clientInfo;
    this.clientCapabilities = record.clientCapabilities;
    this.principal = record.principal;
    this.logLevel = record.logLevel;
    this.subscriptions = record.subscriptions.length > 0 ? new Set(record.subscriptions) : undefined;
    this.shared?.take(record);
    if (record.initialized && !this.initialized) {
      this.initialized = true;
      this.lifecycle?.adopted(this);
    }
    return true;
  }

  /** Cluster: reloads the shared record before a request (see `LegacySession.refresh`). */
  async refresh(): Promise<'ok' | 'gone' | 'unavailable'> {
    const shared = this.shared;
    if (shared === undefined || this.closed) return this.closed ? 'gone' : 'ok';
    let record: SessionRecord | undefined;
    try {
      record = await shared.load();
    } catch {
      return 'unavailable';
    }
    if (record === undefined || !this.apply(record)) {
      this.release();
      return 'gone';
    }
    return this.closed ? 'gone' : 'ok';
  }

  /** Whether an unsolicited message reaches the client now: on this instance's GET stream, or another's. */
  get reachable(): boolean {
    return this.host.connected !== false || this.shared?.remoteHolder !== undefined;
  }

  /**
   * Sends a message outside any request: on this instance's GET stream when it holds it, else
   * on the instance's that does (cluster), else to the host (which keeps it for a resumption
   * of the GET stream, or drops it).
   */
  sendUnsolicited(message: JsonRpcMessage): void {
    const shared = this.shared;
    // A host that keeps messages where the stream's holder reads them needs no routing.
    if (shared === undefined || this.host.connected !== false || this.host.keeps === true) {
      this.host.send(message);
      return;
    }
    // Cluster, and the GET stream is not here: where it is now is in the store (in order, one message after the other).
    this.outbox = this.outbox
      .then(() => this.refresh())
      .then(() => {
        const holder = shared.remoteHolder;
        if (holder !== undefined) shared.deliver(holder, message);
        else if (!this.closed) this.host.send(message);
      })
      .catch(() => undefined); // a host that cannot deliver drops the message (its transport reports why)
  }

  /**
   * Cluster: a change made through another instance, applied at once (it arrives in order with
   * the backplane's events, which read it); with nothing named, the record is reloaded.
   */
  applyChange(change: { logLevel?: LoggingLevel; subscribed?: string; unsubscribed?: string }): Promise<unknown> | undefined {
    if (change.logLevel === undefined && change.subscribed === undefined && change.unsubscribed === undefined) return this.refresh();
    if (change.logLevel !== undefined) this.logLevel = change.logLevel;
    if (change.subscribed !== undefined) (this.subscriptions ??= new Set()).add(change.subscribed);
    if (change.unsubscribed !== undefined) this.subscriptions?.delete(change.unsubscribed);
    return undefined;
  }

  /**
   * Whether this instance tells the session of registry changes and resource updates: always
   * in one process; in a cluster, only the instance holding its GET stream (the others would
   * tell it again, and the cluster counts changes for the markers).
   */
  get toldHere(): boolean {
    return this.shared === undefined || this.host.connected !== false;
  }

  /** Whether the session is shared by a cluster's instances. */
  get clustered(): boolean {
    return this.shared !== undefined;
  }

  /**
   * Cluster: another instance sent a message for the GET stream it believes this one holds.
   * One that no longer does looks again and passes it on, once, to the holder it finds; with
   * none, the host keeps it for a resumption of the stream.
   */
  async deliverHere(message: JsonRpcMessage, forwarded: boolean): Promise<void> {
    if (this.host.connected === false && !forwarded && this.shared !== undefined) {
      await this.refresh();
      const holder = this.shared.remoteHolder;
      if (holder !== undefined) return this.shared.deliver(holder, message, true);
    }
    if (!this.closed) this.host.send(message);
  }

  /** Cluster: the host stored a message for the GET stream held elsewhere. */
  appended(): void {
    this.shared?.appended();
  }

  /** Cluster: this instance now holds the session's GET stream. */
  streamOpened(): void {
    this.shared?.streamOpened();
  }

  /** Cluster: this instance's GET stream for the session closed. */
  streamClosed(): void {
    this.shared?.streamClosed();
  }

  /** `notifications/roots/list_changed` (client/roots.mdx §Root List Changes). */
  rootsChanged(): void {
    if (this.initialized && !this.closed) this.lifecycle?.rootsChanged(this);
  }

  /**
   * The peer stopped sending (stdin ended): the server's requests to it fail now; resolves once
   * the requests in flight on the session are answered.
   */
  inputEnded(reason: string): Promise<void> {
    this.failPending(reason);
    return this.inflight.settled();
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
    // What this instance knows of another's GET stream may be old: look again before giving up.
    if (via === undefined && !this.reachable && this.shared !== undefined) await this.refresh();
    // Nothing would carry it (HTTP with no GET stream open): say so now, not at the timeout.
    if (via === undefined && !this.reachable) {
      throw new JanusError(
        'TRANSPORT_CLOSED',
        `${method} not sent: nothing reaches the client of session ${this.id} now (on Streamable HTTP, it has no GET stream open)`,
      );
    }
    this.outbound ??= new PendingRequests(0);
    if (this.outbound.size >= this.maxPending) {
      throw new JanusError('PROTOCOL', `${method} not sent: ${this.maxPending} requests to the client are already waiting for an answer`);
    }
    // Shared, the id names this instance, so that an answer POSTed to another finds its way here.
    const id = this.shared === undefined ? this.outbound.nextId() : `${this.shared.idPrefix}${this.outbound.nextId()}`;
    const channel = via ?? { send: (m: JsonRpcMessage) => this.sendUnsolicited(m) };
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

  /**
   * A list changed; `live` says whether its list_changed notification reached the client now.
   * Shared, only the instance holding the GET stream calls it, live (the cluster counts changes).
   */
  listChanged(kind: ListKind, live: boolean): void {
    if (this.shared !== undefined) {
      if (live) this.shared.told(kind);
      return;
    }
    (this.changedLists ??= new Map()).set(kind, live || this.changedLists.get(kind) === true);
  }

  /** The client fetched the current list: nothing to announce for it any more. */
  listFetched(kind: ListKind): void | Promise<void> {
    if (this.shared !== undefined) return this.shared.fetched(kind);
    this.changedLists?.delete(kind);
  }

  pendingAnnouncements(): readonly JsonRpcNotification[] {
    if (this.shared !== undefined) {
      const kinds = this.shared.unannounced;
      return kinds.size === 0 ? NOTHING : [...kinds].map((kind) => ({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` }));
    }
    const changed = this.changedLists;
    if (changed === undefined || changed.size === 0) return NOTHING;
    const out: JsonRpcNotification[] = [];
    for (const [kind, live] of changed) if (!live) out.push({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });
    return out;
  }

  /**
   * Routes the client's answer to one of our requests, or (cluster) to the instance that sent
   * it; false if none was waiting here and it is no other instance's.
   */
  settle(response: JsonRpcResponse): boolean {
    if (this.outbound?.settle(response.id, response)) return true;
    const id = response.id;
    const asker = id === null || id === undefined ? undefined : this.shared?.askerOf(id);
    if (asker === undefined) return false;
    this.shared!.answer(asker, response);
    return true;
  }

  /** Cluster: an answer another instance received for one of this instance's requests. */
  settleHere(response: JsonRpcResponse): boolean {
    return this.outbound?.settle(response.id, response) ?? false;
  }

  /** The client as each request's context shows it: one object while the session's client stays the same. */
  get client(): ClientView {
    const view = this.clientView;
    if (view !== undefined && view.info === this.clientInfo && view.capabilities === this.clientCapabilities) return view;
    return (this.clientView = { info: this.clientInfo, capabilities: this.clientCapabilities });
  }

  /** `notifications/cancelled`: aborts the request, here or (cluster) wherever it runs. */
  cancel(requestId: RequestId, reason: string): void {
    const running = this.inflight.get(requestId);
    if (running !== undefined) running.abort(new McpError(ErrorCode.InvalidRequest, reason));
    else this.shared?.cancel(requestId, reason);
  }

  /** Cluster: a cancellation another instance received, for a request that may run here. */
  cancelHere(requestId: RequestId, reason: string): void {
    this.inflight.get(requestId)?.abort(new McpError(ErrorCode.InvalidRequest, reason));
  }

  /** The peer can no longer answer (it stopped sending): fail our requests to it now. */
  failPending(reason: string): void {
    this.outbound?.rejectAll(new JanusError('TRANSPORT_CLOSED', reason));
  }

  /**
   * Ends the session; shared, everywhere: its record goes and every instance lets it go (the
   * promise settles once the store has done it, and rejects when it could not).
   */
  close(): Promise<void> | undefined {
    if (this.closed) return undefined;
    const ending = this.shared?.end();
    this.teardown();
    return ending;
  }

  /** This instance lets the session go without ending it; without a cluster, the same as `close`. */
  release(): void {
    if (this.closed) return;
    if (this.shared !== undefined) this.released = true;
    this.teardown();
  }

  private teardown(): void {
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
