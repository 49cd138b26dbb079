/**
 * The server core: what a transport drives (`ServerCore`). It decides the era of each inbound
 * message (src/protocol/era-claim.ts) and hands it to that era's dispatcher with the server's
 * services. Modern (`_meta` protocol version, or a modern-only method) is served statelessly;
 * everything else belongs to the legacy session of its channel, which the core opened and
 * keeps, with the listen streams, to tell them about changes.
 */
import { claimsModern } from '../protocol/era-claim.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import {
  classify,
  errorResponse,
  isRequestId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type RequestId,
} from '../protocol/jsonrpc.js';
import { nestedDeeperThan } from '../protocol/json-depth.js';
import { revision, revisionsWith } from '../protocol/revisions.js';
import { MODERN_VERSIONS } from '../protocol/versions.js';
import type { ServerEvent } from './backplane.js';
import { handleLegacyNotification, handleLegacyRequest } from './legacy/dispatch.js';
import { SessionLife } from './legacy/lifecycle.js';
import { Session } from './legacy/session.js';
import { SharedSession } from './legacy/shared-session.js';
import { handleOf } from './legacy/session-handle.js';
import { handleModernNotification, handleModernRequest } from './modern/dispatch.js';
import type { ListenHub } from './modern/listen.js';
import { scopesOf } from './scopes.js';
import { Services, type ServerConfig } from './services.js';
import type { SessionHandle } from './context.js';
import type { EventStore, SessionSignal } from './session-store.js';
import type { HeaderParam, Inbound, ServerCore, SessionHost } from './transport-seam.js';

/** What `handle` returns for work that finished synchronously. */
const SETTLED: Promise<void> = Promise.resolve();

const NOTIFICATION: unique symbol = Symbol('notification');
/** Whom a message that failed unexpectedly is answered: a request by its id, a notification by a refusal, anything else not at all. */
type AnswerTarget = RequestId | typeof NOTIFICATION | undefined;

function answerTarget(message: unknown): AnswerTarget {
  if (typeof message !== 'object' || message === null || !('method' in message)) return undefined;
  if (!('id' in message)) return NOTIFICATION;
  return isRequestId(message.id) ? message.id : undefined;
}

const BATCHES_REFUSED = `Invalid Request: JSON-RPC batches are only allowed on protocol ${revisionsWith((r) => r.transport.batches).join(', ')}`;

export class Core implements ServerCore {
  private readonly services: Services;
  /** The listen streams of this instance (the services' own). */
  readonly hub: ListenHub;
  readonly sessions = new Map<string, Session>();
  /** Session hooks, pings and the count of initialized sessions. */
  readonly life: SessionLife;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeSignals: (() => void) | undefined;

  constructor(private readonly config: ServerConfig) {
    this.life = new SessionLife(
      config.sessions,
      (e) => this.reportError(e),
      (s) => this.sessions.get(s.id) === s && this.sessions.delete(s.id),
    );
    this.services = new Services(config);
    this.hub = this.services.hub;
    this.unsubscribe = config.backplane.subscribe((e) => this.deliver(e));
    this.unsubscribeSignals = config.shared?.store.onSignal((signal) => this.onSignal(signal));
  }

  get instanceId(): string | undefined {
    return this.config.shared?.store.instanceId;
  }

  get eventStore(): EventStore | undefined {
    return this.config.shared?.events;
  }

  get name(): string {
    return this.config.info.name;
  }

  reportError(error: unknown): void {
    this.services.reportError(error);
  }

  reportWarning(message: string): void {
    this.config.warn(message);
  }

  mcpNameField(method: string): string | undefined {
    return this.services.extensions.mcpNameField(method);
  }

  toolHeaderParams(name: string): readonly HeaderParam[] | undefined {
    return this.config.registry.tools.get(name)?.headerParams;
  }

  requiredScopes(method: string, params: unknown): readonly string[] | undefined {
    return scopesOf(this.config.registry, method, params);
  }

  /** A session of this core; message transports (connect.ts) use the whole of it. */
  openSession(host: SessionHost): Session {
    // The transport's own id (HTTP's Mcp-Session-Id) when it has one, so that the server and the client name a session alike.
    const id = typeof host.id === 'string' && host.id !== '' && !this.sessions.has(host.id) ? host.id : undefined;
    const session = new Session(host, this.life, this.config.limits.maxPendingClientRequests, id);
    this.share(session, host);
    this.sessions.set(session.id, session);
    return session;
  }

  /** Cluster: a session another instance opened, served here from its shared record (see `ServerCore.adoptSession`). */
  async adoptSession(host: SessionHost): Promise<Session | undefined> {
    const id = host.id;
    if (this.config.shared === undefined || host.share === undefined || typeof id !== 'string' || id === '') return undefined;
    const session = new Session(host, this.life, this.config.limits.maxPendingClientRequests, id);
    const shared = this.share(session, host)!;
    const record = await shared.load();
    if (record === undefined || !session.apply(record)) return undefined;
    session.transport = 'http';
    // A session this instance served before and let go of is served anew.
    const stale = this.sessions.get(id);
    if (stale !== undefined && stale !== session) stale.release();
    this.sessions.set(id, session);
    return session;
  }

  /** Links a session to the cluster's store when its transport lets any instance serve it. */
  private share(session: Session, host: SessionHost): SharedSession | undefined {
    const shared = this.config.shared;
    if (shared === undefined || host.share === undefined) return undefined;
    session.shared = new SharedSession(shared.store, session.id, host.share.ttlMs, (e) => this.reportError(e));
    return session.shared;
  }

  /** Cluster: what another instance says about one of the sessions served here. */
  private onSignal(signal: SessionSignal): void {
    const session = this.sessions.get(signal.session);
    if (session === undefined || session.closed) return;
    switch (signal.type) {
      case 'deliver':
        session.deliverHere(signal.message, signal.forwarded === true).catch((e: unknown) => this.reportError(e));
        break;
      case 'answer':
        session.settleHere(signal.message);
        break;
      case 'cancel':
        session.cancelHere(signal.requestId, signal.reason);
        break;
      case 'changed':
        session.applyChange(signal)?.catch((e: unknown) => this.reportError(e));
        break;
      case 'appended':
        session.host.pull?.();
        break;
      case 'yield':
        session.host.yieldStream?.();
        break;
      case 'ended':
        session.release();
        break;
    }
  }

  /** The handle of an open, initialized session of this core. */
  sessionHandle(id: string): SessionHandle | undefined {
    const session = this.sessions.get(id);
    return session?.initialized && !session.closed ? handleOf(session) : undefined;
  }

  /** Open initialized legacy sessions and open listen streams of this instance. */
  stats(): { sessions: number; listenStreams: number } {
    return { sessions: this.life.open, listenStreams: this.hub.size };
  }

  handle(payload: unknown, inbound: Inbound): Promise<void> {
    return this.dispatch(payload, inbound) ?? SETTLED;
  }

  /**
   * `handle`, with no promise when the work finished synchronously (a synchronous handler and
   * no middleware: most calls), for the transports of this package: every promise on the hot
   * path costs. Never throws; the promise never rejects.
   */
  dispatch(payload: unknown, inbound: Inbound): Promise<void> | undefined {
    return Array.isArray(payload)
      ? this.handleBatch(payload, inbound).catch((e: unknown) => this.answerAnyway(undefined, inbound, e))
      : this.dispatchOne(payload, inbound);
  }

  /** One message (never a batch: an array inside a batch is an invalid item), answered whatever is thrown. */
  private dispatchOne(message: unknown, inbound: Inbound): Promise<void> | undefined {
    try {
      const pending = this.handleOne(message, inbound);
      if (pending instanceof Promise) {
        // Only what a late answer needs is kept while the request runs (a listen stream may run for hours).
        const target = answerTarget(message);
        return pending.catch((e: unknown) => this.answerAnyway(target, inbound, e));
      }
    } catch (e) {
      this.answerAnyway(answerTarget(message), inbound, e);
    }
    return undefined;
  }

  /**
   * Every request gets an answer, whatever is thrown (JSON-RPC 2.0 §5: a Response for each
   * Request). The dispatchers answer their own errors; one that throws anyway (a bug, or a
   * transport that could not write the answer) is reported, never a crash, and a request still
   * gets a masked -32603 if the channel can take it.
   */
  private answerAnyway(target: AnswerTarget, inbound: Inbound, error: unknown): void {
    this.reportError(error);
    if (target === undefined) return;
    if (target === NOTIFICATION) {
      // A notification that could not be taken in (its session's shared store is away): the transport says so.
      inbound.refuse?.(error instanceof McpError ? error.toJSON() : { code: ErrorCode.InternalError, message: 'Internal error' });
      return;
    }
    try {
      inbound.send(errorResponse(target, { code: ErrorCode.InternalError, message: 'Internal error' }));
    } catch (again) {
      this.reportError(again);
    }
  }

  private handleOne(payload: unknown, inbound: Inbound): void | Promise<void> {
    const session = sessionOf(inbound);
    const maxDepth = this.config.limits.maxJsonDepth;
    if (nestedDeeperThan(payload, maxDepth)) return refuseDeep(payload, maxDepth, inbound, session);
    const classified = classify(payload);
    switch (classified.kind) {
      case 'invalid':
        return inbound.send(
          errorResponse(classified.id, { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${classified.reason}` }),
        );
      case 'response':
        session?.settle(classified.message);
        return;
      case 'notification': {
        const n = classified.message;
        const modern = inbound.wire === 'modern' || (inbound.wire === undefined && claimsModern(n.method, n.params));
        if (session && !modern) return handleLegacyNotification(this.services, session, n, inbound);
        // A channel that cancels by notification (stdio) keys its modern requests in its session's in-flight map.
        return handleModernNotification(this.services, n, inbound, session?.inflight);
      }
      case 'request': {
        const request = classified.message;
        const { legacy, modern } = this.config.eras;
        const wire = inbound.wire ?? (claimsModern(request.method, request.params) ? 'modern' : 'legacy');
        if (modern && (!legacy || wire === 'modern')) {
          if (!legacy && request.method === 'initialize') {
            return inbound.send(
              errorResponse(request.id, {
                code: ErrorCode.UnsupportedProtocolVersion,
                message: 'This server speaks only the stateless revision; use server/discover',
                data: { supported: [...MODERN_VERSIONS].reverse(), requested: request.params?.protocolVersion ?? null },
              }),
            );
          }
          // A channel that cancels by notification (stdio) keys its modern requests in its session's in-flight map.
          return handleModernRequest(this.services, request, inbound, session?.inflight);
        }
        if (!session) {
          return inbound.send(errorResponse(request.id, { code: ErrorCode.InvalidRequest, message: 'No session: send initialize first' }));
        }
        return handleLegacyRequest(this.services, session, request, inbound);
      }
    }
  }

  /**
   * JSON-RPC batches exist only in 2025-03-26 (its changelog; removed in 2025-06-18);
   * initialize is never batched. A batch is that revision's framing, so its items are dispatched on the legacy wire, on every
   * transport: a 2026-07-28 method in one is unknown there, as it is over HTTP, and a
   * `subscriptions/listen` cannot hold the batch's other answers back.
   */
  private async handleBatch(batch: unknown[], inbound: Inbound): Promise<void> {
    const v = sessionOf(inbound)?.protocolVersion;
    const allowed = batch.length > 0 && v !== undefined && revision(v).transport.batches && !batch.some(isInitialize);
    if (!allowed) {
      // Refused as a whole: one error object, not an array (JSON-RPC 2.0 §6).
      const refusal = errorResponse(null, { code: ErrorCode.InvalidRequest, message: BATCHES_REFUSED });
      return inbound.refuseBatch ? inbound.refuseBatch(refusal) : inbound.send(refusal);
    }
    const items = new BatchInbound(inbound);
    await Promise.all(batch.map((m) => this.dispatchOne(m, items)));
    if (items.responses.length) inbound.sendBatch!(items.responses);
  }

  publish(event: ServerEvent): void {
    this.config.backplane.publish(event);
  }

  /** Tells every open legacy session and listen stream of this instance. */
  private deliver(event: ServerEvent): void {
    if (event.type === 'list_changed') {
      const method = `notifications/${event.kind}/list_changed`;
      for (const session of this.sessions.values()) {
        // Changed since last fetched: a change that does not reach the session now is announced on its next response stream.
        if (!session.initialized || !session.toldHere) continue;
        session.listChanged(event.kind, session.host.connected !== false);
        sendTo(session, { jsonrpc: '2.0', method });
      }
      this.hub.listChanged(event.kind);
    } else if (event.type === 'topic') {
      this.hub.topic(event.topic, event.notification);
    } else {
      for (const session of this.sessions.values()) {
        if (session.initialized && session.toldHere && session.subscriptions?.has(event.uri)) {
          sendTo(session, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: event.uri } });
        }
      }
      this.hub.resourceUpdated(event.uri);
    }
  }

  /** Sends a notification to one session if its revision has that method; false when there is no such session. */
  notifySession(id: string, message: JsonRpcNotification): boolean {
    const session = this.sessions.get(id);
    const v = session?.protocolVersion;
    if (!session?.initialized || v === undefined || !revision(v).methods.serverNotifications.has(message.method)) return false;
    session.sendUnsolicited(message);
    return true;
  }

  endListeners(match: (inbound: Inbound) => boolean): void {
    this.hub.endWhere((l) => match(l.channel));
  }

  /** Ends this instance's sessions; shared ones (cluster) it only lets go of: other instances serve them on. */
  close(): void {
    this.services.extensions.close();
    this.unsubscribe();
    this.unsubscribeSignals?.();
    this.hub.endAll();
    for (const session of [...this.sessions.values()]) session.release();
  }
}

/**
 * A message nested deeper than `maxJsonDepth`: refused before anything walks it (validators,
 * canonical JSON and error messages recurse). A request gets -32600 with its id (JSON-RPC 2.0
 * §5.1: valid JSON, not a valid Request for this server); an answer to one of the session's
 * own requests fails that request now rather than at its timeout; a notification is dropped.
 */
function refuseDeep(payload: unknown, maxDepth: number, inbound: Inbound, session: Session | undefined): void {
  const error = { code: ErrorCode.InvalidRequest, message: `Invalid Request: JSON nested more than ${maxDepth} levels deep` };
  if (Array.isArray(payload) || typeof payload !== 'object' || payload === null) {
    inbound.send(errorResponse(null, error));
    return;
  }
  const id = 'id' in payload && isRequestId(payload.id) ? payload.id : null;
  if ('method' in payload) {
    if ('id' in payload) inbound.send(errorResponse(id, error));
    return;
  }
  if (id !== null && ('result' in payload || 'error' in payload)) session?.settle(errorResponse(id, error));
  else inbound.send(errorResponse(null, error));
}

/** The session of a payload, as this core opened it (a transport hands back what `openSession` gave it). */
function sessionOf(inbound: Inbound): Session | undefined {
  const session = inbound.session;
  return session instanceof Session ? session : undefined;
}

function isInitialize(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'method' in message && message.method === 'initialize';
}

/**
 * A batch item's channel: on the legacy wire (see handleBatch). Where the transport takes a
 * batch's answers as one array (`sendBatch`), its responses are collected; its notifications
 * (progress, logs) still go out as they happen. Else each response goes out as it is ready
 * and the transport assembles the array itself (HTTP).
 */
class BatchInbound implements Inbound {
  readonly responses: JsonRpcMessage[] = [];
  readonly wire = 'legacy';
  constructor(private readonly channel: Inbound) {}
  get transport(): Inbound['transport'] {
    return this.channel.transport;
  }
  get cancelsOnDrop(): boolean | undefined {
    return this.channel.cancelsOnDrop;
  }
  get signal(): AbortSignal | undefined {
    return this.channel.signal;
  }
  get session(): Inbound['session'] {
    return this.channel.session;
  }
  get principal(): Inbound['principal'] {
    return this.channel.principal;
  }
  get auth(): Inbound['auth'] {
    return this.channel.auth;
  }
  send(message: JsonRpcMessage): void {
    if ('method' in message || !this.channel.sendBatch) this.channel.send(message);
    else this.responses.push(message);
  }
  closeStream(): void {
    this.channel.closeStream?.();
  }
}

function sendTo(session: Session, message: JsonRpcMessage): void {
  try {
    session.host.send(message);
  } catch {
    // A host that cannot deliver drops the message; the session's transport reports its own failure.
  }
}
