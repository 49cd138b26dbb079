/**
 * The seam the client's handshake era (legacy/) plugs into the client with: what the client
 * gives its session start (legacy/handshake.ts), which era detection (detect.ts) runs when a
 * server turns out to speak only handshake-era revisions, and what the era gives back. The one
 * registering file (eras.ts) names the era; a build without it has none.
 */
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { Implementation } from '../protocol/types.js';
import type { LegacyVersion } from '../protocol/versions.js';
import type { ClientChannel } from './channel.js';
import type { ConnectionContext, EraConnection } from './connection.js';
import type { Verdict } from './known-server.js';
import type { ClientMiddlewareStack } from './middleware.js';
import type { ConnectOptions } from './options.js';

/** What the handshake sends on: the client's wire (wire.ts), which it may swap for HTTP+SSE. */
export interface HandshakeWire {
  readonly kind: ClientChannel['kind'];
  readonly url: URL | undefined;
  call(method: string, params: Record<string, unknown>): Promise<JsonRpcResponse>;
  notify(method: string): Promise<void>;
  swap(channel: ClientChannel): Promise<void>;
  setLegacyVersion(version: LegacyVersion): void;
  openEventStream(): void;
}

/** What the handshake needs of the client: never the `Client` itself. */
export interface HandshakeParty {
  readonly wire: HandshakeWire;
  readonly options: ConnectOptions;
  readonly clientInfo: Implementation;
  /** The client's middleware: initialize goes through it like every request. */
  readonly middleware: ClientMiddlewareStack;
  /** Takes the verdict; from then on it is the client's. */
  readonly server: { settle(verdict: Verdict): void };
  /** Closes the client: the server chose a revision it does not speak. */
  close(): Promise<void>;
}

/** What the probe learnt that the handshake may need for its errors. */
export interface ProbeEvidence {
  /** The HTTP status the probe was refused with. */
  probeStatus?: number;
  /** The probe got a JSON-RPC answer (an error): something there speaks JSON-RPC. */
  probeAnswered?: boolean;
  /** stdio: the server said nothing at all for this long before the probe gave up. */
  silentForMs?: number;
}

/** The client's handshake era. */
export interface HandshakeClient {
  /** `initialize` and `notifications/initialized` at `version` (over HTTP, falling back to HTTP+SSE). */
  handshake(party: HandshakeParty, version: LegacyVersion, evidence?: ProbeEvidence): Promise<Verdict>;
  /** The connection on a session the handshake opened; started before its first request. */
  readonly Connection: new (
    context: ConnectionContext,
  ) => EraConnection & { start(): Promise<void> };
}
