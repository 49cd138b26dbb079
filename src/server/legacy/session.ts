/**
 * A handshake-era session: what `initialize` negotiated, the client's log level and
 * resource subscriptions, in-flight requests (for cancellation) and the server's own
 * pending requests to the client. Kept lean: many may be open at once. Whatever depends on
 * whether a cluster shares it is its replica's (replica.ts, cluster-replica.ts).
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcResponse, RequestId } from '../../protocol/jsonrpc.js';
import { requestMessage, unwrap } from '../../jsonrpc/envelope.js';
import { PendingRequests } from '../../jsonrpc/pending.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../protocol/types.js';
import type { LegacyVersion } from '../../protocol/versions.js';
import type { SiteSession } from '../call.js';
import type { ClientView, SessionHandle } from '../context.js';
import type { Inbound, TransportKind } from '../transport-seam.js';
import { InflightMap } from '../channel.js';
import type { LegacySession, SessionHost, SharedSessionLink } from './transport-seam.js';
import type { ListKind } from '../registry.js';
import { LocalReplica, type Replica } from './replica.js';

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
  /** Cluster: the session's GET stream opened on this instance (its pings run here now). */
  streamHeld(session: Session): void;
}

export class Session implements LegacySession {
  readonly id: string;
  protocolVersion: LegacyVersion | undefined;
  initialized = false;
  closed = false;
  /** This instance let the session go without ending it (cluster: another may serve it on). */
  released = false;
  /** Where its state lives beyond this object: this process, or a cluster's shared record. */
  readonly replica: Replica;
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
  private readonly lifecycle: SessionLifecycle | undefined;

  constructor(
    readonly host: SessionHost,
    lifecycle?: SessionLifecycle,
    /** Server-to-client requests that may wait for an answer at once (limits.maxPendingClientRequests). */
    private readonly maxPending = Number.POSITIVE_INFINITY,
    id: string = crypto.randomUUID(),
    /** A cluster's replica, when one shares the session. */
    replicate?: (session: Session) => Replica,
  ) {
    this.id = id;
    this.lifecycle = lifecycle;
    this.replica = replicate?.(this) ?? new LocalReplica(host);
  }

  /** Cluster: the transport's handle on the shared record (absent in one process). */
  get shared(): SharedSessionLink | undefined {
    return this.replica.link;
  }

  /** `initialize` succeeded: shared, the record exists before the client learns the session id. */
  opened(): void | Promise<void> {
    const { protocolVersion, clientInfo, clientCapabilities, principal } = this;
    if (protocolVersion === undefined) return;
    return this.replica.opened({ protocolVersion, clientInfo, clientCapabilities, principal });
  }

  /**
   * `notifications/initialized`: the session is ready, once `initialize` succeeded
   * (lifecycle.mdx §Initialization). Shared, it resolves once the record says so, before the
   * transport acknowledges: the client's next request may reach another instance.
   */
  markInitialized(): void | Promise<void> {
    if (this.initialized || this.closed || this.protocolVersion === undefined) return;
    const recorded = this.replica.initialized();
    if (recorded === undefined) this.ready();
    else return recorded.then(() => this.ready());
  }

  /** Cluster: another instance received `notifications/initialized` (its hooks ran there). */
  initializedElsewhere(): void {
    if (this.initialized) return;
    this.initialized = true;
    this.lifecycle?.adopted(this);
  }

  private ready(): void {
    if (this.initialized || this.closed) return;
    this.initialized = true;
    this.lifecycle?.initialized(this);
  }

  /** `logging/setLevel`. */
  setLogLevel(level: LoggingLevel): void | Promise<void> {
    this.logLevel = level;
    return this.replica.logLevelSet(level);
  }

  /** `resources/subscribe`: at most `max` per session. */
  async subscribe(uri: string, max: number): Promise<void> {
    if (!(await this.replica.subscribe(uri, max, this.subscriptions))) {
      throw new McpError(ErrorCode.InvalidParams, `resources/subscribe: at most ${max} resources per session; unsubscribe from one first`);
    }
    (this.subscriptions ??= new Set()).add(uri);
  }

  /** `resources/unsubscribe`. */
  async unsubscribe(uri: string): Promise<void> {
    await this.replica.unsubscribe(uri);
    this.subscriptions?.delete(uri);
  }

  /** Whether an unsolicited message reaches the client now: on this instance's GET stream, or another's. */
  get reachable(): boolean {
    return this.replica.reachable;
  }

  /** Sends a message outside any request, wherever the client hears it now. */
  sendUnsolicited(message: JsonRpcMessage): void {
    this.replica.sendUnsolicited(message);
  }

  /** Whether this instance runs the server's pings of the session (in a cluster, the one holding its GET stream). */
  get pingsHere(): boolean {
    return this.replica.pingsHere;
  }

  /** Cluster: the session's GET stream opened here. */
  streamHeld(): void {
    if (this.initialized && !this.closed) this.lifecycle?.streamHeld(this);
  }

  /** Whether this instance tells the session of registry changes and resource updates (in a cluster, one instance does). */
  get toldHere(): boolean {
    return this.replica.toldHere;
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
    if (via === undefined && !this.reachable) await this.replica.lookAgain();
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
    const id = this.replica.requestId(this.outbound.nextId());
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

  /** A list changed; `live` says whether its list_changed notification reached the client now. */
  listChanged(kind: ListKind, live: boolean): void {
    this.replica.listChanged(kind, live);
  }

  /** The client fetched the current list: nothing to announce for it any more. */
  listFetched(kind: ListKind): void | Promise<void> {
    return this.replica.listFetched(kind);
  }

  pendingAnnouncements(): readonly JsonRpcNotification[] {
    return this.replica.pendingAnnouncements();
  }

  /**
   * Routes the client's answer to one of our requests, or (cluster) to the instance that sent
   * it; false if none was waiting here and it is no other instance's.
   */
  settle(response: JsonRpcResponse): boolean {
    return this.settleHere(response) || this.replica.answerElsewhere(response);
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
    else this.replica.cancelElsewhere(requestId, reason);
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
    const ending = this.replica.end();
    this.teardown();
    return ending;
  }

  /** This instance lets the session go without ending it; without a cluster, the same as `close`. */
  release(): void {
    if (this.closed) return;
    this.released = this.replica.handsOver;
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
