/**
 * The server's own limits, safe by default: each has a documented default, an
 * option (`createServer({ limits })`) and a clear error when reached. The HTTP transport has
 * its own (body size, sessions, event store: `HttpHandlerOptions`).
 */
import { JanusError } from '../protocol/errors.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../protocol/json-depth.js';

/**
 * Bounds on what clients may make the server hold (`createServer({ limits })`), each with a safe
 * default: past one, the request is refused with a JSON-RPC error instead of using up memory.
 */
export interface ServerLimits {
  /**
   * How many levels below an inbound message a value may sit (default 64; in
   * `{"params":{"_meta":{}}}` the `_meta` object is 2 levels down). A request nested deeper is
   * answered -32600 (HTTP 400 on 2026-07-28) before anything reads it.
   */
  maxJsonDepth?: number;
  /**
   * Requests one channel may have in flight at once: a legacy session (2024-11-05 …
   * 2025-11-25, any transport), and a stdio or in-memory channel with its 2026-07-28
   * requests (default 1,000). One more is answered -32600 at once.
   */
  maxInFlightPerSession?: number;
  /**
   * Server-to-client requests (`ctx.elicit`, `ctx.sample`, `ctx.roots` on a legacy session)
   * waiting for their answer on one session (default 100). One more makes that call throw a
   * `JanusError` (code `'PROTOCOL'`).
   */
  maxPendingClientRequests?: number;
  /** Open 2026-07-28 `subscriptions/listen` streams of this server (default 20,000). One more is answered -32603. */
  maxListenStreams?: number;
  /**
   * Distinct URIs in one listen stream's `resourceSubscriptions` (default 1,000); a longer
   * list is answered -32602 (HTTP 400), so no stream holds, or echoes in its
   * acknowledgement, more than this. A legacy session may hold as many `resources/subscribe`
   * subscriptions; one more is answered -32602.
   */
  maxListenUris?: number;
  /**
   * Questions one 2026-07-28 round may ask the client (`inputRequests` of one
   * `input_required` result, default 16). One more is answered -32603.
   */
  maxInputRequests?: number;
  /**
   * `input_required` rounds one 2026-07-28 request may take before it must complete
   * (default 16). A request that would need another round is answered -32603.
   */
  maxInputRounds?: number;
}

export type ResolvedLimits = Readonly<Required<ServerLimits>>;

export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
  maxInFlightPerSession: 1_000,
  maxPendingClientRequests: 100,
  maxListenStreams: 20_000,
  maxListenUris: 1_000,
  maxInputRequests: 16,
  maxInputRounds: 16,
});

export function resolveLimits(limits: ServerLimits | undefined): ResolvedLimits {
  if (limits === undefined) return DEFAULT_LIMITS;
  const out = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ServerLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new JanusError('REGISTRATION', `limits.${key} must be a positive integer`);
    out[key] = value;
  }
  return Object.freeze(out);
}
