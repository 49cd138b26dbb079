/**
 * The handshake era as the core's plug-in (server/era.ts): the sessions of this instance,
 * opened on a message channel or by a session transport (Streamable HTTP, HTTP+SSE), the
 * routing of their messages to the dispatcher (dispatch.ts), what they hear of registry changes
 * and resource updates, and, in a cluster, the signals other instances send about them.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { errorResponse, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../../protocol/jsonrpc.js';
import { revision } from '../../protocol/revisions.js';
import { isLegacyVersion } from '../../protocol/versions.js';
import type { ServerEvent } from '../backplane.js';
import type { InflightRegistry } from '../cancel.js';
import type { ChannelHost, ServerChannel } from '../channel.js';
import type { SessionHandle } from '../context.js';
import type { HandshakeEra } from '../era.js';
import type { ServerConfig, Services } from '../services.js';
import type { SessionHooks } from '../session-hooks.js';
import type { Inbound, ServerCore } from '../transport-seam.js';
import { handleLegacyNotification, handleLegacyRequest } from './dispatch.js';
import { SessionLife } from './lifecycle.js';
import { Session } from './session.js';
import { SharedSession } from './shared-session.js';
import { ClusterReplica } from './cluster-replica.js';
import { handleOf } from './session-handle.js';
import type { EventStore, ExpiredSession, SessionSignal, SessionStore } from './session-store.js';
import { EVENT_STORE, SESSION_STORE } from './session-store-keys.js';
import type { LegacySession, SessionHost } from './transport-seam.js';

/** What a session transport (Streamable HTTP) asks of the era beyond the core's seam: sessions, and in a cluster their shared records. */
export interface SessionSeam {
  /** A new, uninitialized session whose unsolicited messages go to `host`. */
  openSession(host: SessionHost): LegacySession;
  /**
   * Cluster: the session `host.id` that another instance opened, served here from its shared
   * record; undefined when no such session exists. Rejects when the store cannot be reached.
   * Undefined without shared sessions.
   */
  readonly adoptSession: ((host: SessionHost) => Promise<LegacySession | undefined>) | undefined;
  /** Cluster: this instance's id, for naming what it creates (stream ids) apart from the others'. */
  readonly instanceId: string | undefined;
  /** Cluster: where SSE events are kept so a client resumes its stream on any instance. */
  readonly eventStore: EventStore | undefined;
  /** The sessions this instance serves, by id. */
  readonly sessions: ReadonlyMap<string, LegacySession>;
}

/** The era of each core that serves it, for the session transports of the same build (transports/http/legacy). */
const ERAS = new WeakMap<ServerCore, SessionSeam>();

/** The handshake era's session seam of a core; undefined where the core does not serve the era. */
export function sessionSeamOf(core: ServerCore): SessionSeam | undefined {
  return ERAS.get(core);
}

/** Gives a core of its own making (a test's scripted one) the session seam its session transports reach it by. */
export function provideSessionSeam(core: ServerCore, seam: SessionSeam): void {
  ERAS.set(core, seam);
}

/** The session a payload belongs to, as this era opened it (a transport hands back what it was given). */
function sessionOf(inbound: Inbound): Session | undefined {
  const channel = inbound.channel;
  return channel instanceof Session ? channel : undefined;
}

/** A cluster's shared sessions and SSE events (`Cluster.stores`), as the server was given them. */
export interface SharedStores {
  readonly store: SessionStore;
  readonly events: EventStore | undefined;
}

class Handshake implements HandshakeEra, SessionSeam {
  readonly sessions = new Map<string, Session>();
  /** Session hooks, pings and the count of initialized sessions. */
  readonly life: SessionLife;
  private readonly unsubscribeSignals: (() => void) | undefined;
  private readonly unsubscribeExpiry: (() => void) | undefined;
  readonly adoptSession: SessionSeam['adoptSession'];

  constructor(
    private readonly services: Services,
    private readonly config: ServerConfig,
    private readonly shared: SharedStores | undefined,
  ) {
    this.life = new SessionLife(
      config.sessions,
      (e) => services.reportError(e),
      (s) => this.sessions.get(s.id) === s && this.sessions.delete(s.id),
    );
    this.unsubscribeSignals = shared?.store.onSignal((signal) => this.onSignal(signal));
    this.unsubscribeExpiry = shared?.store.onExpired?.((expired) => this.expired(expired));
    this.adoptSession = shared === undefined ? undefined : (host) => this.adopt(host);
  }

  get instanceId(): string | undefined {
    return this.shared?.store.instanceId;
  }

  get eventStore(): EventStore | undefined {
    return this.shared?.events;
  }

  get openSessions(): number {
    return this.life.open;
  }

  onSession(hooks: SessionHooks): () => void {
    return this.life.events.subscribe(hooks);
  }

  openChannel(host: ChannelHost): ServerChannel {
    return this.openSession(host);
  }

  openSession(host: SessionHost): Session {
    // The transport's own id (HTTP's Mcp-Session-Id) when it has one, so that the server and the client name a session alike.
    const id = typeof host.id === 'string' && host.id !== '' && !this.sessions.has(host.id) ? host.id : undefined;
    const session = new Session(host, this.life, this.config.limits.maxPendingClientRequests, id, this.replicaFor(host));
    this.sessions.set(session.id, session);
    return session;
  }

  /** Cluster: a session another instance opened, served here from its shared record. */
  private async adopt(host: SessionHost): Promise<Session | undefined> {
    const id = host.id;
    const replicate = this.replicaFor(host);
    if (replicate === undefined || typeof id !== 'string' || id === '') return undefined;
    const session = new Session(host, this.life, this.config.limits.maxPendingClientRequests, id, replicate);
    if (!(session.replica instanceof ClusterReplica && (await session.replica.restore()))) return undefined;
    session.transport = 'http';
    // A session this instance served before and let go of is served anew.
    const stale = this.sessions.get(id);
    if (stale !== undefined && stale !== session) stale.release();
    this.sessions.set(id, session);
    return session;
  }

  /** A cluster's replica for the sessions of a transport that lets any instance serve them. */
  private replicaFor(host: SessionHost): ((session: Session) => ClusterReplica) | undefined {
    const { shared, services } = this;
    const share = host.share;
    if (shared === undefined || share === undefined) return undefined;
    const report = (e: unknown) => services.reportError(e);
    return (session) => new ClusterReplica(session, new SharedSession(shared.store, session.id, share.ttlMs, report), report);
  }

  /** Cluster: what another instance says about one of the sessions served here. */
  private onSignal(signal: SessionSignal): void {
    const replica = this.sessions.get(signal.session)?.replica;
    if (replica instanceof ClusterReplica) replica.heard(signal);
  }

  /**
   * Cluster: a session expired in the store, unused everywhere, and this instance is the one
   * (of all) to end it: its `onClosed` runs here. Served here still (a GET stream held open
   * without requests), it ends as if closed here; otherwise its handle is made from what
   * `initialize` left in the record. Either way every other instance lets it go.
   */
  private expired({ id, record }: ExpiredSession): void {
    const served = this.sessions.get(id);
    if (served !== undefined && !served.closed) {
      void served.close()?.catch(() => undefined); // the record is gone already; a failed signal is reported by the session
      return;
    }
    if (!isLegacyVersion(record.protocolVersion)) return;
    const ended = new Session(GONE, this.life, 0, id);
    ended.protocolVersion = record.protocolVersion;
    ended.clientInfo = record.clientInfo;
    ended.clientCapabilities = record.clientCapabilities;
    ended.principal = record.principal;
    ended.transport = 'http';
    ended.initialized = true; // it initialized (the store keeps no hook data otherwise); its onInitialized ran where it did
    ended.close();
    this.shared?.store.signal(undefined, { type: 'ended', session: id }).catch((e: unknown) => this.services.reportError(e));
  }

  owns(channel: ServerChannel | undefined): boolean {
    return channel instanceof Session;
  }

  inflightOf(channel: ServerChannel | undefined): InflightRegistry | undefined {
    return channel instanceof Session ? channel.inflight : undefined;
  }

  request(req: JsonRpcRequest, inbound: Inbound): void | Promise<void> {
    const session = sessionOf(inbound);
    if (session === undefined) {
      return inbound.send(errorResponse(req.id, { code: ErrorCode.InvalidRequest, message: 'No session: send initialize first' }));
    }
    return handleLegacyRequest(this.services, session, req, inbound);
  }

  notification(n: JsonRpcNotification, inbound: Inbound): void | Promise<void> {
    const session = sessionOf(inbound);
    if (session !== undefined) return handleLegacyNotification(this.services, session, n, inbound);
  }

  response(response: JsonRpcResponse, inbound: Inbound): void {
    sessionOf(inbound)?.settle(response);
  }

  batchAllowed(inbound: Inbound): boolean {
    const v = sessionOf(inbound)?.protocolVersion;
    return v !== undefined && revision(v).transport.batches;
  }

  /** Tells every open session of this instance. */
  deliver(event: ServerEvent): void {
    if (event.type === 'list_changed') {
      const method = `notifications/${event.kind}/list_changed`;
      for (const session of this.sessions.values()) {
        // A change that does not reach the session now is announced on its next response stream ("changed since last fetched").
        if (!session.initialized || !session.toldHere) continue;
        session.listChanged(event.kind, session.host.connected !== false);
        sendTo(session, { jsonrpc: '2.0', method });
      }
    } else if (event.type === 'resource_updated') {
      for (const session of this.sessions.values()) {
        if (session.initialized && session.toldHere && session.subscriptions?.has(event.uri)) {
          sendTo(session, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: event.uri } });
        }
      }
    }
  }

  notifySession(id: string, message: JsonRpcNotification): boolean {
    const session = this.sessions.get(id);
    const v = session?.protocolVersion;
    if (!session?.initialized || v === undefined || !revision(v).methods.serverNotifications.has(message.method)) return false;
    session.sendUnsolicited(message);
    return true;
  }

  sessionHandle(id: string): SessionHandle | undefined {
    const session = this.sessions.get(id);
    return session?.initialized && !session.closed ? handleOf(session) : undefined;
  }

  close(): void {
    this.unsubscribeSignals?.();
    this.unsubscribeExpiry?.();
    for (const session of [...this.sessions.values()]) session.release();
  }
}

/** Where an expired session's last handle would send: nowhere, its client is gone. */
const GONE: SessionHost = { send: () => undefined, connected: false };

function sendTo(session: Session, message: JsonRpcNotification): void {
  try {
    session.host.send(message);
  } catch {
    // A host that cannot deliver drops the message; the session's transport reports its own failure.
  }
}

/** The handshake era of one server's core (what eras.ts registers). */
export function handshakeEra(services: Services, config: ServerConfig, core: ServerCore): HandshakeEra {
  const store = config.stores?.get(SESSION_STORE);
  const shared = store === undefined ? undefined : { store, events: config.stores?.get(EVENT_STORE) };
  const era = new Handshake(services, config, shared);
  ERAS.set(core, era);
  return era;
}
