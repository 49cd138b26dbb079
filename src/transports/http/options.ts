/** Options of the HTTP handlers, and their defaults in one place. Runtime-neutral. */
import type { ResourceServerOptions } from '../../auth/server/index.js';
import { InMemoryEventStore, type EventStore } from './event-store.js';

export interface HttpHandlerOptions {
  /** The MCP endpoint path. Default `/mcp`; `false` serves every path (when mounted by a router). */
  path?: string | false;
  /**
   * DNS-rebinding protection (Host and Origin checks). Default on, on every bind and runtime:
   * Host must be localhost, 127.0.0.1 or [::1] unless `allowedHosts` names others; a present
   * Origin must be on such a host unless `allowedOrigins` lists it. `false` turns the checks off
   * and warns once through `onWarning`.
   */
  dnsRebindingProtection?: boolean;
  /** `host` or `host:port` values accepted in the Host header (case-insensitive); replaces the loopback names. */
  allowedHosts?: string[];
  /** Exact origins (`scheme://host[:port]`) accepted in the Origin header. */
  allowedOrigins?: string[];
  /**
   * Where configuration warnings go (`dnsRebindingProtection: false`). Default: the server's
   * (its `logger`'s `warn` when it has one, else `console.warn`: stderr).
   */
  onWarning?: (message: string) => void;
  /** Largest accepted request body. Default 4 MiB; larger bodies get 413. */
  maxBodyBytes?: number;
  /**
   * How long a POST body may take to arrive, from the moment the handler starts reading it.
   * Default 30 000 ms; a slower body gets 408 and the connection is closed.
   */
  bodyTimeoutMs?: number;
  /**
   * Where SSE events of legacy sessions are kept for `Last-Event-ID` resumption; `false`
   * disables it. Default: the server's cluster's (`Cluster.events`), else one in memory.
   */
  eventStore?: EventStore | false;
  /**
   * Legacy sessions idle this long (no request, no open stream) are closed. Default 30 min.
   * With a cluster's shared sessions, an instance lets an idle one go and its shared record
   * expires after this long unused on every instance.
   */
  sessionIdleMs?: number;
  /** Most concurrent legacy sessions (Streamable HTTP and HTTP+SSE together). Default 10 000; one more gets 503. */
  maxSessions?: number;
  /**
   * Most concurrent legacy sessions per client address (an IPv6 address counts by its /64).
   * Default 1000; one more gets 429. Clients without a known address are not counted: on Node,
   * loopback peers (this machine, or a reverse proxy speaking for everyone: give it a
   * `clientAddress`); on the fetch handler, every client unless `clientAddress` is given.
   */
  maxSessionsPerClient?: number;
  /**
   * The SSE `retry:` field sent with priming events (2025-11-25 §Sending Messages to the Server,
   * item 6): how long a client waits before polling again after the server closed a stream.
   * Default 1000 ms: the server only closes streams mid-request on purpose, so a prompt poll is
   * what the handler wants (the official SDK's 5000 ms makes every poll a 5 s pause).
   */
  retryMs?: number;
  /** Serve the deprecated HTTP+SSE transport of 2024-11-05 on the same path. Default true. */
  legacySse?: boolean;
  /**
   * `lazy` (default): answer `application/json` unless something precedes the final response;
   * `always`: open an SSE stream for every request whose client accepts one.
   */
  sse?: 'lazy' | 'always';
  /** SSE comment keep-alive interval for open streams; 0 disables. Default 15 000 ms. */
  keepAliveMs?: number;
  /**
   * Protects the endpoint with OAuth 2.1 (MCP authorization): every request needs an access
   * token from `issuer`, issued for this server (its audience), with `scopes`; the protected
   * resource metadata (RFC 9728) is served at the well-known paths; handlers see the verified
   * identity as `ctx.auth`. docs/authorization.md. Default: no authorization.
   */
  auth?: ResourceServerOptions;
}

export interface ResolvedOptions {
  readonly path: string | false;
  readonly dnsRebindingProtection: boolean | undefined;
  readonly allowedHosts: ReadonlySet<string> | undefined;
  readonly allowedOrigins: ReadonlySet<string> | undefined;
  /** Undefined: the server's (`ServerCore.reportWarning`). */
  readonly onWarning: ((message: string) => void) | undefined;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly eventStore: EventStore | undefined;
  readonly sessionIdleMs: number;
  readonly maxSessions: number;
  readonly maxSessionsPerClient: number;
  readonly retryMs: number;
  readonly legacySse: boolean;
  readonly sseAlways: boolean;
  readonly keepAliveMs: number;
  readonly auth: ResourceServerOptions | undefined;
}

const lower = (list: string[] | undefined): ReadonlySet<string> | undefined =>
  list === undefined ? undefined : new Set(list.map((s) => s.toLowerCase()));

/** `core`: the server's, whose cluster (if any) gives the default event store, shared by all its instances. */
export function resolveOptions(o: HttpHandlerOptions = {}, core?: { readonly eventStore?: EventStore }): ResolvedOptions {
  return {
    path: o.path ?? '/mcp',
    dnsRebindingProtection: o.dnsRebindingProtection,
    allowedHosts: lower(o.allowedHosts),
    allowedOrigins: lower(o.allowedOrigins),
    onWarning: o.onWarning,
    maxBodyBytes: o.maxBodyBytes ?? 4 * 1024 * 1024,
    bodyTimeoutMs: o.bodyTimeoutMs ?? 30_000,
    eventStore: o.eventStore === false ? undefined : (o.eventStore ?? core?.eventStore ?? new InMemoryEventStore()),
    sessionIdleMs: o.sessionIdleMs ?? 30 * 60_000,
    maxSessions: o.maxSessions ?? 10_000,
    maxSessionsPerClient: o.maxSessionsPerClient ?? 1000,
    retryMs: o.retryMs ?? 1000,
    legacySse: o.legacySse ?? true,
    sseAlways: o.sse === 'always',
    keepAliveMs: o.keepAliveMs ?? 15_000,
    auth: o.auth,
  };
}

/** Sends a configuration warning to `onWarning`, else where the server's go (a core without `reportWarning`: stderr). */
export function warn(core: { reportWarning?(message: string): void }, options: ResolvedOptions, message: string): void {
  if (options.onWarning) options.onWarning(message);
  else if (core.reportWarning) core.reportWarning(message);
  else console.warn(`[janus-mcp] ${message}`);
}
