/**
 * `createProxy`: one upstream MCP server (any revision: a command over stdio, a Streamable
 * HTTP or HTTP+SSE URL, a transport, a connected client) served to downstream clients of every
 * revision (docs/proxy.md). Upstream it is a Janus client,
 * downstream a Janus server, built on their public API only: the downstream side has the same
 * limits, Host/Origin rules and authorization as any Janus server, because it is one.
 */
import { Client, type ConnectOptions, connect, type Target, type Transport } from '../client/index.js';
import type { Root, ServerCapabilities } from '../protocol/index.js';
import { createServer, type Server, type ServerOptions } from '../server/index.js';
import { Bridge } from './bridge.js';
import { type Hide, Mirror, type ListKind } from './mirror.js';
import { relayOf } from './relay.js';
import { UpstreamSubscriptions } from './subscriptions.js';
import { DEFAULT_RECONNECT, isGone, type ReconnectPolicy, Upstream } from './upstream.js';

/**
 * How {@link createProxy} presents and reaches the upstream server: the downstream identity, how
 * to connect and reconnect upstream, what to hide, the proxy's own roots, and the downstream
 * server's options.
 */
export interface ProxyOptions {
  /** Downstream server identity (default: the upstream's serverInfo name/version, title etc.). */
  name?: string;
  /** Downstream server version (default: the upstream's). */
  version?: string;
  /** How to reach the upstream (passed to connect()): clientInfo, headers, auth, protocolVersion… */
  connect?: ConnectOptions;
  /** Hide upstream tools/prompts/resources from downstream clients. */
  hide?: Hide;
  /**
   * The proxy's own roots: what an upstream's `roots/list` gets when no downstream call is in
   * flight to ask (an upstream may ask at its start), or when that call's client has no roots.
   * Default none: an empty list. Asked during the call of a client with roots, it answers.
   */
  roots?: readonly Root[];
  /** Reconnection to the upstream when it goes away (command dies, URL unreachable): attempts and backoff (default 5 attempts from 500 ms, doubling). */
  reconnect?: { attempts?: number; delayMs?: number } | false;
  /**
   * How long (ms) the upstream call behind a 2026-07-28 client's `input_required` round waits
   * for the retry that answers it (default 600000, 10 minutes). A round not retried in time is
   * dropped: its upstream call is cancelled, and a late retry is refused with -32602 asking the
   * client to call the tool again. Each round gets the whole time.
   */
  continuationTimeoutMs?: number;
  /**
   * Server options for the downstream server (limits, logger, onError…). With a `cluster`
   * (`redisCluster()` of janus-mcp/redis), the proxy instances created with it serve one
   * endpoint: a round's retry may reach any of them (docs/proxy.md §Limits).
   */
  server?: Omit<ServerOptions, 'name' | 'version'>;
}

/**
 * A running proxy: the downstream server to serve (and add to), and the upstream client it
 * forwards to.
 *
 * @example
 * ```ts
 * const proxy = await createProxy(['node', 'legacy-server.js']);
 * await serveHttp(proxy.server, { port: 3000 });
 * ```
 */
export interface Proxy {
  /** The downstream server: add tools of your own with server.tool(...), serve with serveHttp/serveStdio. */
  readonly server: Server;
  /** The upstream client (a new one after each reconnection). */
  readonly upstream: Client;
  /** Closes the upstream client and the server. */
  close(): Promise<void>;
}

/** The list a `list_changed` notification names, and the mirror's lists it covers. */
const CHANGED: Record<string, { readonly list: 'tools' | 'prompts' | 'resources'; readonly mirrored: readonly ListKind[] }> = {
  'notifications/tools/list_changed': { list: 'tools', mirrored: ['tools'] },
  'notifications/prompts/list_changed': { list: 'prompts', mirrored: ['prompts'] },
  'notifications/resources/list_changed': { list: 'resources', mirrored: ['resources', 'templates'] },
};

function describe(upstream: string | string[] | Transport | Client, client: Client): string {
  const name = client.serverInfo?.name;
  const where = typeof upstream === 'string' ? upstream : Array.isArray(upstream) ? upstream.join(' ') : undefined;
  return `upstream ${[name && JSON.stringify(name), where && `(${where})`].filter(Boolean).join(' ') || 'server'}`;
}

/** The downstream capabilities the upstream's imply: declared before anything is mirrored. */
function capabilitiesOf(client: Client): ServerCapabilities {
  const up = client.serverCapabilities;
  const caps: ServerCapabilities = {};
  if (up.tools) caps.tools = { listChanged: true };
  if (up.prompts) caps.prompts = { listChanged: true };
  if (up.resources) caps.resources = { subscribe: true, listChanged: true };
  if (up.completions) caps.completions = {};
  if (up.logging) caps.logging = {};
  return caps;
}

/**
 * Serves `upstream` (a URL, a command as a string or argv array, a Transport, or a connected
 * Client) to downstream clients of every revision. Resolves once the upstream is connected
 * and its lists are mirrored.
 */
export async function createProxy(upstream: string | string[] | Transport | Client, options: ProxyOptions = {}): Promise<Proxy> {
  let current: Upstream | undefined;
  const reportError = (e: unknown) => (options.server?.onError ?? ((x: unknown) => console.error('[janus-mcp proxy]', x)))(e);
  const bridge = new Bridge(() => current!, {
    roots: checkedRoots(options.roots),
    continuationTtlMs: checkedTimeout(options.continuationTimeoutMs),
    relay: relayOf(options.server?.cluster),
    reportError,
  });
  const connectOptions: ConnectOptions = { ...options.connect, ...bridge.handlers() };
  const target: Target | undefined =
    upstream instanceof Client ? undefined : Array.isArray(upstream) ? { command: upstream[0]!, args: upstream.slice(1) } : upstream;
  const client = target === undefined ? (upstream as Client) : await connect(target, connectOptions);
  let server: Server | undefined;
  try {
    await learn(client);
    const policy: ReconnectPolicy | false = options.reconnect === false ? false : { ...DEFAULT_RECONNECT, ...options.reconnect };
    const reconnectable = typeof upstream === 'string' || Array.isArray(upstream);
    current = new Upstream(client, describe(upstream, client), reconnectable ? target : undefined, connectOptions, policy, reportError);
    if (upstream instanceof Client) wireClient(upstream, bridge);
    server = createServer(serverOptions(client, options));
    return await serve(server, current, bridge, options, reportError);
  } catch (e) {
    // No proxy to hand back: what was started here ends here (a Client given by the caller stays open).
    server?.close();
    if (target !== undefined) await client.close().catch(() => {});
    throw e;
  }
}

/** The `continuationTimeoutMs` option, checked where a mistake is still the caller's. */
function checkedTimeout(ms: number | undefined): number | undefined {
  // setTimeout fires at once past 2^31-1 ms.
  if (ms !== undefined && !(Number.isInteger(ms) && ms > 0 && ms <= 2 ** 31 - 1)) {
    throw new TypeError(`createProxy: options.continuationTimeoutMs is a whole number of milliseconds above 0 (got ${String(ms)})`);
  }
  return ms;
}

/** The `roots` option, checked where a mistake is still the caller's. */
function checkedRoots(roots: readonly Root[] | undefined): readonly Root[] {
  if (roots === undefined) return [];
  if (!Array.isArray(roots) || !roots.every((r) => typeof r?.uri === 'string' && r.uri.startsWith('file://'))) {
    throw new TypeError('createProxy: options.roots is a list of roots, each { uri: "file://…", name? }');
  }
  return roots.map((r) => ({ ...r }));
}

/** The downstream server's options: the upstream's identity and capabilities, unless the options say otherwise. */
function serverOptions(client: Client, options: ProxyOptions): ServerOptions {
  const info = client.serverInfo;
  return {
    ...(info?.title === undefined ? {} : { title: info.title }),
    ...(info?.description === undefined ? {} : { description: info.description }),
    ...(info?.websiteUrl === undefined ? {} : { websiteUrl: info.websiteUrl }),
    ...(info?.icons === undefined ? {} : { icons: info.icons }),
    ...(client.instructions === undefined ? {} : { instructions: client.instructions }),
    ...options.server,
    capabilities: { ...capabilitiesOf(client), ...options.server?.capabilities },
    name: options.name ?? info?.name ?? 'janus-mcp-proxy',
    version: options.version ?? info?.version ?? '0.0.0',
  };
}

/** Mirrors the upstream on `server`, follows its changes and losses, and hands back the proxy. */
async function serve(
  server: Server,
  up: Upstream,
  bridge: Bridge,
  options: ProxyOptions,
  reportError: (e: unknown) => void,
): Promise<Proxy> {
  const client = up.client;
  const mirror = new Mirror(server, bridge, options.hide ?? {}, reportError);
  bridge.mirror = mirror;
  bridge.install(server);
  const subscriptions = new UpstreamSubscriptions(
    server,
    () => up,
    (uri) => mirror.hidden(uri),
    reportError,
  );
  subscriptions.install(server);

  let watching: AbortController | undefined;
  /** Follows the upstream's list changes (a legacy session's notifications, or a listen stream). */
  const watch = (c: Client) => {
    watching?.abort();
    const stop = (watching = new AbortController());
    const caps = c.serverCapabilities;
    const filter = {
      toolsListChanged: Boolean(caps.tools?.listChanged),
      promptsListChanged: Boolean(caps.prompts?.listChanged),
      resourcesListChanged: Boolean(caps.resources?.listChanged),
    };
    if (!filter.toolsListChanged && !filter.promptsListChanged && !filter.resourcesListChanged) return;
    void (async () => {
      try {
        for await (const n of c.listen(filter, { signal: stop.signal })) {
          const changed = CHANGED[n.method];
          if (changed !== undefined) relay(changed.list, changed.mirrored, c);
        }
      } catch (e) {
        if (!stop.signal.aborted) failed(c, e);
      }
    })();
  };
  /**
   * An upstream's list_changed: the mirror follows the list, and downstream clients hear of it
   * whether or not the entries differ (transparent: the upstream may know of changes a diff
   * cannot see). A mirror that changed has announced it already, through the registry.
   */
  const relay = (list: 'tools' | 'prompts' | 'resources', mirrored: readonly ListKind[], c: Client) => {
    Promise.all(mirrored.map((kind) => mirror.sync(kind, c))).then(
      (changed) => {
        if (!changed.includes(true)) server.listChanged(list);
      },
      (e: unknown) => failed(c, e),
    );
  };
  // A sync or watch that cannot reach the upstream is a lost connection; anything else is reported.
  const failed = (c: Client, e: unknown) => (isGone(e) ? up.lost(c, e) : reportError(e));

  // A stdio upstream that exits, or a transport that closes, is lost at once, not at the next call.
  const noticeLoss = (c: Client) => c.onClose((error) => error && up.lost(c, error));
  noticeLoss(client);
  await mirror.syncAll(client);
  await bridge.start();
  watch(client);
  up.onReconnect(async (c) => {
    noticeLoss(c);
    await learn(c);
    await mirror.syncAll(c);
    watch(c);
    subscriptions.renew(c);
  });

  return {
    server,
    get upstream() {
      return up.client;
    },
    async close() {
      watching?.abort();
      subscriptions.close();
      await bridge.close().catch(reportError);
      server.close();
      await up.close();
    },
  };
}

/**
 * What the proxy needs to know of a newly connected upstream: a 2026-07-28 client pinned to its
 * version skipped `server/discover`, so it is asked now (capabilities, serverInfo, instructions);
 * and every log message it has, for downstream clients to filter by their own levels.
 */
async function learn(client: Client): Promise<void> {
  if (client.era === 'modern' && client.serverInfo === undefined) await client.discover();
  if (client.serverCapabilities.logging) await client.setLogLevel('debug').catch(() => {});
}

/** A client the caller connected: its handlers cannot be replaced, so its notifications are followed here. */
function wireClient(client: Client, bridge: Bridge): void {
  const { onNotification } = bridge.handlers();
  client.onNotification((n) => onNotification?.(n));
}
