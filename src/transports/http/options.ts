/** Options of the HTTP handlers, and their defaults in one place. Runtime-neutral. */
import { InMemoryEventStore, type EventStore } from './event-store.js';

export interface HttpHandlerOptions {
  /** The MCP endpoint path. Default `/mcp`; `false` serves every path (when mounted by a router). */
  path?: string | false;
  /**
   * DNS-rebinding protection (Host and Origin checks). Default: on when the server socket is
   * bound to a loopback address (Node), or when `allowedHosts`/`allowedOrigins` are given.
   */
  dnsRebindingProtection?: boolean;
  /** `host` or `host:port` values accepted in the Host header (case-insensitive). */
  allowedHosts?: string[];
  /** Exact origins (`scheme://host[:port]`) accepted in the Origin header. */
  allowedOrigins?: string[];
  /** Largest accepted request body. Default 4 MiB; larger bodies get 413. */
  maxBodyBytes?: number;
  /** Where SSE events of legacy sessions are kept for `Last-Event-ID` resumption; `false` disables it. */
  eventStore?: EventStore | false;
  /** Legacy sessions idle this long (no request, no open stream) are closed. Default 30 min. */
  sessionIdleMs?: number;
  /** Most concurrent legacy sessions (Streamable HTTP and HTTP+SSE together). Default 10 000. */
  maxSessions?: number;
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
}

export interface ResolvedOptions {
  readonly path: string | false;
  readonly dnsRebindingProtection: boolean | undefined;
  readonly allowedHosts: ReadonlySet<string> | undefined;
  readonly allowedOrigins: ReadonlySet<string> | undefined;
  readonly maxBodyBytes: number;
  readonly eventStore: EventStore | undefined;
  readonly sessionIdleMs: number;
  readonly maxSessions: number;
  readonly retryMs: number;
  readonly legacySse: boolean;
  readonly sseAlways: boolean;
  readonly keepAliveMs: number;
}

const lower = (list: string[] | undefined): ReadonlySet<string> | undefined =>
  list === undefined ? undefined : new Set(list.map((s) => s.toLowerCase()));

export function resolveOptions(o: HttpHandlerOptions = {}): ResolvedOptions {
  return {
    path: o.path ?? '/mcp',
    dnsRebindingProtection: o.dnsRebindingProtection,
    allowedHosts: lower(o.allowedHosts),
    allowedOrigins: lower(o.allowedOrigins),
    maxBodyBytes: o.maxBodyBytes ?? 4 * 1024 * 1024,
    eventStore: o.eventStore === false ? undefined : (o.eventStore ?? new InMemoryEventStore()),
    sessionIdleMs: o.sessionIdleMs ?? 30 * 60_000,
    maxSessions: o.maxSessions ?? 10_000,
    retryMs: o.retryMs ?? 1000,
    legacySse: o.legacySse ?? true,
    sseAlways: o.sse === 'always',
    keepAliveMs: o.keepAliveMs ?? 15_000,
  };
}
