/**
 * The client: one API over both eras. `connect()` finds out which era the server speaks
 * (detect.ts) and from then on every call goes to that era's connection: plain JSON-RPC on
 * a legacy session (legacy/connection.ts); the `_meta` envelope, mirrored headers and the
 * input_required loop on the modern wire (modern/connection.ts). What is shared sits in
 * its own module: the wire (wire.ts), the verdict (known-server.ts), answering the server
 * (server-requests.ts), notifications (notifications.ts) and the response cache (cache.ts).
 */
import { JanusError } from '../protocol/errors.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import { revision } from '../protocol/revisions.js';
import type {
  CallToolResult,
  Completion,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  SubscriptionFilter,
  Tool,
} from '../protocol/types.js';
import type { Era, ProtocolVersion } from '../protocol/versions.js';
import { appOf, readApp, type AppLink, type AppResource } from './apps.js';
import { ResponseCache } from './cache.js';
import type { ClientChannel } from './channel.js';
import { NOT_CONNECTED, type ConnectionContext, type EraConnection } from './connection.js';
import { detectEra } from './detect.js';
import { KnownServer } from './known-server.js';
import { HANDSHAKE_CLIENT } from './eras.js';
import type { TaskReceiver } from './handshake-party.js';
import { ListenStream } from './listen-stream.js';
import { ClientMiddlewareStack, type ClientMethod, type ClientMethodMiddleware, type ClientMiddleware } from './middleware.js';
import { ModernConnection } from './modern/connection.js';
import { NotificationFanOut } from './notifications.js';
import type { ConnectOptions } from './options.js';
import type { CallOptions } from './peer.js';
import { answerServer } from './server-requests.js';
import {
  getSkill,
  listSkills,
  loadSkill,
  readDirectory,
  readSkillFile,
  type LoadedSkill,
  type SkillEntry,
  type SkillFileContent,
  type SkillsPeer,
} from './skills.js';
import { tasksSettings } from './tasks/settings.js';
import { ToolCalls, type ToolCallOptions } from './tasks/tool-calls.js';
import type { ToolTask } from './tasks/tool-task.js';
import { ClientWire } from './wire.js';
import { clientCapabilities } from './capabilities.js';
import { DEFAULT_MAX_INPUT_REQUESTS } from './limits.js';

const DEFAULT_INFO: Implementation = { name: 'janus-mcp-client', version: '0.1.0' };

/**
 * A connection to one MCP server, of any revision: one API over both eras. Made by {@link
 * connect}, which detects the era the server speaks; every call then follows that era's rules (a
 * session and plain JSON-RPC on the handshake era; the `_meta` envelope, mirrored headers and
 * `input_required` rounds on 2026-07-28).
 *
 * @example
 * ```ts
 * const client = await connect('http://127.0.0.1:3000/mcp');
 * const { tools } = await client.listTools();
 * const result = await client.callTool(tools[0].name, {});
 * await client.close();
 * ```
 */
export class Client {
  /** The client's name and version, as sent to the server. */
  readonly clientInfo: Implementation;
  /** What the era connections share: the wire, the verdict, the options, the cache. */
  private readonly context: ConnectionContext;
  private readonly notifications: NotificationFanOut;
  private readonly closer = new AbortController();
  /** The era's connection, once detection has chosen it. */
  private connection: EraConnection = NOT_CONNECTED;
  private connecting: Promise<this> | undefined;
  /** Tool calls, as tasks where the server makes them (tasks/tool-calls.ts). */
  private readonly tools: ToolCalls;
  /** 2025-11-25: the sampling/elicitation requests this client runs as tasks (the handshake era's receiver). */
  private readonly receiver: TaskReceiver | undefined;

  constructor(channel: ClientChannel, options: ConnectOptions = {}) {
    this.clientInfo = options.clientInfo ?? DEFAULT_INFO;
    const server = new KnownServer();
    const cache = options.cache ? new ResponseCache() : undefined;
    const closed = this.closer.signal;
    this.notifications = new NotificationFanOut(options, cache, (n) => this.connection.toStream(n));
    const wire: ClientWire = new ClientWire(
      channel,
      {
        onServerRequest: (req, signal) => this.answer(req.method, req.params ?? {}, signal),
        onNotification: (n) => this.notifications.deliver(n),
        // Modern HTTP cancels by closing the request's stream; everything else says so.
        cancelsByNotification: () => server.current?.era !== 'modern' || wire.kind !== 'http',
        onWarning: (message) => (options.onWarning ?? console.warn)(message),
      },
      options,
    );
    const tasks = tasksSettings(options);
    this.receiver = tasks.receive
      ? HANDSHAKE_CLIENT?.tasks.receiver({
          maxTtlMs: tasks.maxTtlMs,
          pollIntervalMs: tasks.pollIntervalMs,
          maxRunning: tasks.maxRunning,
          notify: (params) => wire.notify('notifications/tasks/status', params),
        })
      : undefined;
    this.tools = new ToolCalls({
      request: (method, params, o) => this.connection.request(method, params, o),
      answer: (method, params, signal) => answerServer(options, method, params, server.handlerContext(AbortSignal.any([signal, closed]))),
      onNotification: (listener) => this.notifications.add(listener),
      closed,
      defaultPollIntervalMs: tasks.pollIntervalMs,
      maxInputRequests: options.maxInputRequests ?? DEFAULT_MAX_INPUT_REQUESTS,
      era: () => this.era,
      serverCapabilities: () => this.serverCapabilities,
      listAllTools: () => this.listAllTools(),
      callAsTasks: tasks.call,
    });
    this.notifications.add((n) => {
      if (n.method === 'notifications/tools/list_changed') this.tools.forget();
    });
    const middleware = new ClientMiddlewareStack({ wire, server });
    for (const m of options.middleware ?? []) middleware.add(undefined, m);
    this.context = {
      options,
      clientInfo: this.clientInfo,
      wire,
      server,
      cache,
      closed,
      middleware,
      logLevel: options.logLevel,
      close: () => this.close(),
    };
  }

  /** Connects and detects the era. Idempotent: later calls return the same promise. */
  connect(): Promise<this> {
    this.connecting ??= (async () => {
      const { context } = this;
      await context.wire.start();
      // The modern connection is the probe too: server/discover is a modern request.
      const modern = new ModernConnection(context);
      const verdict = await detectEra(context, modern);
      // Detection chooses the handshake era only where the build has it (detect.ts).
      if (verdict.era === 'modern' || HANDSHAKE_CLIENT === undefined) {
        this.connection = modern;
      } else {
        const legacy = new HANDSHAKE_CLIENT.Connection(context);
        this.connection = legacy;
        await legacy.start();
      }
      return this;
    })();
    return this.connecting;
  }

  /** The era the server speaks, as detected (or chosen) on connecting. */
  get era(): Era {
    return this.context.server.known.era;
  }
  /** The revision in use with this server. */
  get protocolVersion(): ProtocolVersion {
    return this.context.server.known.version;
  }
  /** The server's name and version, as it introduced itself. */
  get serverInfo(): Implementation | undefined {
    return this.context.server.known.serverInfo;
  }
  /** What the server declared it offers. */
  get serverCapabilities(): ServerCapabilities {
    return this.context.server.known.capabilities;
  }
  /** The server's instructions (how to use it), if it gave any. */
  get instructions(): string | undefined {
    return this.context.server.known.instructions;
  }
  /** What carries the messages: `stdio`, `http`, or the kind a transport gives itself. */
  get transportKind(): ClientChannel['kind'] {
    return this.context.wire.kind;
  }

  /**
   * Adds a middleware around every request the client sends, or around one method's: each
   * call of this API (once per call, whatever the era does inside: input_required rounds, a
   * renewed session, a cached answer) and the requests `connect()` sends to detect the era
   * (add those with `ConnectOptions.middleware`, or with `use` before `connect()`). Not
   * around answers to the server's requests, nor notifications. Middleware run in the order
   * they were added, the first outermost; `next()` sends the request (`ctx.params` as they
   * are then) and resolves to the era's wire result:
   *
   * ```ts
   * client.use(async (ctx, next) => {
   *   ctx.params = { ...ctx.params, _meta: { ...ctx.params._meta, traceparent } };
   *   return next();
   * });
   * client.use('tools/call', async (ctx, next) => ((await next()).isError ? next() : undefined));
   * ```
   */
  use(middleware: ClientMiddleware): this;
  use<M extends ClientMethod>(method: M, middleware: ClientMethodMiddleware<M>): this;
  /** A middleware for a method the client does not name (an extension's method, sent with `request`). */
  use(method: string, middleware: ClientMiddleware): this;
  use(a: string | ClientMiddleware, b?: ClientMiddleware | ClientMethodMiddleware<ClientMethod>): this {
    if (typeof a === 'function') this.context.middleware.add(undefined, a);
    else if (typeof a === 'string' && a) this.context.middleware.add(a, b as ClientMiddleware);
    else throw new TypeError('client.use(middleware) or client.use(method, middleware)');
    return this;
  }

  /**
   * Calls `listener` once the connection ends: a stdio server that exits or closes its stdout, a
   * message transport that closes, with the reason (a `ProcessChannelError` names the exit code
   * and the last lines of stderr); `close()`, without one. Returns a function that removes it.
   * Over HTTP each request has its own connection: a server that goes away shows in the
   * requests that fail, not here.
   */
  onClose(listener: (error?: Error) => void): () => void {
    return this.context.wire.onClose((error) => listener(this.closer.signal.aborted ? undefined : error));
  }

  /** Registers a listener for every server notification; returns a function that removes it. */
  onNotification(listener: (n: JsonRpcNotification) => void): () => void {
    return this.notifications.add(listener);
  }

  /** Sends any request the way the era in use requires and returns its (final) result. */
  request(method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.connection.request(method, params, options);
  }

  // ---- tools ----

  /** One page of tools. On the modern HTTP wire, tools with invalid `x-mcp-header` annotations are dropped (tools.mdx §x-mcp-header). */
  async listTools(params: { cursor?: string } = {}): Promise<{ tools: Tool[]; nextCursor?: string }> {
    const page = await this.connection.listTools(params);
    this.tools.learn(page.tools);
    return page;
  }

  /** Every tool, following cursors. */
  listAllTools(): Promise<Tool[]> {
    return everyPage((cursor) =>
      this.listTools(cursor === undefined ? {} : { cursor }).then((r) => ({ items: r.tools, nextCursor: r.nextCursor })),
    );
  }

  /**
   * Calls a tool and resolves with its result. When the server runs the call as a task, the
   * task is followed to its end (polled at its interval, its questions answered by
   * onElicit/onSample/onRoots, `signal` cancelling it with tasks/cancel): see `startTool`.
   */
  callTool(name: string, args: Record<string, unknown> = {}, options: ToolCallOptions = {}): Promise<CallToolResult> {
    return this.tools.call(name, args, options);
  }

  /**
   * Calls a tool as a task where the server allows it, and resolves once the server has
   * answered the call: with a `ToolTask` to watch, poll, cancel or await (`result()`). A call
   * the server answers at once gives a settled `ToolTask` without `taskId`.
   */
  startTool(name: string, args: Record<string, unknown> = {}, options: ToolCallOptions = {}): Promise<ToolTask> {
    return this.tools.start(name, args, options, 'start');
  }

  /** A `ToolTask` for a task started earlier (its id kept across a restart), after one tasks/get. */
  resumeTool(taskId: string, options: Omit<ToolCallOptions, 'task' | 'ttlMs'> = {}): Promise<ToolTask> {
    return this.tools.resume(taskId, options);
  }

  // ---- prompts ----

  /** One page of prompts (`prompts/list`). */
  listPrompts(params: { cursor?: string } = {}): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    return this.connection.request('prompts/list', params);
  }

  /** A prompt's messages with `args` filled in (`prompts/get`). */
  getPrompt(name: string, args: Record<string, string> = {}, options: CallOptions = {}): Promise<GetPromptResult> {
    return this.connection.request('prompts/get', { name, arguments: args }, options);
  }

  // ---- resources ----

  /** One page of resources (`resources/list`). */
  listResources(params: { cursor?: string } = {}): Promise<{ resources: Resource[]; nextCursor?: string }> {
    return this.connection.request('resources/list', params);
  }

  /** One page of resource templates (`resources/templates/list`). */
  listResourceTemplates(params: { cursor?: string } = {}): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }> {
    return this.connection.request('resources/templates/list', params);
  }

  /** Reads a resource's contents (`resources/read`). */
  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.connection.request('resources/read', { uri }, options);
  }

  // ---- Skills (skills.ts, SEP-2640) ----

  /** Every skill the server lists (`skills/list`, all pages); reads no skill file. JanusError 'PROTOCOL' if the server lacks the extension. */
  listSkills(): Promise<SkillEntry[]> {
    return listSkills(this.skillsPeer());
  }

  /** The current entry of one skill by its SKILL.md URI (`skills/get`), listed or not. */
  getSkill(uri: string): Promise<SkillEntry> {
    return getSkill(this.skillsPeer(), uri);
  }

  /**
   * Loads a skill: reads its SKILL.md now and verifies it against the entry (size, digest,
   * frontmatter); a mismatch throws `SkillVerificationError` and no content is returned.
   * Given a URI, the entry comes from `skills/get`.
   */
  loadSkill(skill: string | SkillEntry): Promise<LoadedSkill> {
    return loadSkill(this.skillsPeer(), skill);
  }

  /** Reads a file of a skill by its path relative to the skill root, only if its entry lists it, verified. */
  readSkillFile(skill: SkillEntry, path: string): Promise<SkillFileContent> {
    return readSkillFile(this.skillsPeer(), skill, path);
  }

  /** The children of a directory resource (`resources/directory/read`, all pages); the server must declare `directoryRead`. */
  readDirectory(uri: string): Promise<Resource[]> {
    return readDirectory(this.skillsPeer(), uri);
  }

  private skillsPeer(): SkillsPeer {
    return {
      request: (method, params) => this.request(method, params),
      readResource: (uri) => this.readResource(uri),
      // With the era given up front the modern wire skips server/discover: ask for the capabilities then.
      capabilities: async () => {
        const known = this.serverCapabilities;
        if (this.era !== 'modern' || Object.keys(known).length > 0) return known;
        await this.discover();
        return this.serverCapabilities;
      },
    };
  }

  // ---- MCP Apps (apps.ts) ----

  /** The tool's UI link (`_meta.ui.resourceUri` and visibility), or undefined when it has none. */
  appOf(tool: Tool): AppLink | undefined {
    return appOf(tool);
  }

  /** Reads a tool's UI resource (HTML, csp, permissions, …); JanusError 'PROTOCOL' when the tool has none or it is not an MCP App. */
  readApp(tool: Tool | string, options: CallOptions = {}): Promise<AppResource> {
    return readApp(this, tool, options);
  }

  /**
   * Notifications for a filter, as an async iterable: modern `subscriptions/listen` (re-issued
   * if the stream drops), or on a legacy session `resources/subscribe` plus the session's
   * list_changed notifications. Ends when `signal` aborts or the client closes.
   */
  listen(filter: SubscriptionFilter, options: { signal?: AbortSignal } = {}): AsyncIterableIterator<JsonRpcNotification> {
    // Already aborted: an ended stream, connected or not.
    if (options.signal?.aborted) return new ListenStream(options.signal);
    return this.connection.listen(filter, options.signal);
  }

  // ---- utilities ----

  /**
   * Completion values for a prompt's or a resource template's argument (`completion/complete`);
   * `context` gives the arguments already chosen, where the revision has it (2025-06-18 and
   * later).
   */
  async complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
  ): Promise<Completion> {
    const params: Record<string, unknown> = { ref, argument };
    if (context && revision(this.protocolVersion).features.completionContext) params.context = { arguments: context };
    return (await this.connection.request('completion/complete', params)).completion;
  }

  /** Legacy: `logging/setLevel`. Modern: sent as `_meta` logLevel on every later request. */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    this.context.logLevel = level;
    await this.connection.setLogLevel(level);
  }

  /** `ping`, where the revision has it (2026-07-28 removed it). */
  async ping(options: CallOptions = {}): Promise<void> {
    if (!revision(this.protocolVersion).methods.clientRequests.has('ping'))
      throw new JanusError('PROTOCOL', `ping does not exist in ${this.protocolVersion}`);
    await this.connection.request('ping', {}, options);
  }

  /** `server/discover` (modern servers only). */
  async discover(): Promise<Record<string, unknown>> {
    const connection = this.connection;
    if (!revision(this.protocolVersion).methods.clientRequests.has('server/discover') || !(connection instanceof ModernConnection)) {
      throw new JanusError('PROTOCOL', `server/discover does not exist in ${this.protocolVersion}: it needs a modern-era server`);
    }
    return connection.discover();
  }

  /** Legacy: tells the server the roots changed. */
  async rootsChanged(): Promise<void> {
    await this.connection.rootsChanged();
  }

  /**
   * A request from the server. On a 2025-11-25 session where this client declared
   * `capabilities.tasks`, a sampling/elicitation request with `params.task` becomes a task
   * and tasks/* follow it (the handshake era's receiver); everything else goes to the handlers.
   */
  private answer(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<object> {
    const { options, server, closed } = this.context;
    const context = (s: AbortSignal) => server.handlerContext(AbortSignal.any([s, closed]));
    const verdict = server.current;
    const declared = this.receiver && verdict?.era === 'legacy' ? clientCapabilities(options, verdict.version).tasks : undefined;
    if (this.receiver && declared) {
      if (this.receiver.methods.has(method)) return this.receiver.serve(method, params, signal);
      const requests = (declared as { requests: Record<string, object> }).requests;
      const asTask =
        params.task !== undefined &&
        ((method === 'sampling/createMessage' && requests.sampling) || (method === 'elicitation/create' && requests.elicitation));
      if (asTask) return this.receiver.create(method, params.task, (s) => answerServer(options, method, params, context(s)));
    }
    return answerServer(options, method, params, context(signal));
  }

  /** Ends everything this client started: streams, the child process, timers. Idempotent. */
  async close(): Promise<void> {
    if (this.closer.signal.aborted) return;
    this.closer.abort(new JanusError('TRANSPORT_CLOSED', 'client closed'));
    this.receiver?.close();
    this.connection.endStreams();
    await this.context.wire.close();
  }
}

/** Follows `nextCursor` until the last page (a bound guards against a server that never stops). */
async function everyPage<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
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
