/**
 * `createServer`: one definition of tools, prompts, resources and completions that serves
 * every revision. The registry is built once; transports drive the core.
 */
import { JanusError } from '../protocol/errors.js';
import type { Icon, Implementation, ServerCapabilities, Tool } from '../protocol/types.js';
import type { Transport } from '../transports/transport.js';
import { LocalBackplane, type Backplane } from './backplane.js';
import type { Cluster } from './cluster.js';
import { connectTransport, type Connection } from './connect.js';
import { Core } from './core.js';
import { jsonProblem } from './features/json-value.js';
import { Operations } from './features/operations.js';
import { definePrompt, type AnyPromptHandler, type PromptArguments, type PromptConfig, type PromptHandler } from './features/prompts.js';
import {
  defineResource,
  defineTemplate,
  type CacheHint,
  type ResourceConfig,
  type ResourceReader,
  type TemplateConfig,
  type TemplateReader,
} from './features/resources.js';
import { defineTool, type AnyToolHandler, type ToolConfig, type ToolHandler } from './features/tools.js';
import { RequestStateCodec, type RequestStateOptions } from './modern/request-state.js';
import { resolveLimits, type ServerLimits } from './limits.js';
import { errorReporter, warningReporter, type Logger } from './logger.js';
import { MiddlewareStack, type MethodMiddleware, type Middleware, type ServerMethod } from './middleware.js';
import { Registry, type EntryKind, type Entries, type ListKind } from './registry.js';
import type { SchemaInput } from './schema/types.js';
import type { CacheableMethod, ServerConfig } from './services.js';
import type { SessionHandle } from './context.js';
import type { SessionHooks, SessionOptions } from './session-hooks.js';
import type { ServerCore } from './transport-seam.js';
import { Extensions, type ExtensionServer, type Registration, type ServerExtension } from './extension.js';

/**
 * What {@link createServer} takes: the server's identity (`name`, `version`, and how to present
 * it) and how it serves (eras, limits, extensions, cluster, logging). Only `name` and `version`
 * are required.
 */
export interface ServerOptions {
  /** The server's name, as clients see it in `serverInfo` (a program name, not a display title). */
  name: string;
  /** The server's version, as clients see it in `serverInfo`. */
  version: string;
  /** A human-readable name for display (2025-06-18 and later). */
  title?: string;
  /** What the server is for, for display (2025-11-25 and later). */
  description?: string;
  /** The server's website, for display (2025-11-25 and later). */
  websiteUrl?: string;
  /** Icons for display (2025-11-25 and later). */
  icons?: Icon[];
  /** Sent in `initialize` and `server/discover`: how to use this server. */
  instructions?: string;
  /** Which eras to serve (default both). */
  eras?: { legacy?: boolean; modern?: boolean };
  /** Page size for list results (default: everything on one page). */
  pageSize?: number;
  /** Signing keys and lifetime of MRTR `requestState`. Give secrets when several instances serve one endpoint. */
  requestState?: RequestStateOptions;
  /** 2026-07-28 cache hints per method (default `{ ttlMs: 0, scope: 'private' }`). */
  cache?: Partial<Record<CacheableMethod, CacheHint>>;
  /** Capabilities to declare beyond what the registry implies (e.g. `tools` before any tool exists, `experimental`, `extensions`). */
  capabilities?: ServerCapabilities;
  /** Shares registry changes and resource updates across instances (default: this process only). */
  backplane?: Backplane;
  /**
   * Shared state for several instances behind one endpoint (`redisCluster` from
   * `janus-mcp/redis`): its backplane and `requestState` secrets and store, unless
   * `backplane` or `requestState` say otherwise.
   */
  cluster?: Cluster;
  /**
   * Extensions to add, in order (`tasks()` from `janus-mcp/tasks`, `skills()` from
   * `janus-mcp/skills`, `apps()` from `janus-mcp/apps`, your own `ServerExtension`): before
   * any tool, so that a tool may carry settings for one (`ToolConfig.extensions`). More can
   * come later with `server.extend`.
   */
  extensions?: readonly ServerExtension[];
  /** The server's limits, each with its default (JSON depth, requests in flight, listen streams, MRTR rounds, …). */
  limits?: ServerLimits;
  /**
   * Hooks for the handshake era's sessions (initialized, roots changed, closed), and the
   * server's own pings, off by default: `{ ping: { intervalMs: 30_000 } }` ends a session whose
   * client stops answering. More hooks: `server.onSession`.
   */
  sessions?: SessionOptions;
  /**
   * Where failures are reported in full, with their stack: handler errors masked on the wire
   * (a tool's unexpected error, any -32603), and failures with no peer to tell (transport
   * errors). Client mistakes are not reported. Default: the `logger`'s `error` when there is
   * one, else stderr.
   */
  onError?: (error: unknown) => void;
  /**
   * Where the server's own reports go: failures (as `logger.error`, with the error's message,
   * name, code and stack as fields) unless `onError` is given, and configuration warnings of
   * its transports (as `logger.warn`; HTTP's `onWarning` takes precedence). Default: stderr.
   * Requests are logged by the `logRequests` middleware, not here. See `consoleLogger`.
   */
  logger?: Logger;
}

export type { Registration };

const CORE = Symbol('janus.core');

export class Server implements ExtensionServer {
  private readonly registry = new Registry();
  private readonly middleware = new MiddlewareStack();
  private readonly extensions: Extensions;
  private readonly [CORE]: Core;
  private closed = false;

  constructor(options: ServerOptions) {
    if (!options?.name || !options.version) throw new JanusError('REGISTRATION', 'createServer needs { name, version }');
    const info: Implementation = { name: options.name, version: options.version };
    if (options.title !== undefined) info.title = options.title;
    if (options.description !== undefined) info.description = options.description;
    if (options.websiteUrl !== undefined) info.websiteUrl = options.websiteUrl;
    if (options.icons !== undefined) info.icons = options.icons;
    const problem = jsonProblem(info) ?? (options.instructions === undefined ? undefined : jsonProblem(options.instructions));
    if (problem) throw new JanusError('REGISTRATION', `createServer: the server's info cannot be sent: ${problem}`);
    const stores = options.cluster?.stores;
    const extensions = (this.extensions = new Extensions({
      publish: (topic, notification) => this[CORE].publish({ type: 'topic', topic, notification }),
      reportError: (e) => config.onError(e),
      server: this,
      store: (key) => stores?.get(key),
      onSession: (hooks) => this.onSession(hooks),
      callTool: async (params, ctx) => config.ops.plainCall(params, ctx),
    }));

    const config: ServerConfig = {
      info,
      instructions: options.instructions,
      registry: this.registry,
      // The features report a handler's unexpected failure where the core does (read at each report).
      ops: new Operations(this.registry, {
        pageSize: options.pageSize,
        reportError: (e) => config.onError(e),
        toolCall: extensions,
      }),
      codec: new RequestStateCodec(requestStateOptions(options)),
      backplane: options.backplane ?? options.cluster?.backplane ?? new LocalBackplane(),
      eras: { legacy: options.eras?.legacy ?? true, modern: options.eras?.modern ?? true },
      extraCapabilities: options.capabilities,
      cache: options.cache ?? {},
      limits: resolveLimits(options.limits),
      middleware: this.middleware,
      extensions,
      sessions: options.sessions,
      stores,
      onError: options.onError ?? (options.logger ? errorReporter(options.logger) : (e) => console.error('[janus-mcp]', e)),
      warn: options.logger ? warningReporter(options.logger) : (m) => console.warn(`[janus-mcp] ${m}`),
    };
    this[CORE] = new Core(config);
    this.registry.onChange = (kind) => this[CORE].publish({ type: 'list_changed', kind });
    for (const extension of options.extensions ?? []) this.extend(extension);
  }

  /**
   * Adds an entry and returns its handle: `update` rebuilds it from the merged config
   * (validating again) and `remove` drops it; each change tells connected clients.
   */
  private register<K extends EntryKind>(
    kind: K,
    key: string,
    define: (config: Entries[K]['config']) => Entries[K],
    config: Entries[K]['config'],
  ): Registration<Entries[K]['config']> {
    let current = define(config);
    this.registry.add(kind, key, current);
    return {
      update: (patch) => {
        current = define({ ...current.config, ...patch });
        this.registry.replace(kind, key, current);
      },
      remove: () => void this.registry.remove(kind, key),
    };
  }

  /**
   * Registers a tool. The handler gets the validated arguments, typed from `input`, and the
   * request context; with a Standard Schema `output` its return value is typed too:
   *
   * ```ts
   * server.tool('add', {
   *   input: z.object({ a: z.number(), b: z.number() }),
   *   output: z.object({ sum: z.number() }),
   * }, ({ a, b }) => ({ sum: a + b }));
   * ```
   */
  tool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<I, O>,
    handler: ToolHandler<I, O>,
  ): Registration<ToolConfig<I, O>>;
  /** Registers a tool without arguments. */
  tool(name: string, handler: ToolHandler): Registration<ToolConfig<undefined, undefined>>;
  tool(name: string, a: ToolConfig | AnyToolHandler, b?: AnyToolHandler): Registration<ToolConfig> {
    const [config, handler] = typeof a === 'function' ? [{}, a] : [a, b!];
    return this.register('tools', name, (c: ToolConfig) => defineTool(name, c, handler, this.extensionFields(name, c)), config);
  }

  /**
   * What a tool's settings for extensions (`ToolConfig.extensions`) add to its wire entry, each
   * checked by its extension; settings for an extension this server does not have are refused.
   */
  private extensionFields(name: string, config: ToolConfig): Partial<Tool> | undefined {
    const settings = config.extensions;
    if (settings === undefined) return undefined;
    let fields: Partial<Tool> | undefined;
    for (const [id, value] of Object.entries(settings)) {
      const extension = this.extensions.get(id);
      if (extension === undefined) {
        throw new JanusError(
          'REGISTRATION',
          `tool "${name}" has settings for the extension ${id}, which this server does not have: add it first (createServer({ extensions }))`,
        );
      }
      const added = extension.toolSettings?.(name, value);
      if (added !== undefined) fields = { ...fields, ...added };
    }
    return fields;
  }

  /** Whether a resource is registered at `uri` (extensions that share one resource between tools ask). */
  hasResource(uri: string): boolean {
    return this.registry.resources.has(uri);
  }

  /**
   * Registers a prompt. Its handler's arguments are typed from `arguments`: an object schema's
   * output type, or for a list the named arguments (`string`, optional unless `required: true`).
   */
  prompt<const A extends PromptArguments | undefined = undefined>(
    name: string,
    config: PromptConfig<A>,
    handler: PromptHandler<A>,
  ): Registration<PromptConfig<A>>;
  /** Registers a prompt without declared arguments. */
  prompt(name: string, handler: PromptHandler): Registration<PromptConfig<undefined>>;
  prompt(name: string, a: PromptConfig | AnyPromptHandler, b?: AnyPromptHandler): Registration<PromptConfig> {
    const [config, handler] = typeof a === 'function' ? [{}, a] : [a, b!];
    return this.register('prompts', name, (c: PromptConfig) => definePrompt(name, c, handler), config);
  }

  /** Registers a resource with fixed text, or a reader called on each `resources/read`. */
  resource(uri: string, config: ResourceConfig, read: ResourceReader | string): Registration<ResourceConfig> {
    return this.register('resources', uri, (c: ResourceConfig) => defineResource(uri, c, read), config);
  }

  /** Registers an RFC 6570 resource template; `read` gets the URI and its variables. */
  resourceTemplate(uriTemplate: string, config: TemplateConfig, read: TemplateReader): Registration<TemplateConfig> {
    return this.register('templates', uriTemplate, (c: TemplateConfig) => defineTemplate(uriTemplate, c, read), config);
  }

  /**
   * Adds a middleware around every inbound request and notification, or around one method's.
   * Middleware run in the order they were added, the first outermost; each gets the message's
   * context and `next`, which runs the rest of the chain and the method, and resolves to its
   * era-neutral result (docs/server.md §Middleware):
   *
   * ```ts
   * server.use(async (ctx, next) => {
   *   const started = performance.now();
   *   try {
   *     return await next();
   *   } finally {
   *     console.error(ctx.method, performance.now() - started);
   *   }
   * });
   * server.use('tools/call', (ctx, next) => {
   *   if (ctx.params.name === 'delete' && !ctx.principal) throw new McpError(ErrorCode.InvalidRequest, 'Sign in first');
   *   return next();
   * });
   * ```
   */
  use(middleware: Middleware): this;
  use<M extends ServerMethod>(method: M, middleware: MethodMiddleware<M>): this;
  /** A middleware for a method the server does not name (a notification, an extension's method). */
  use(method: string, middleware: Middleware): this;
  use(a: string | Middleware, b?: Middleware | MethodMiddleware<ServerMethod>): this {
    if (typeof a === 'function') this.middleware.add(undefined, a);
    else if (typeof a === 'string' && a) this.middleware.add(a, b as Middleware);
    else throw new TypeError('server.use(middleware) or server.use(method, middleware)');
    return this;
  }

  /**
   * Adds an extension (extension.ts): its methods, capabilities, tool settings, tool-call hook,
   * middleware and listen topics. `createServer({ extensions })` adds them this way too.
   */
  extend(extension: ServerExtension): this {
    this.extensions.add(extension);
    if (extension.middleware !== undefined) this.middleware.add(undefined, extension.middleware);
    return this;
  }

  /**
   * Makes this server's tools, prompts, resources and resource templates those of `source`,
   * in place: definitions added, changed and removed, each list whose listing changed announced
   * once (`list_changed` to legacy sessions, `subscriptions/listen` streams), sessions and
   * streams kept. For a live reload (`janus-mcp dev` imports the module again and copies its
   * fresh server in). Only the definitions move: this server keeps its options, middleware and
   * extensions (a tool with settings for an extension this server lacks is refused), and the
   * handles `source` returned keep acting on `source`.
   */
  replaceDefinitionsFrom(source: Server): void {
    if (!(source instanceof Server)) throw new TypeError('replaceDefinitionsFrom(source) needs a Server');
    if (source === this) return;
    for (const tool of source.registry.tools.values()) this.extensionFields(tool.name, tool.config);
    this.registry.replaceAll('tools', source.registry.tools);
    this.registry.replaceAll('prompts', source.registry.prompts);
    this.registry.replaceAll('resources', source.registry.resources);
    this.registry.replaceAll('templates', source.registry.templates);
  }

  /**
   * Tells clients that a list changed though no definition of this server did: what it lists
   * depends on something outside it (a proxy's upstream, which may know of changes a diff of
   * its entries cannot see). Definitions added, changed or removed are announced without it.
   */
  listChanged(kind: ListKind): void {
    if (kind !== 'tools' && kind !== 'prompts' && kind !== 'resources') {
      throw new TypeError(`server.listChanged(kind): kind is 'tools', 'prompts' or 'resources', not ${JSON.stringify(kind)}`);
    }
    this[CORE].publish({ type: 'list_changed', kind });
  }

  /** Tells subscribers (legacy `resources/subscribe`, modern `subscriptions/listen`) that a resource changed. */
  resourceUpdated(uri: string): void {
    this[CORE].publish({ type: 'resource_updated', uri });
  }

  /**
   * Tells a 2025-11-25 session that an out-of-band URL elicitation finished
   * (`notifications/elicitation/complete`); a no-op for sessions whose revision lacks it.
   */
  elicitationComplete(sessionId: string, elicitationId: string): boolean {
    return this[CORE].notifySession(sessionId, { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId } });
  }

  /**
   * Adds session hooks (after `ServerOptions.sessions` and earlier ones); returns what removes
   * them. `onClosed` fires for every initialized session, also ones that began before this.
   *
   * ```ts
   * const stop = server.onSession({
   *   onInitialized: (session) => void (session.state.since = Date.now()),
   *   onClosed: (session) => console.error(session.id, 'ended after', Date.now() - Number(session.state.since), 'ms'),
   * });
   * ```
   */
  onSession(hooks: SessionHooks): () => void {
    return this[CORE].onSession(hooks);
  }

  /** An open, initialized legacy session by id (`ctx.sessionId`; on Streamable HTTP, `Mcp-Session-Id`). */
  session(id: string): SessionHandle | undefined {
    return this[CORE].sessionHandle(id);
  }

  /** This instance's open, initialized legacy sessions and open `subscriptions/listen` streams. */
  stats(): { sessions: number; listenStreams: number } {
    return this[CORE].stats();
  }

  /** Serves one message transport (stdio, in-memory). A transport carries one legacy session at most. */
  connect(transport: Transport): Promise<Connection> {
    if (this.closed) return Promise.reject(new JanusError('TRANSPORT_CLOSED', 'server is closed'));
    return connectTransport(this[CORE], transport, transport.kind ?? 'stdio');
  }

  /** Ends every session and listen stream (listen streams get their graceful final result). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this[CORE].close();
  }
}

/** `requestState` as configured, each part not given taken from the cluster's. */
function requestStateOptions(options: ServerOptions): RequestStateOptions | undefined {
  const own = options.requestState;
  const shared = options.cluster?.requestState;
  if (shared === undefined) return own;
  return { ...own, secrets: own?.secrets ?? shared.secrets, store: own?.store ?? shared.store };
}

/**
 * Creates a server: register tools, prompts, resources and completions on it once, then serve it
 * on any transport (`serveStdio`, `serveHttp`, `createFetchHandler`, `connectInMemory`); each
 * client gets the revision it speaks. Throws a `JanusError` (`'REGISTRATION'`) without a name and
 * a version.
 *
 * @example
 * ```ts
 * import { createServer } from 'janus-mcp/server';
 * import { serveStdio } from 'janus-mcp/stdio';
 *
 * const server = createServer({ name: 'greeter', version: '1.0.0' });
 * server.tool('greet', { description: 'Says hello' }, () => 'Hello!');
 * await serveStdio(server);
 * ```
 */
export function createServer(options: ServerOptions): Server {
  return new Server(options);
}

/**
 * The core of `server`, as a transport drives it: the seam for transport authors
 * (transport-seam.ts). The built-in transports (stdio, in-memory, HTTP) reach the server
 * through it alone; a custom one (WebSockets, a queue) is written against it the same way.
 */
export function coreOf(server: Server): ServerCore {
  return server[CORE];
}
