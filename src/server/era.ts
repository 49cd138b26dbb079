/**
 * The seam the handshake era (2024-11-05 … 2025-11-25) plugs into the core with. The stateless
 * era is the core's own; the handshake era is a plug-in the one registering file (eras.ts)
 * names, so that a build without the legacy/ folders still serves 2026-07-28: the core then
 * answers `initialize` with a clear error and opens plain channels. The core hands the era
 * every message that is not on the stateless wire and asks it about its sessions; it never
 * names a session's type.
 */
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { ServerEvent } from './backplane.js';
import type { InflightRegistry } from './cancel.js';
import type { ChannelHost, ServerChannel } from './channel.js';
import type { SessionHandle } from './context.js';
import type { ServerConfig, Services } from './services.js';
import type { SessionHooks } from './session-hooks.js';
import type { Inbound, ServerCore } from './transport-seam.js';

export interface HandshakeEra {
  /** A message channel (stdio, in-memory): the era's session of it, not initialized yet. */
  openChannel(host: ChannelHost): ServerChannel;
  /** Whether `channel` is one of this era's sessions. */
  owns(channel: ServerChannel | undefined): boolean;
  /** A session's in-flight requests, which the stateless requests on the same channel join (stdio cancels by notification). */
  inflightOf(channel: ServerChannel | undefined): InflightRegistry | undefined;
  /** A request on the handshake-era wire; one on no session is told to initialize first. */
  request(req: JsonRpcRequest, inbound: Inbound): void | Promise<void>;
  /** A notification on one of its sessions. */
  notification(n: JsonRpcNotification, inbound: Inbound): void | Promise<void>;
  /** The client's answer to one of the server's requests on a session (or a refusal standing in for one). */
  response(response: JsonRpcResponse, inbound: Inbound): void;
  /** Whether the payload's session may carry a JSON-RPC batch (2025-03-26 only). */
  batchAllowed(inbound: Inbound): boolean;
  /** A registry change or resource update, for the sessions of this instance. */
  deliver(event: ServerEvent): void;
  /** Sends a notification to one session if its revision has that method; false when there is no such session. */
  notifySession(id: string, message: JsonRpcNotification): boolean;
  /** The handle of an open, initialized session of this instance. */
  sessionHandle(id: string): SessionHandle | undefined;
  /** Adds session hooks; returns what removes them. */
  onSession(hooks: SessionHooks): () => void;
  /** Open initialized sessions of this instance. */
  readonly openSessions: number;
  /** Ends this instance's sessions (a cluster's shared ones it only lets go of). */
  close(): void;
}

/** How the registering file makes the era for one server's core. */
export type HandshakeEraFactory = (services: Services, config: ServerConfig, core: ServerCore) => HandshakeEra;
