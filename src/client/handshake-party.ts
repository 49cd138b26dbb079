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
import type { HttpSession, HttpSessionHost } from './channels/http-session.js';
import type { ConnectionContext, EraConnection } from './connection.js';
import type { Verdict } from './known-server.js';
import type { ClientMiddlewareStack } from './middleware.js';
import type { ConnectOptions } from './options.js';
import type { CallOptions, Progress } from './peer.js';
import type { TaskPort } from './tasks/port.js';
import type { TaskSnapshot } from './tasks/snapshot.js';
import type { TaskDriver } from './tasks/tool-task.js';

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
  /** The revisions the server listed (its answer to the probe, or its refusal of the probe's version). */
  supported?: readonly string[];
}

/** The client's handshake era. */
export interface HandshakeClient {
  /** `initialize` and `notifications/initialized` at `version` (over HTTP, falling back to HTTP+SSE). */
  handshake(party: HandshakeParty, version: LegacyVersion, evidence?: ProbeEvidence): Promise<Verdict>;
  /** The connection on a session the handshake opened; started before its first request. */
  readonly Connection: new (
    context: ConnectionContext,
  ) => EraConnection & { start(): Promise<void> };
  /** 2025-11-25 tasks (basic/utilities/tasks.mdx), both ways. */
  readonly tasks: HandshakeTasks;
  /** The session half of a Streamable HTTP channel: `Mcp-Session-Id`, expiry, the standalone stream, DELETE. */
  httpSession(host: HttpSessionHost): HttpSession;
}

/** The handshake era's task design, on the client: following the server's tasks, and being a task receiver. */
export interface HandshakeTasks {
  /** Follows a task the server made of a `tools/call`; `progress`: the original request's token and listener. */
  driver(
    port: TaskPort,
    first: TaskSnapshot,
    options: Pick<CallOptions, 'timeoutMs'>,
    progress?: { token: string; onProgress: (p: Progress) => void },
  ): TaskDriver;
  /** Runs the server's task-augmented sampling and elicitation requests as tasks. */
  receiver(settings: ReceiverSettings): TaskReceiver;
}

/** How the receiver bounds the tasks it keeps. */
export interface ReceiverSettings {
  /** Longest task lifetime granted, and the one given when the server asks for none (ms). */
  maxTtlMs: number;
  /** What the server is told to wait between polls (ms). */
  pollIntervalMs: number;
  /** Most tasks running at once; one more is refused with -32603. */
  maxRunning: number;
  /** Sends `notifications/tasks/status` (optional for receivers: §Task Status Notification). */
  notify(params: Record<string, unknown>): Promise<void>;
}

/** The client as a task receiver, on a session where it declared `capabilities.tasks`. */
export interface TaskReceiver {
  /** The methods with which the server follows the tasks it made here. */
  readonly methods: ReadonlySet<string>;
  /** Answers a task-augmented request at once; `run` is the handler, given a signal that `tasks/cancel` aborts. */
  create(method: string, task: unknown, run: (signal: AbortSignal) => Promise<object>): Promise<{ task: Record<string, unknown> }>;
  /** `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` from the server. */
  serve(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<object>;
  /** Stops every task (the client is closing). */
  close(): void;
}
