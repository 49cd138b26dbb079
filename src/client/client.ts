/**
 * The client: one API over both eras. `connect()` finds out which era the server speaks
 * (detect.ts), and every call then goes out the way that era requires: plain JSON-RPC on
 * a legacy session; the `_meta` envelope, mirrored headers and the input_required loop on
 * the modern wire.
 */
import { ErrorCode, JanusError, McpError } from '../protocol/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import type {
  CallToolResult, Completion, GetPromptResult, Implementation, LoggingLevel, Prompt, ReadResourceResult, Resource,
  ResourceTemplate, ServerCapabilities, SubscriptionFilter, Tool,
} from '../protocol/types.js';
import { revision } from '../protocol/revisions.js';
import { LATEST_LEGACY_VERSION, LATEST_VERSION, isModernVersion, type Era, type LegacyVersion, type ProtocolVersion } from '../protocol/versions.js';
import { readHeaderParams, type HeaderParam } from '../protocol/x-mcp-header.js';
import { ResponseCache } from './cache.js';
import { clientCapabilities } from './capabilities.js';
import type { ClientChannel } from './channel.js';
import { detectEra, fromDiscover, legacy, type Verdict } from './detect.js';
import { httpStatusOf } from './channels/http-common.js';
import { ChannelError } from './channel.js';
import { envelope, modernHeaders } from './modern.js';
import type { ConnectOptions, HandlerContext } from './options.js';
import { ClientPeer, DEFAULT_TIMEOUT_MS, unwrap, type CallOptions } from './peer.js';
import { answerServer } from './server-requests.js';
import { Subscriptions } from './subscriptions.js';

type Params = Record<string, unknown>;

const ASKING = new Set(['tools/call', 'prompts/get', 'resources/read']);
const DEFAULT_INFO: Implementation = { name: 'janus-mcp-client', version: '0.1.0' };

export class Client {
  private peer: ClientPeer;
  private verdict: Verdict | undefined;
  private connecting: Promise<this> | undefined;
  private readonly closer = new AbortController();
  private readonly toolHeaders = new Map<string, readonly HeaderParam[]>();
  private readonly listeners = new Set<(n: JsonRpcNotification) => void>();
  private readonly activity = new Set<() => void>();
  private readonly cache: ResponseCache | undefined;
  private readonly subscriptions: Subscriptions;
  private logLevel: LoggingLevel | undefined;
  /** Bumped when an expired legacy HTTP session is replaced. */
  private sessionGeneration = 0;
  private renewing: Promise<void> | undefined;
  readonly clientInfo: Implementation;

  constructor(private channel: ClientChannel, private readonly options: ConnectOptions = {}) {
    this.clientInfo = options.clientInfo ?? DEFAULT_INFO;
    this.logLevel = options.logLevel;
    this.cache = options.cache ? new ResponseCache() : undefined;
    this.peer = this.makePeer(channel);
    this.subscriptions = new Subscriptions(this);
  }

  private makePeer(channel: ClientChannel): ClientPeer {
    return new ClientPeer(channel, {
      onServerRequest: (req: JsonRpcRequest, signal: AbortSignal) =>
        answerServer(this.options, req.method, req.params ?? {}, this.handlerContext(AbortSignal.any([signal, this.closer.signal]))),
      onNotification: (n) => this.notified(n),
      // Modern HTTP cancels by closing the request's stream; everything else says so.
      cancelsByNotification: () => this.verdict?.era !== 'modern' || this.channel.kind !== 'http',
    }, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

  /** @internal Replaces the channel during era fallback (Streamable HTTP → HTTP+SSE). */
  async swapChannel(channel: ClientChannel): Promise<void> {
    await this.channel.close().catch(() => {});
    this.channel = channel;
    this.peer = this.makePeer(channel);
    await this.startChannel();
  }

  private async startChannel(): Promise<void> {
    await this.channel.start({
      onMessage: (m) => this.peer.receive(m),
      onClose: () => this.subscriptions.channelClosed(),
      onActivity: () => {
        for (const l of this.activity) l();
      },
    });
  }

  /** @internal Calls `listener` on every message from the server, responses included (message channels: stdio, in-memory); returns its remover. */
  onActivity(listener: () => void): () => void {
    this.activity.add(listener);
    return () => this.activity.delete(listener);
  }

  /** Connects and detects the era. Idempotent: later calls return the same promise. */
  connect(): Promise<this> {
    this.connecting ??= (async () => {
      await this.startChannel();
      this.verdict = await detectEra(this, this.options);
      if (this.verdict.era === 'legacy' && this.logLevel) await this.request('logging/setLevel', { level: this.logLevel });
      return this;
    })();
    return this.connecting;
  }

  private get known(): Verdict {
    if (!this.verdict) throw new JanusError('CONNECTION', 'not connected: await connect() first');
    return this.verdict;
  }

  get era(): Era { return this.known.era; }
  get protocolVersion(): ProtocolVersion { return this.known.version; }
  get serverInfo(): Implementation | undefined { return this.known.serverInfo; }
  get serverCapabilities(): ServerCapabilities { return this.known.capabilities; }
  get instructions(): string | undefined { return this.known.instructions; }
  get transportKind(): ClientChannel['kind'] { return this.channel.kind; }

  /** @internal */
  get rawPeer(): ClientPeer { return this.peer; }
  /** @internal */
  get rawChannel(): ClientChannel { return this.channel; }

  /** @internal The context given to onElicit/onSample/onRoots. */
  handlerContext(signal: AbortSignal): HandlerContext {
    return { era: this.verdict?.era ?? 'legacy', protocolVersion: this.verdict?.version ?? LATEST_LEGACY_VERSION, signal };
  }

  /** Registers a listener for every server notification; returns a function that removes it. */
  onNotification(listener: (n: JsonRpcNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notified(n: JsonRpcNotification): void {
    this.cache?.invalidate(n);
    if (this.subscriptions.route(n)) return;
    this.options.onNotification?.(n);
    for (const l of this.listeners) l(n);
  }

  /** Sends any request the way the era in use requires and returns its (final) result. */
  async request(method: string, params: Params = {}, options: CallOptions = {}): Promise<Params> {
    const v = this.known;
    if (v.era === 'legacy') {
      const generation = this.sessionGeneration;
      try {
        return unwrap(await this.peer.call(method, params, options));
      } catch (e) {
        // Streamable HTTP: 404 for our session id means it expired; start a new one and retry once.
        if (!(e instanceof ChannelError && e.status === 404 && this.channel.kind === 'http')) throw e;
        await this.renewSession(generation);
        return unwrap(await this.peer.call(method, params, options));
      }
    }
    const cached = this.cache?.get(method, params);
    if (cached) return cached;
    const result = await this.modernRequest(method, params, options);
    this.cache?.put(method, params, result);
    return result;
  }

  /**
   * One new session for every call that found the old one gone (calls racing on the same
   * expiry share it), set up as `connect()` set up the first: log level, resource subscriptions.
   */
  private renewSession(generation: number): Promise<void> {
    if (generation !== this.sessionGeneration) return Promise.resolve(); // already renewed
    this.renewing ??= (async () => {
      try {
        await legacy(this, this.known.version as LegacyVersion);
        this.sessionGeneration++;
        if (this.logLevel) unwrap(await this.peer.call('logging/setLevel', { level: this.logLevel }));
        await this.subscriptions.resubscribe();
      } finally {
        this.renewing = undefined;
      }
    })();
    return this.renewing;
  }

  /** @internal A modern request with the envelope, headers and the input_required loop. */
  async modernRequest(method: string, params: Params, options: CallOptions = {}, version: string = this.verdict?.version ?? LATEST_VERSION, id?: number): Promise<Params> {
    let caps = clientCapabilities(this.options, version as ProtocolVersion);
    const http = this.channel.kind === 'http';
    const maxRounds = this.options.maxInputRounds ?? 10;
    let retriedHeaders = false;
    let retriedVersion = false;
    let current = params;
    for (let round = 0; ; round++) {
      const body = envelope(current, version, caps, this.clientInfo, this.logLevel);
      const headers = http ? modernHeaders(method, current, version, this.toolHeaders.get(String(current.name))) : undefined;
      const response = await this.peer.call(method, body, options, { headers }, round === 0 ? id : undefined);
      if ('error' in response) {
        // streamable-http.mdx §Custom Headers: on -32020 re-fetch tools/list (the annotations may have changed) and retry once.
        if (response.error.code === ErrorCode.HeaderMismatch && method === 'tools/call' && http && !retriedHeaders) {
          retriedHeaders = true;
          await this.listTools().catch(() => {});
          round--;
          continue;
        }
        // versioning.mdx: a client may skip discover and handle -32022 inline, retrying with a mutual version.
        if (response.error.code === ErrorCode.UnsupportedProtocolVersion && !retriedVersion) {
          const supported = (response.error.data as { supported?: unknown } | undefined)?.supported;
          const mutual = Array.isArray(supported) ? supported.find((s) => isModernVersion(s)) : undefined;
          if (mutual) {
            retriedVersion = true;
            version = mutual;
            if (this.verdict?.era === 'modern') this.verdict = { ...this.verdict, version: mutual };
            round--;
            continue;
          }
        }
        throw withStatus(McpError.from(response.error), httpStatusOf(response));
      }
      const result = response.result;
      this.learnServerInfo(result);
      const type = result.resultType;
      if (type === undefined || type === 'complete') return result;
      if (type !== 'input_required' || !ASKING.has(method)) {
        throw new JanusError('PROTOCOL', `${method}: unrecognized resultType ${JSON.stringify(type)}`);
      }
      if (round + 1 >= maxRounds) throw new JanusError('PROTOCOL', `${method}: still input_required after ${maxRounds} rounds`);
      // mrtr.mdx §Client retry: the original params, this round's answers only, the state echoed byte for byte.
      const next: Params = { ...params };
      const requests = (result.inputRequests ?? {}) as Record<string, { method: string; params?: Params }>;
      const keys = Object.keys(requests);
      if (keys.length) {
        const ctx = this.handlerContext(options.signal ?? this.closer.signal);
        const answers = await Promise.all(keys.map((k) => answerServer(this.options, requests[k]!.method, requests[k]!.params ?? {}, ctx)));
        next.inputResponses = Object.fromEntries(keys.map((k, i) => [k, answers[i]]));
      }
      if (typeof result.requestState === 'string') next.requestState = result.requestState;
      current = next;
    }
  }

  /** Every modern result names the server in `_meta`; a pinned client learns it from there. */
  private learnServerInfo(result: Params): void {
    const v = this.verdict;
    if (!v || v.era !== 'modern' || v.serverInfo) return;
    const info = (result._meta as Params | undefined)?.[META.serverInfo];
    if (info && typeof info === 'object') this.verdict = { ...v, serverInfo: info as Implementation };
  }

  // ---- tools ----

  /** One page of tools. On the modern HTTP wire, tools with invalid `x-mcp-header` annotations are dropped (tools.mdx §x-mcp-header). */
  async listTools(params: { cursor?: string } = {}): Promise<{ tools: Tool[]; nextCursor?: string }> {
    const result = await this.request('tools/list', params);
    const tools: Tool[] = [];
    for (const tool of (result.tools ?? []) as Tool[]) {
      const headers = readHeaderParams(tool.inputSchema);
      if (!headers.ok) {
        if (this.era === 'modern' && this.channel.kind === 'http') {
          (this.options.onWarning ?? console.warn)(`dropping tool ${tool.name}: ${headers.reason}`);
          continue;
        }
      } else {
        this.toolHeaders.set(tool.name, headers.params);
      }
      tools.push(tool);
    }
    return result.nextCursor === undefined ? { tools } : { tools, nextCursor: String(result.nextCursor) };
  }

  /** Every tool, following cursors. */
  async listAllTools(): Promise<Tool[]> {
    return this.all((cursor) => this.listTools(cursor === undefined ? {} : { cursor }).then((r) => ({ items: r.tools, nextCursor: r.nextCursor })));
  }

  callTool(name: string, args: Params = {}, options: CallOptions = {}): Promise<CallToolResult> {
    return this.request('tools/call', { name, arguments: args }, options) as Promise<unknown> as Promise<CallToolResult>;
  }

  // ---- prompts ----

  async listPrompts(params: { cursor?: string } = {}): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    return (await this.request('prompts/list', params)) as unknown as { prompts: Prompt[]; nextCursor?: string };
  }

  getPrompt(name: string, args: Record<string, string> = {}, options: CallOptions = {}): Promise<GetPromptResult> {
    return this.request('prompts/get', { name, arguments: args }, options) as Promise<unknown> as Promise<GetPromptResult>;
  }

  // ---- resources ----

  async listResources(params: { cursor?: string } = {}): Promise<{ resources: Resource[]; nextCursor?: string }> {
    return (await this.request('resources/list', params)) as unknown as { resources: Resource[]; nextCursor?: string };
  }

  async listResourceTemplates(params: { cursor?: string } = {}): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }> {
    return (await this.request('resources/templates/list', params)) as unknown as { resourceTemplates: ResourceTemplate[]; nextCursor?: string };
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.request('resources/read', { uri }, options) as Promise<unknown> as Promise<ReadResourceResult>;
  }

  /**
   * Notifications for a filter, as an async iterable: modern `subscriptions/listen` (re-issued
   * if the stream drops), or on a legacy session `resources/subscribe` plus the session's
   * list_changed notifications. Ends when `signal` aborts or the client closes.
   */
  listen(filter: SubscriptionFilter, options: { signal?: AbortSignal } = {}): AsyncIterableIterator<JsonRpcNotification> {
    return this.subscriptions.open(filter, options.signal);
  }

  // ---- utilities ----

  async complete(ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, argument: { name: string; value: string }, context?: Record<string, string>): Promise<Completion> {
    const params: Params = { ref, argument };
    if (context && revision(this.protocolVersion).features.completionContext) params.context = { arguments: context };
    return (await this.request('completion/complete', params)).completion as Completion;
  }

  /** Legacy: `logging/setLevel`. Modern: sent as `_meta` logLevel on every later request. */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    this.logLevel = level;
    if (this.era === 'legacy') await this.request('logging/setLevel', { level });
  }

  /** `ping`, where the revision has it (2026-07-28 removed it). */
  async ping(options: CallOptions = {}): Promise<void> {
    if (!revision(this.protocolVersion).methods.clientRequests.has('ping')) throw new JanusError('PROTOCOL', `ping does not exist in ${this.protocolVersion}`);
    await this.request('ping', {}, options);
  }

  /** `server/discover` (modern servers only). */
  async discover(): Promise<Params> {
    if (!revision(this.protocolVersion).methods.clientRequests.has('server/discover')) {
      throw new JanusError('PROTOCOL', `server/discover does not exist in ${this.protocolVersion}: it needs a modern-era server`);
    }
    const result = await this.modernRequest('server/discover', {});
    fromDiscover(this, this.protocolVersion, result);
    return result;
  }

  /** Legacy: tells the server the roots changed. */
  async rootsChanged(): Promise<void> {
    if (this.era === 'legacy') await this.peer.notify('notifications/roots/list_changed');
  }

  /** Ends everything this client started: streams, the child process, timers. Idempotent. */
  async close(): Promise<void> {
    if (this.closer.signal.aborted) return;
    this.closer.abort(new JanusError('TRANSPORT_CLOSED', 'client closed'));
    this.subscriptions.closeAll();
    await this.channel.close();
  }

  private async all<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10_000; i++) {
      const r = await page(cursor);
      out.push(...r.items);
      if (!r.nextCursor) return out;
      cursor = r.nextCursor;
    }
    throw new JanusError('PROTOCOL', 'too many pages');
  }

  /** @internal */
  setVerdict(v: Verdict): void {
    this.verdict = v;
  }

  /** @internal */
  get settings(): ConnectOptions {
    return this.options;
  }
}

/** Keeps the HTTP status a JSON-RPC error arrived with (era detection reads it). */
function withStatus(e: McpError, status: number | undefined): McpError {
  if (status !== undefined) (e as McpError & { httpStatus?: number }).httpStatus = status;
  return e;
}
