/**
 * The internal surface a transport uses to drive a server. Not exported publicly: transports
 * inside this package reach it through `coreOf(server)`.
 */
import type { Inbound, LegacySession, SessionHost } from './inbound.js';

/** An `x-mcp-header` annotation on a tool's input property (docs/2026-07-28/server/tools.mdx §x-mcp-header). */
export type { HeaderParam } from '../protocol/x-mcp-header.js';
import type { HeaderParam } from '../protocol/x-mcp-header.js';

export interface ServerCore {
  /**
   * Handles one decoded payload (a message, or an array for a 2025-03-26 batch). Every
   * message about it goes through `inbound.send`; the promise settles once the last of
   * them (the final response, or all responses of a batch) has been sent. For a
   * notification or a response it settles as soon as it was routed. It never rejects.
   */
  handle(payload: unknown, inbound: Inbound): Promise<void>;
  /** A new, uninitialized legacy session whose unsolicited messages go to `host`. */
  openSession(host: SessionHost): LegacySession;
  /** The `x-mcp-header` parameters of a tool, or undefined when no such tool exists. */
  toolHeaderParams(name: string): readonly HeaderParam[] | undefined;
  /** Ends, gracefully, the listen streams opened through the matching inbound channels (a transport shutting down). */
  endListeners(match: (inbound: Inbound) => boolean): void;
  /** Server name for logs and diagnostics. */
  readonly name: string;
  /** Reports an error that has no peer to go to (never written to stdout). */
  reportError(error: unknown): void;
}
