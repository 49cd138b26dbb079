/**
 * The server core: what a transport drives (`ServerCore`). It routes each inbound message to
 * the era whose wire it is on (src/protocol/era-claim.ts): the stateless era, served here per
 * request, or the handshake era, a plug-in that eras.ts registers and that keeps its own
 * sessions. It also keeps the message channels of a server without that era, and tells the
 * listen streams (and the era's sessions) about changes.
 */
import { claimsModern } from '../protocol/era-claim.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import {
  classify,
  errorResponse,
  isRequestId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type RequestId,
} from '../protocol/jsonrpc.js';
import { nestedDeeperThan } from '../protocol/json-depth.js';
import { revisionsWith } from '../protocol/revisions.js';
import type { ServerEvent } from './backplane.js';
import type { InflightRegistry } from './cancel.js';
import { Channel, type ChannelHost, type ServerChannel } from './channel.js';
import type { SessionHandle } from './context.js';
import type { HandshakeEra } from './era.js';
import { HANDSHAKE_ERA } from './eras.js';
import { handleModernNotification, handleModernRequest } from './modern/dispatch.js';
import type { ListenHub } from './modern/listen.js';
import { scopesOf } from './scopes.js';
import { Services, type ServerConfig } from './services.js';
import type { SessionHooks } from './session-hooks.js';
import type { HeaderParam, Inbound, ServerCore } from './transport-seam.js';

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
  /** The handshake era, where this server serves it (eras.ts registers it; a build without it has none). */
  readonly handshake: HandshakeEra | undefined;
  /** The message channels of a core without the handshake era (with it, its sessions are the channels). */
  private readonly channels = new Set<Channel>();
  private readonly unsubscribe: () => void;

  constructor(private readonly config: ServerConfig) {
    const legacy = config.eras.legacy && HANDSHAKE_ERA !== undefined;
    const served: ServerConfig = legacy === config.eras.legacy ? config : { ...config, eras: { ...config.eras, legacy } };
    this.services = new Services(served);
    this.hub = this.services.hub;
    this.handshake = legacy ? HANDSHAKE_ERA?.(this.services, served, this) : undefined;
    this.unsubscribe = config.backplane.subscribe((e) => this.deliver(e));
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

  openChannel(host: ChannelHost): ServerChannel {
    if (this.handshake !== undefined) return this.handshake.openChannel(host);
    const channel = new Channel(host, (c) => this.channels.delete(c));
    this.channels.add(channel);
    return channel;
  }

  /** The in-flight requests of the payload's channel, where it cancels by notification (stdio). */
  private inflightOf(inbound: Inbound): InflightRegistry | undefined {
    const channel = inbound.channel;
    return channel instanceof Channel ? channel.inflight : this.handshake?.inflightOf(channel);
  }

  /** The handle of an open, initialized handshake-era session of this core. */
  sessionHandle(id: string): SessionHandle | undefined {
    return this.handshake?.sessionHandle(id);
  }

  /** Adds session hooks for the handshake era's sessions (none are ever opened without it). */
  onSession(hooks: SessionHooks): () => void {
    return this.handshake?.onSession(hooks) ?? NOTHING_TO_REMOVE;
  }

  /** Open initialized legacy sessions and open listen streams of this instance. */
  stats(): { sessions: number; listenStreams: number } {
    return { sessions: this.handshake?.openSessions ?? 0, listenStreams: this.hub.size };
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

  /**
   * Routing: each message goes to the era whose wire it is on. The stateless era is the core's
   * own; everything else is the handshake era's, where it is served.
   */
  private handleOne(payload: unknown, inbound: Inbound): void | Promise<void> {
    const maxDepth = this.config.limits.maxJsonDepth;
    if (nestedDeeperThan(payload, maxDepth)) return this.refuseDeep(payload, maxDepth, inbound);
    const classified = classify(payload);
    const handshake = this.handshake;
    switch (classified.kind) {
      case 'invalid':
        return inbound.send(
          errorResponse(classified.id, { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${classified.reason}` }),
        );
      case 'response':
        handshake?.response(classified.message, inbound);
        return;
      case 'notification': {
        const n = classified.message;
        const modern = inbound.wire === 'modern' || (inbound.wire === undefined && claimsModern(n.method, n.params));
        if (!modern && handshake?.owns(inbound.channel)) return handshake.notification(n, inbound);
        // A channel that cancels by notification (stdio) holds its stateless requests in flight too.
        return handleModernNotification(this.services, n, inbound, this.inflightOf(inbound));
      }
      case 'request': {
        const request = classified.message;
        const wire = inbound.wire ?? (claimsModern(request.method, request.params) ? 'modern' : 'legacy');
        if (this.config.eras.modern && (handshake === undefined || wire === 'modern')) {
          // A handshake (an `initialize` without the stateless envelope) where that era is not served: say what is.
          if (handshake === undefined && request.method === 'initialize' && !claimsModern(request.method, request.params)) {
            return this.refuseHandshake(request, inbound);
          }
          return handleModernRequest(this.services, request, inbound, this.inflightOf(inbound));
        }
        if (handshake === undefined) return this.refuseHandshake(request, inbound);
        return handshake.request(request, inbound);
      }
    }
  }

  /** A handshake on a server that does not serve that era: -32022, naming the revisions it speaks (versioning.mdx). */
  private refuseHandshake(request: JsonRpcRequest, inbound: Inbound): void {
    const supported = [...this.services.supportedVersions];
    inbound.send(
      errorResponse(request.id, {
        code: ErrorCode.UnsupportedProtocolVersion,
        message: `This server speaks only ${supported.join(', ')}, which have no initialize handshake: send server/discover, or the request itself with its _meta`,
        data: { supported, requested: request.params?.protocolVersion ?? null },
      }),
    );
  }

  /**
   * A message nested deeper than `maxJsonDepth`: refused before anything walks it (validators,
   * canonical JSON and error messages recurse). A request gets -32600 with its id (JSON-RPC 2.0
   * §5.1: valid JSON, not a valid Request for this server); an answer to one of a session's own
   * requests fails that request now rather than at its timeout; a notification is dropped.
   */
  private refuseDeep(payload: unknown, maxDepth: number, inbound: Inbound): void {
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
    if (id !== null && ('result' in payload || 'error' in payload)) this.handshake?.response(errorResponse(id, error), inbound);
    else inbound.send(errorResponse(null, error));
  }

  /**
   * JSON-RPC batches exist only in 2025-03-26 (its changelog; removed in 2025-06-18);
   * initialize is never batched. A batch is that revision's framing, so its items are
   * dispatched on the legacy wire, on every transport: a 2026-07-28 method in one is unknown
   * there, as it is over HTTP, and a `subscriptions/listen` cannot hold the batch's other
   * answers back.
   */
  private async handleBatch(batch: unknown[], inbound: Inbound): Promise<void> {
    const allowed = batch.length > 0 && this.handshake?.batchAllowed(inbound) === true && !batch.some(isInitialize);
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

  /** Tells the handshake era's sessions and the listen streams of this instance. */
  private deliver(event: ServerEvent): void {
    this.handshake?.deliver(event);
    if (event.type === 'list_changed') this.hub.listChanged(event.kind);
    else if (event.type === 'topic') this.hub.topic(event.topic, event.notification);
    else this.hub.resourceUpdated(event.uri);
  }

  /** Sends a notification to one handshake-era session if its revision has that method; false when there is no such session. */
  notifySession(id: string, message: JsonRpcNotification): boolean {
    return this.handshake?.notifySession(id, message) ?? false;
  }

  endListeners(match: (inbound: Inbound) => boolean): void {
    this.hub.endWhere((l) => match(l.channel));
  }

  /** Ends this instance's channels and sessions; shared ones (cluster) it only lets go of: other instances serve them on. */
  close(): void {
    this.services.extensions.close();
    this.unsubscribe();
    this.hub.endAll();
    this.handshake?.close();
    for (const channel of [...this.channels]) channel.close();
  }
}

const NOTHING_TO_REMOVE = (): void => {};

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
  constructor(private readonly inbound: Inbound) {}
  get transport(): Inbound['transport'] {
    return this.inbound.transport;
  }
  get cancelsOnDrop(): boolean | undefined {
    return this.inbound.cancelsOnDrop;
  }
  get signal(): AbortSignal | undefined {
    return this.inbound.signal;
  }
  get channel(): Inbound['channel'] {
    return this.inbound.channel;
  }
  get principal(): Inbound['principal'] {
    return this.inbound.principal;
  }
  get auth(): Inbound['auth'] {
    return this.inbound.auth;
  }
  send(message: JsonRpcMessage): void {
    if ('method' in message || !this.inbound.sendBatch) this.inbound.send(message);
    else this.responses.push(message);
  }
  closeStream(): void {
    this.inbound.closeStream?.();
  }
}
