/**
 * The seam extensions plug into: methods (each in the revisions it declares), capabilities,
 * settings per tool, a hook around tool calls, a middleware around every request, topics on
 * `subscriptions/listen`, and a store the cluster keeps for it. The dispatchers consult it
 * after their own tables and know no extension by name; the tasks, skills and apps extensions
 * (src/extensions/, each behind its own package subpath) are written against it, as a user's
 * own would be, and come in as a user's do: `createServer({ extensions })` or `server.extend`.
 */
import { JanusError } from '../protocol/errors.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { ServerCapabilities, Tool } from '../protocol/types.js';

import type { ProtocolVersion } from '../protocol/versions.js';
import type { Call, CallSite } from './call.js';

export type { CallSite };
import type { StoreKey } from './cluster.js';
import type { ClientView, RequestContext } from './context.js';
import type { ResourceConfig, ResourceReader } from './features/resources.js';
import type { ToolConfig, ToolEntry, ToolHandler } from './features/tools.js';
import type { SchemaInput } from './schema/types.js';
import type { Middleware } from './middleware.js';
import type { SessionHooks } from './session-hooks.js';

/** A request's params as they came off the wire. */
export type Params = Record<string, unknown>;

/** One method an extension adds. */
export interface ExtensionMethod {
  /**
   * The revisions it exists in: dispatch admits it only there, and answers -32601 elsewhere,
   * as it does for a core method the request's revision lacks.
   */
  readonly revisions: (v: ProtocolVersion) => boolean;
  /** The params field its 2026-07-28 `Mcp-Name` header mirrors (the HTTP transport checks it). */
  readonly mcpName?: string;
  /**
   * 2026-07-28: answered -32021 (naming the extension in `requiredCapabilities`) unless the
   * request's client capabilities declare the extension (SEP-2575 §Missing Required Capabilities).
   */
  readonly needsClientExtension?: boolean;
  /** The work: a result in the wire shape of `ctx.protocolVersion`; resultType and serverInfo are added by the dispatcher. */
  run(params: Params, ctx: RequestContext, site: CallSite): object | Promise<object>;
}

/** A registered definition; changing or removing it tells connected clients. */
export interface Registration<C> {
  /**
   * Changes the definition: the patch is merged into its config and validated again, and clients
   * are told the list changed.
   */
  update(config: Partial<C>): void;
  /** Removes the definition; clients are told the list changed. */
  remove(): void;
}

/** What an extension may register on its server: the `Server` facade's own registration methods. */
export interface ExtensionServer {
  /** Registers a tool, as `Server.tool` does. */
  tool<I extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<I, O>,
    handler: ToolHandler<I, O>,
  ): Registration<ToolConfig<I, O>>;
  /** Registers a resource, as `Server.resource` does. */
  resource(uri: string, config: ResourceConfig, read: ResourceReader | string): Registration<ResourceConfig>;
  /** Whether a resource is registered at `uri`. */
  hasResource(uri: string): boolean;
  /** Tells the resource's subscribers it changed, as `Server.resourceUpdated` does. */
  resourceUpdated(uri: string): void;
}

/** What an installed extension may use of its server. */
export interface ExtensionHost {
  /** Sends a notification to every `subscriptions/listen` stream that holds `topic`, on every instance. */
  publish(topic: string, notification: JsonRpcNotification): void;
  /** Where unexpected failures go (the server's `onError`). */
  reportError(error: unknown): void;
  /** The server it was added to, to register tools and resources on. */
  readonly server: ExtensionServer;
  /** The store the server's cluster keeps under `key` (`createServer({ cluster })`), if it has one. */
  store<T>(key: StoreKey<T>): T | undefined;
  /** Hooks for the handshake era's sessions (`server.onSession`); returns what removes them. */
  onSession(hooks: SessionHooks): () => void;
  /**
   * Runs `tools/call` with `params` (`name`, `arguments`) as a plain call with the context
   * `ctx`, past every extension's hook and the middleware: what the tasks extension runs a
   * task again with, on an instance that did not take its request.
   */
  callTool(params: Params, ctx: RequestContext): Promise<object>;
}

/**
 * What a listen request asked of an extension: the part of the acknowledgement it agrees to
 * (merged into `notifications`), and the topics the stream then holds.
 */
export interface ListenGrant {
  /** The part of the acknowledgement the extension agrees to, merged into its `notifications`. */
  readonly acknowledged: Params;
  /** The topics the stream then holds: what `ExtensionHost.publish` reaches it by. */
  readonly topics: readonly string[];
}

/**
 * Runs a tool call in the extension's way, or declines (undefined) and the call runs as usual.
 * `run` runs the tool's handler with a context, mapping its failures as a plain call does.
 */
export type ToolCallHook = (
  tool: ToolEntry,
  ctx: Call,
  params: Params,
  run: (ctx: RequestContext) => Promise<object>,
) => object | Promise<object> | undefined;

/**
 * An extension of the protocol that plugs into a server (`createServer({ extensions })`,
 * `server.extend`): the methods it adds, the capabilities and tool settings it declares, and the
 * hooks it needs around tool calls, requests and `subscriptions/listen`. The tasks, skills and
 * apps extensions are written against it, as your own would be.
 */
export interface ServerExtension {
  /** The extension's identifier (`io.modelcontextprotocol/tasks`): also the key of its settings in a tool's `extensions`. */
  readonly id: string;
  /** Its settings under `capabilities.extensions` where the revision has that field (2026-07-28); undefined: not advertised there. */
  settings?(): Record<string, unknown> | undefined;
  /** Adds what a revision declares outside `extensions` (2025-11-25's core `tasks` capability). */
  capabilities?(v: ProtocolVersion, caps: ServerCapabilities): void;
  /**
   * The methods it adds, by name: dispatch serves them after the core's own, in the revisions each
   * declares.
   */
  readonly methods?: Readonly<Record<string, ExtensionMethod>>;
  /**
   * Runs tool calls its own way (the tasks extension runs a task), or declines and the call runs
   * as usual.
   */
  readonly toolCall?: ToolCallHook;
  /**
   * A tool's settings for this extension (`ToolConfig.extensions[id]`), at registration: throw a
   * `JanusError('REGISTRATION')` to refuse them; return the fields they add to the tool's wire
   * entry (shaped per revision as the rest of it), or undefined for none.
   */
  toolSettings?(name: string, settings: unknown): Partial<Tool> | undefined;
  /** A middleware around every request and notification the server answers, in both eras, before the user's own. */
  readonly middleware?: Middleware;
  /** `subscriptions/listen`: what this extension grants of `notifications` (2026-07-28), or undefined for nothing. */
  listen?(asked: Params, client: ClientView, site: CallSite): ListenGrant | undefined;
  /** Called once, when the extension is added to a server. */
  install?(host: ExtensionHost): void;
  /** Called when the server closes. */
  close?(): void;
}

/**
 * Results an extension builds in their final wire shape (a `CreateTaskResult`): the
 * dispatchers send them as they are, without the shaping of the method's usual result.
 */
const verbatimResults = new WeakSet<object>();

/**
 * Marks an extension method's result as already in its final wire shape (e.g. a
 * `CreateTaskResult`): the server sends it as it is instead of shaping it as the method's usual
 * result. Returns `result`.
 */
export function verbatim<T extends object>(result: T): T {
  verbatimResults.add(result);
  return result;
}

export function isVerbatim(result: object): boolean {
  return verbatimResults.has(result);
}

/** Does this client declare extension `id` (2026-07-28 per request; `extensions` in its capabilities)? */
export function clientDeclares(client: ClientView, id: string): boolean {
  const extensions = client.capabilities.extensions;
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, id);
}

/** A method as an extension serves it. */
export interface ExtensionRoute {
  readonly extension: ServerExtension;
  readonly method: ExtensionMethod;
}

/** The extensions of one server, in the order they were added. */
export class Extensions {
  private readonly list: ServerExtension[] = [];
  private readonly routes = new Map<string, ExtensionRoute>();
  /** Bumped on every change; cached capabilities key on it. */
  version = 0;
  private hooked = false;

  constructor(private readonly host: ExtensionHost) {}

  get size(): number {
    return this.list.length;
  }

  get all(): readonly ServerExtension[] {
    return this.list;
  }

  has(id: string): boolean {
    return this.list.some((e) => e.id === id);
  }

  get<E extends ServerExtension>(id: string): E | undefined {
    return this.list.find((e) => e.id === id) as E | undefined;
  }

  add(extension: ServerExtension): void {
    if (this.has(extension.id)) throw new JanusError('REGISTRATION', `extension ${extension.id} is already added`);
    for (const [name, method] of Object.entries(extension.methods ?? {})) {
      if (typeof method?.revisions !== 'function' || typeof method.run !== 'function') {
        throw new JanusError('REGISTRATION', `extension ${extension.id}: method ${name} needs revisions(v) and run(params, ctx, site)`);
      }
      const taken = this.routes.get(name);
      if (taken)
        throw new JanusError('REGISTRATION', `extension ${extension.id}: method ${name} is already served by ${taken.extension.id}`);
    }
    this.list.push(extension);
    if (extension.toolCall !== undefined) this.hooked = true;
    for (const [name, method] of Object.entries(extension.methods ?? {})) this.routes.set(name, { extension, method });
    extension.install?.(this.host);
    this.version++;
  }

  /** The extension method `name` as revision `v` has it: undefined where its revisions do not include `v`. */
  route(name: string, v: ProtocolVersion): ExtensionRoute | undefined {
    const route = this.routes.get(name);
    return route?.method.revisions(v) ? route : undefined;
  }

  /** The `Mcp-Name` field of an extension's method. */
  mcpNameField(name: string): string | undefined {
    return this.routes.get(name)?.method.mcpName;
  }

  /** Whether some extension hooks tool calls (`Operations` skips the seam otherwise). */
  get active(): boolean {
    return this.hooked;
  }

  /**
   * The first extension that takes this tool call, or undefined (`ToolCallSeam`). The
   * dispatchers hand every feature a `Call`, whose site the hooks read.
   */
  call(
    tool: ToolEntry,
    params: Params,
    ctx: RequestContext,
    run: (ctx: RequestContext) => Promise<object>,
  ): object | Promise<object> | undefined {
    for (const e of this.list) {
      const taken = e.toolCall?.(tool, ctx as Call, params, run);
      if (taken !== undefined) return taken;
    }
    return undefined;
  }

  close(): void {
    for (const e of this.list) e.close?.();
  }
}
