/**
 * Options of the HTTP handlers, and their defaults in one place: the endpoint's own, and the
 * handshake era's (sessions, event store, HTTP+SSE: legacy/options.ts, through eras.ts).
 * Runtime-neutral.
 */
import type { ResourceServerOptions } from '../../auth/server/index.js';

/** The endpoint's own options, whatever the era (`HttpHandlerOptions` adds the handshake era's: handler-options.ts). */
export interface EndpointOptions {
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
   * `lazy` (default): answer `application/json` unless something precedes the final response;
   * `always`: open an SSE stream for every request whose client accepts one.
   */
  sse?: 'lazy' | 'always';
  /** SSE comment keep-alive interval for open streams; 0 disables. Default 15 000 ms. */
  keepAliveMs?: number;
  /**
   * The most an event stream (a `subscriptions/listen` stream, the handshake era's GET stream, a
   * POST answered as SSE, an HTTP+SSE stream) holds for a client that does not read it, in
   * bytes. Writes wait for the socket to drain; past this much waiting, the stream is closed as
   * a dropped connection is: a client resumes with `Last-Event-ID` where an event store keeps
   * the events, or opens its stream again and lists anew. Default 64 KiB, beside what the
   * operating system buffers for the connection, which absorbs a burst first.
   */
  maxStreamBufferBytes?: number;
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
  readonly sseAlways: boolean;
  readonly keepAliveMs: number;
  readonly maxStreamBufferBytes: number;
  readonly auth: ResourceServerOptions | undefined;
}

const lower = (list: string[] | undefined): ReadonlySet<string> | undefined =>
  list === undefined ? undefined : new Set(list.map((s) => s.toLowerCase()));

export function resolveOptions(o: EndpointOptions = {}): ResolvedOptions {
  return {
    path: o.path ?? '/mcp',
    dnsRebindingProtection: o.dnsRebindingProtection,
    allowedHosts: lower(o.allowedHosts),
    allowedOrigins: lower(o.allowedOrigins),
    onWarning: o.onWarning,
    maxBodyBytes: o.maxBodyBytes ?? 4 * 1024 * 1024,
    bodyTimeoutMs: o.bodyTimeoutMs ?? 30_000,
    sseAlways: o.sse === 'always',
    keepAliveMs: o.keepAliveMs ?? 15_000,
    maxStreamBufferBytes: nonNegative('maxStreamBufferBytes', o.maxStreamBufferBytes) ?? 64 * 1024,
    auth: o.auth,
  };
}

/** A byte count option: a number of 0 or more, or absent. */
function nonNegative(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value >= 0)) throw new TypeError(`${name} must be a number of 0 or more, not ${String(value)}`);
  return value;
}

/** Sends a configuration warning to `onWarning`, else where the server's go (a core without `reportWarning`: stderr). */
export function warn(core: { reportWarning?(message: string): void }, options: ResolvedOptions, message: string): void {
  if (options.onWarning) options.onWarning(message);
  else if (core.reportWarning) core.reportWarning(message);
  else console.warn(`[janus-mcp] ${message}`);
}
