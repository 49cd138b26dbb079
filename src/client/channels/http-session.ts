/**
 * What a Streamable HTTP channel (http.ts) asks of the handshake era's session on it
 * (client/legacy/http-session.ts: `Mcp-Session-Id`, `MCP-Protocol-Version`, 404 = expired, the
 * standalone GET stream, DELETE at the end), and what that session uses of the channel. The
 * client's registering file (../eras.ts) makes one per channel; a build without the era makes
 * none, and the channel speaks the stateless wire alone.
 */
import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import type { LegacyVersion } from '../../protocol/versions.js';
import type { StreamHost } from './http-streams.js';

/** The handshake era's session on one HTTP channel. */
export interface HttpSession {
  /** The session id the server assigned, while it lasts. */
  readonly id: string | undefined;
  /** Before a POST: throws the expiry error when the session is lost and this request would go out without it. */
  admit(request: JsonRpcRequest): void;
  /** Adds the session's headers to a request of `session` (by default the session now): its id, and the version. */
  stamp(headers: Headers, session?: string): void;
  /** A 2xx reply to `request`: the id the server assigned, when it starts a session. */
  replied(request: JsonRpcRequest, res: Response): void;
  /** A 404 to a request that carried `sent`: the session is gone; the error to fail with. */
  expired(sent: string, res: Response): Promise<Error>;
  /** The negotiated version, sent as `MCP-Protocol-Version` where the revision has that header. */
  setVersion(version: LegacyVersion): void;
  /** Opens the standalone GET stream of the session (once; 405: the server offers none). */
  openEventStream(): void;
  /** The channel closes: ends the session with DELETE (a failure or 405 is fine). */
  end(): Promise<void>;
}

/** What the session uses of its channel. */
export interface HttpSessionHost {
  /** The channel's GET streams' host (http-streams.ts). */
  readonly streams: StreamHost;
  readonly closed: boolean;
  /** The largest body read, in bytes. */
  readonly maxBytes: number;
  /** How long the DELETE at the end may take (ms). */
  readonly deleteTimeoutMs: number;
  /** Keeps `controller` among what the channel aborts when it closes (until `untrack`). */
  track(controller: AbortController): void;
  untrack(controller: AbortController): void;
  /** The channel's own headers for a request of `kind` (the options', content type, accept). */
  headers(kind: 'get' | 'delete'): Headers;
  /** One fetch of the channel's endpoint, redirects followed only where safe. */
  fetch(init: RequestInit, what: string): Promise<Response>;
}
