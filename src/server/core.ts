/**
 * The server core: decides the era of each inbound message and hands it to that era's
 * dispatcher. Modern (`_meta` protocol version, or a modern-only method) is served
 * statelessly; everything else belongs to the legacy session of its channel.
 */
import { ErrorCode } from '../protocol/errors.js';
import { classify, errorResponse, type JsonRpcMessage, type JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import { revision, revisionsWith } from '../protocol/revisions.js';
import { MODERN_VERSIONS, type ProtocolVersion } from '../protocol/versions.js';
import type { Backplane, ServerEvent } from './backplane.js';
import type { Abortable } from './cancel.js';
import { META } from '../protocol/meta.js';
import type { HeaderParam, ServerCore } from './core-api.js';
import type { CacheHint } from './features/resources.js';
import type { Operations } from './features/operations.js';
import type { Inbound, LegacySession, SessionHost } from './inbound.js';
import type { Internals } from './internals.js';
import { handleLegacyNotification, handleLegacyRequest } from './legacy/dispatch.js';
import { Session } from './legacy/session.js';
import { claimsModern } from './modern/envelope.js';
import { handleModernRequest, type ModernDeps } from './modern/dispatch.js';
import { ListenHub } from './modern/listen.js';
import type { RequestStateCodec } from './modern/request-state.js';
import type { Registry } from './registry.js';
import { pick } from './shape.js';

export interface CoreConfig {
  info: Implementation;
  instructions: string | undefined;
  registry: Registry;
  ops: Operations;
  codec: RequestStateCodec;
  backplane: Backplane;
  eras: { legacy: boolean; modern: boolean };
  extraCapabilities: ServerCapabilities | undefined;
  cache: Record<string, CacheHint>;
  onError: (error: unknown) => void;
}

const DEFAULT_CACHE: CacheHint = { ttlMs: 0, scope: 'private' };
const BATCHES_REFUSED = `Invalid Request: JSON-RPC batches are only allowed on protocol ${revisionsWith((r) => r.transport.batches).join(', ')}`;

export class Core implements ServerCore, ModernDeps, Internals {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly registry: Registry;
  readonly ops: Operations;
  readonly codec: RequestStateCodec;
  readonly hub = new ListenHub();
  readonly infoMeta: Record<string, unknown>;
  readonly sessions = new Map<string, Session>();
  private readonly capsCache = new Map<string, ServerCapabilities>();
  private capsVersion = -1;
  private readonly unsubscribe: () => void;

  constructor(private readonly config: CoreConfig) {
    this.info = config.info;
    this.infoMeta = Object.freeze({ [META.serverInfo]: config.info });
    this.instructions = config.instructions;
    this.registry = config.registry;
    this.ops = config.ops;
    this.codec = config.codec;
    this.unsubscribe = config.backplane.subscribe((e) => this.deliver(e));
  }

  get name(): string {
    return this.info.name;
  }

  reportError(error: unknown): void {
    this.config.onError(error);
  }

  cacheHint(method: string): CacheHint {
    return this.config.cache[method] ?? DEFAULT_CACHE;
  }

  capabilities(v: ProtocolVersion): ServerCapabilities {
    if (this.capsVersion !== this.registry.version) {
      this.capsCache.clear();
      this.capsVersion = this.registry.version;
    }
    let caps = this.capsCache.get(v);
    if (!caps) this.capsCache.set(v, (caps = this.buildCapabilities(v)));
    return caps;
  }

  private buildCapabilities(v: ProtocolVersion): ServerCapabilities {
    const r = this.registry;
    const extra = this.config.extraCapabilities ?? {};
    const caps: ServerCapabilities = {};
    if (r.tools.size || extra.tools) caps.tools = { listChanged: true, ...extra.tools };
    if (r.prompts.size || extra.prompts) caps.prompts = { listChanged: true, ...extra.prompts };
    if (r.resources.size || r.templates.size || extra.resources) caps.resources = { subscribe: true, listChanged: true, ...extra.resources };
    caps.logging = {};
    if (r.prompts.size || r.templates.size || extra.completions) caps.completions = {};
    if (extra.experimental) caps.experimental = extra.experimental;
    if (extra.extensions) caps.extensions = extra.extensions;
    return pick('ServerCapabilities', v, caps) as ServerCapabilities;
  }

  toolHeaderParams(name: string): readonly HeaderParam[] | undefined {
    return this.registry.tools.get(name)?.headerParams;
  }

  inflightFor(inbound: Inbound): Map<string | number, Abortable> | undefined {
    return (inbound.session as Session | undefined)?.inflight;
  }

  openSession(host: SessionHost): LegacySession {
    const session = new Session(host, (s) => this.sessions.delete(s.id));
    this.sessions.set(session.id, session);
    return session;
  }

  async handle(payload: unknown, inbound: Inbound): Promise<void> {
    try {
      if (Array.isArray(payload)) return await this.handleBatch(payload, inbound);
      await this.handleOne(payload, inbound);
    } catch (e) {
      // Handlers answer their own errors; anything here is a bug, never a crash.
      this.reportError(e);
    }
  }

  private async handleOne(payload: unknown, inbound: Inbound): Promise<void> {
    const c = classify(payload);
    const session = inbound.session as Session | undefined;
    switch (c.kind) {
      case 'invalid':
        return inbound.send(errorResponse(c.id, { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${c.reason}` }));
      case 'response':
        session?.settle(c.message);
        return;
      case 'notification':
        if (session) handleLegacyNotification(session, c.message);
        return;
      case 'request': {
        const req = c.message;
        const { legacy, modern } = this.config.eras;
        const wire = inbound.wire ?? (claimsModern(req.method, req.params) ? 'modern' : 'legacy');
        if (modern && (!legacy || wire === 'modern')) {
          if (!legacy && req.method === 'initialize') {
            return inbound.send(errorResponse(req.id, {
              code: ErrorCode.UnsupportedProtocolVersion,
              message: 'This server speaks only the stateless revision; use server/discover',
              data: { supported: [...MODERN_VERSIONS].reverse(), requested: req.params?.protocolVersion ?? null },
            }));
          }
          return handleModernRequest(this, req, inbound);
        }
        if (!session) {
          return inbound.send(errorResponse(req.id, { code: ErrorCode.InvalidRequest, message: 'No session: send initialize first' }));
        }
        return handleLegacyRequest(this, session, req, inbound);
      }
    }
  }

  /** JSON-RPC batches exist only in 2025-03-26 (README §2.1); initialize is never batched. */
  private async handleBatch(batch: unknown[], inbound: Inbound): Promise<void> {
    const session = inbound.session as Session | undefined;
    const v = session?.protocolVersion;
    const allowed =
      batch.length > 0 && v !== undefined && revision(v).transport.batches &&
      !batch.some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');
    if (!allowed) {
      return inbound.send(errorResponse(null, { code: ErrorCode.InvalidRequest, message: BATCHES_REFUSED }));
    }
    if (!inbound.sendBatch) {
      await Promise.all(batch.map((m) => this.handleOne(m, inbound)));
      return;
    }
    // Collect the batch's responses into one array; its notifications (progress, logs) still go out as they happen.
    const responses: JsonRpcMessage[] = [];
    const collecting: Inbound = Object.create(inbound, {
      send: { value: (m: JsonRpcMessage) => ('method' in m ? inbound.send(m) : responses.push(m)) },
    }) as Inbound;
    await Promise.all(batch.map((m) => this.handleOne(m, collecting)));
    if (responses.length) inbound.sendBatch(responses);
  }

  publish(event: ServerEvent): void {
    this.config.backplane.publish(event);
  }

  /** Tells every open legacy session and listen stream of this instance. */
  private deliver(event: ServerEvent): void {
    if (event.type === 'list_changed') {
      const method = `notifications/${event.kind}/list_changed`;
      for (const s of this.sessions.values()) {
        if (s.initialized) send(s, { jsonrpc: '2.0', method });
      }
      this.hub.listChanged(event.kind);
    } else {
      for (const s of this.sessions.values()) {
        if (s.initialized && s.subscriptions?.has(event.uri)) {
          send(s, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: event.uri } });
        }
      }
      this.hub.resourceUpdated(event.uri);
    }
  }

  /** Sends a notification to one session if its revision has that method; false when there is no such session. */
  notifySession(id: string, message: JsonRpcNotification): boolean {
    const s = this.sessions.get(id);
    if (!s?.initialized || !revision(s.protocolVersion!).methods.serverNotifications.has(message.method)) return false;
    send(s, message);
    return true;
  }

  endListeners(match: (inbound: Inbound) => boolean): void {
    this.hub.endWhere((l) => match(l.channel));
  }

  close(): void {
    this.unsubscribe();
    this.hub.endAll();
    for (const s of [...this.sessions.values()]) s.close();
  }
}

function send(s: Session, m: JsonRpcMessage): void {
  try {
    s.host.send(m);
  } catch {
    // A host that cannot deliver drops the message; the session's transport reports its own failure.
  }
}
