/**
 * What the era dispatchers read from the server they serve, built once per server: its
 * identity, its features, its capabilities per revision, the 2026-07-28 cache hints and
 * signing keys, its listen streams, and where errors go. The core (core.ts) routes messages
 * to the eras, which keep their channels; this is the rest.
 */
import { META } from '../protocol/meta.js';
import type { CacheableMethod } from '../protocol/methods.js';
import type { Implementation, Meta, ServerCapabilities } from '../protocol/types.js';
import { ALL_VERSIONS, eraOf, type ProtocolVersion } from '../protocol/versions.js';
import type { Backplane } from './backplane.js';
import type { ClusterStores } from './cluster.js';
import type { Operations } from './features/operations.js';
import type { CacheHint } from './features/resources.js';
import type { ResolvedLimits } from './limits.js';
import type { MiddlewareStack } from './middleware.js';
import { ListenHub } from './modern/listen.js';
import type { RequestStateCodec } from './modern/request-state.js';
import type { Registry } from './registry.js';
import type { Extensions } from './extension.js';
import type { SessionOptions } from './session-hooks.js';
import { pick } from './shape.js';

/** What both eras' dispatchers read. */
export interface ServerServices {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly ops: Operations;
  /** The server's limits (limits.ts), resolved once. */
  readonly limits: ResolvedLimits;
  /** The middleware around every inbound message (middleware.ts). */
  readonly middleware: MiddlewareStack;
  /** The extensions the server was given (extension.ts), consulted after the core's own methods. */
  readonly extensions: Extensions;
  /** Capabilities as of now, in the wire shape of `v`. */
  capabilities(v: ProtocolVersion): ServerCapabilities;
  reportError(error: unknown): void;
}

/** The 2026-07-28 results that carry a cache hint (server/utilities/caching.mdx), configurable per method: the catalogue's `cacheable` ones. */
export type { CacheableMethod };

export interface ServerConfig {
  info: Implementation;
  instructions: string | undefined;
  registry: Registry;
  ops: Operations;
  codec: RequestStateCodec;
  backplane: Backplane;
  eras: { legacy: boolean; modern: boolean };
  extraCapabilities: ServerCapabilities | undefined;
  cache: Partial<Record<CacheableMethod, CacheHint>>;
  limits: ResolvedLimits;
  middleware: MiddlewareStack;
  extensions: Extensions;
  /** Legacy session hooks and pings (`ServerOptions.sessions`). */
  sessions?: SessionOptions;
  /** The stores a cluster keeps for what plugs in (`Cluster.stores`): the handshake era's sessions and events, extensions'. */
  stores?: ClusterStores;
  /** Read at each report, so it can be replaced after construction. */
  onError: (error: unknown) => void;
  /** Where configuration warnings go (the `logger`'s `warn`, else stderr). */
  warn: (message: string) => void;
}

const DEFAULT_CACHE: CacheHint = { ttlMs: 0, scope: 'private' };

/** The server's services: what both eras read, plus what the modern dispatcher does (its `ModernDeps`, structurally). */
export class Services implements ServerServices {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly ops: Operations;
  readonly codec: RequestStateCodec;
  readonly limits: ResolvedLimits;
  readonly middleware: MiddlewareStack;
  readonly extensions: Extensions;
  /** The `subscriptions/listen` streams of this instance. */
  readonly hub = new ListenHub();
  readonly infoMeta: Meta;
  private readonly capsCache = new Map<ProtocolVersion, ServerCapabilities>();
  private capsVersion = -1;
  private supported: readonly string[] = [];
  /** How many revisions the table had when `supported` was made (a registered one joins later). */
  private supportedOf = -1;

  constructor(private readonly config: ServerConfig) {
    this.info = config.info;
    this.infoMeta = Object.freeze({ [META.serverInfo]: config.info });
    this.instructions = config.instructions;
    this.ops = config.ops;
    this.codec = config.codec;
    this.limits = config.limits;
    this.middleware = config.middleware;
    this.extensions = config.extensions;
  }

  reportError(error: unknown): void {
    this.config.onError(error);
  }

  /** The revisions this server speaks, newest first: those of the eras it serves (`server/discover`, -32022). */
  get supportedVersions(): readonly string[] {
    if (this.supportedOf !== ALL_VERSIONS.length) {
      const { legacy, modern } = this.config.eras;
      this.supported = Object.freeze(ALL_VERSIONS.filter((v) => (eraOf(v) === 'legacy' ? legacy : modern)).reverse());
      this.supportedOf = ALL_VERSIONS.length;
    }
    return this.supported;
  }

  cacheHint(method: CacheableMethod): CacheHint {
    return this.config.cache[method] ?? DEFAULT_CACHE;
  }

  capabilities(v: ProtocolVersion): ServerCapabilities {
    const registry = this.config.registry;
    // Either kind of change moves the sum: both only ever grow.
    const version = registry.version + this.extensions.version;
    if (this.capsVersion !== version) {
      this.capsCache.clear();
      this.capsVersion = version;
    }
    let caps = this.capsCache.get(v);
    if (!caps) this.capsCache.set(v, (caps = this.buildCapabilities(v)));
    return caps;
  }

  private buildCapabilities(v: ProtocolVersion): ServerCapabilities {
    const { tools, prompts, resources, templates } = this.config.registry;
    const extra = this.config.extraCapabilities ?? {};
    const caps: ServerCapabilities = {};
    if (tools.size || extra.tools) caps.tools = { listChanged: true, ...extra.tools };
    if (prompts.size || extra.prompts) caps.prompts = { listChanged: true, ...extra.prompts };
    if (resources.size || templates.size || extra.resources) caps.resources = { subscribe: true, listChanged: true, ...extra.resources };
    caps.logging = {};
    if (prompts.size || templates.size || extra.completions) caps.completions = {};
    if (extra.experimental) caps.experimental = extra.experimental;
    if (extra.extensions) caps.extensions = { ...extra.extensions };
    for (const e of this.extensions.all) {
      const settings = e.settings?.();
      if (settings !== undefined) caps.extensions = { ...caps.extensions, [e.id]: settings };
      e.capabilities?.(v, caps);
    }
    return pick('ServerCapabilities', v, caps);
  }
}
