/** What `connect()` accepts. */
import type { Era, ProtocolVersion } from '../protocol/versions.js';
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Implementation,
  LoggingLevel,
  Root,
} from '../protocol/types.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { Transport } from '../transports/transport.js';
import type { ClientChannel } from './channel.js';
import type { ClientMiddleware } from './middleware.js';
import type { OAuthClientOptions, OAuthProvider } from '../auth/client/index.js';

/** A stdio server to start as a child process (Node only). */
export interface SpawnOptions {
  /** The program to run (found on the `PATH`). */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Environment variables added to this process's own for the child. */
  env?: Record<string, string | undefined>;
  /** The child's working directory (default: this process's). */
  cwd?: string;
  /**
   * Where the child's stderr goes: `'inherit'` (default) forwards it to this process's
   * stderr as it comes; `'ignore'` shows it nowhere; `'pipe'` leaves it to the caller as
   * `child.stderr`. In every case its last lines (20 lines, 8 KiB at most) are kept, so that
   * a server that fails to start or exits says why in the error.
   */
  stderr?: 'inherit' | 'ignore' | 'pipe';
}

/** Where the server is: a URL (Streamable HTTP, falling back to HTTP+SSE), a command to spawn (stdio), or a transport. */
export type Target = string | URL | SpawnOptions | Transport | ClientChannel;

/**
 * What the client's handlers of server requests (`onElicit`, `onSample`, `onRoots`) are told about
 * the request.
 */
export interface HandlerContext {
  /** The era and version of the exchange that asked. */
  readonly era: Era;
  /** The revision of that exchange. */
  readonly protocolVersion: ProtocolVersion;
  /** Aborts when the request that asked is cancelled or the client closes. */
  readonly signal: AbortSignal;
}

/**
 * How {@link connect} connects: the client's identity and capabilities, the handlers that answer
 * the server's requests, the era (detected unless given), timeouts and bounds, middleware, OAuth,
 * tasks and caching.
 */
export interface ConnectOptions {
  /** The client's name and version, as the server sees them (default `janus-mcp-client`). */
  clientInfo?: Implementation;
  /** Pins the protocol version and skips era detection. */
  protocolVersion?: ProtocolVersion;
  /** A verdict from an earlier detection for this server; skips the probe. */
  era?: Era;
  /** Answers elicitation (form and URL) in both eras. Declares the `elicitation` capability. */
  onElicit?: (params: ElicitParams, ctx: HandlerContext) => ElicitResult | Promise<ElicitResult>;
  /** Answers sampling in both eras. Declares the `sampling` capability. */
  onSample?: (params: CreateMessageParams, ctx: HandlerContext) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Declare `sampling.tools` (the handler can take `tools`/`toolChoice`). */
  sampleWithTools?: boolean;
  /**
   * Extensions this client supports, by identifier, each with its settings (`{}`: none), declared
   * as `capabilities.extensions` where the revision has that field (2026-07-28, on every
   * request); e.g. `{ ...appsExtension() }` for MCP Apps (src/client/apps.ts).
   */
  extensions?: Record<string, object>;
  /** Answers roots requests in both eras. Declares the `roots` capability. */
  onRoots?: (ctx: HandlerContext) => Root[] | Promise<Root[]>;
  /** Every notification the server sends (logs, list changes, resource updates, progress). */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Log level to ask for: legacy `logging/setLevel` after connecting, modern `_meta` on every request. */
  logLevel?: LoggingLevel;
  /** Per-request timeout in ms (default 60 000); progress resets it. */
  timeoutMs?: number;
  /**
   * The longest a request may wait in ms, however often progress restarts `timeoutMs`
   * (default 3 600 000, one hour; 0 or Infinity: no bound). lifecycle.mdx §Timeouts: a
   * maximum timeout regardless of progress, against a server that reports progress forever.
   * The request then fails with a JanusError 'TIMEOUT' naming this option.
   */
  maxTotalTimeoutMs?: number;
  /**
   * stdio: how long a running server has to answer the `server/discover` probe before the
   * client takes it for a legacy server and sends `initialize` (default 3000). It counts
   * from the server's first sign of life, not from the spawn: when discover is not answered
   * within a second (or this, if shorter) a `ping` follows it, and the first message back
   * (the ping's answer, result or error, or any other) starts the clock. See `startTimeoutMs`
   * for a server that says nothing at all. 0 or Infinity: wait without limit. Over HTTP the
   * probe has `timeoutMs`.
   */
  probeTimeoutMs?: number;
  /**
   * stdio: how long the probe waits for a first sign of life from a server that is still
   * starting (npx, tsx, a cold cache) before it takes it for a legacy server that ignores
   * requests before `initialize`, and sends `initialize` (whose own `timeoutMs` then
   * applies). Default 30 000. 0 or Infinity: wait without limit.
   */
  startTimeoutMs?: number;
  /** Most `input_required` rounds one request may take (default 10). */
  maxInputRounds?: number;
  /**
   * Most `inputRequests` one `input_required` round may carry (default 16). A round with
   * more fails the request (JanusError 'PROTOCOL' naming this option) before any handler runs.
   */
  maxInputRequests?: number;
  /**
   * Most server-to-client requests (legacy sessions) served at once, from the request's
   * arrival until its response is sent (default 16). One more is refused with a JSON-RPC
   * error (-32603, naming this option) and reaches no handler. Refusals are sent as many at a
   * time; while 64 times as many wait to be sent, further requests get no answer and are
   * reported to `onWarning`. Clients SHOULD rate-limit servers (client/sampling.mdx,
   * client/elicitation.mdx §Security Considerations).
   */
  maxServerRequests?: number;
  /**
   * The largest message taken from a server, in bytes (default 16 MiB): one JSON reply body
   * or one SSE event over HTTP, one line over stdio. A larger reply fails its request with a
   * ChannelError naming this option (on the 2024-11-05 HTTP+SSE stream, which carries every
   * answer, the connection); a larger event on the standalone stream of a legacy session is
   * skipped and reported to `onWarning`; a longer stdio line is dropped and reported there too.
   */
  maxMessageBytes?: number;
  /** Extra HTTP headers on every request (e.g. Authorization). */
  headers?: Record<string, string>;
  /** The fetch implementation for HTTP (default: global fetch). */
  fetch?: typeof fetch;
  /**
   * OAuth authorization for HTTP servers (both eras, both HTTP transports): options for a new
   * `OAuthClient`, or an `OAuthClient` (or other provider) to share tokens and registrations
   * across connections. A 401 runs the flow (discovery, registration, authorization code with
   * PKCE) and the request is sent again with the token; refusals are JanusError 'AUTH'.
   */
  auth?: OAuthClientOptions | OAuthProvider;
  /** Things worth a log line that are not errors (e.g. a tool dropped for invalid `x-mcp-header` annotations). Default: stderr. */
  onWarning?: (message: string) => void;
  /**
   * Most notifications one `listen()` stream holds for a reader that has not taken them yet
   * (default 1000). When it is full the oldest is dropped, and `onWarning` says so once until
   * the reader catches up.
   */
  maxQueuedNotifications?: number;
  /**
   * Tasks, both designs (docs/tasks-client-draft.md). `false` turns them off; by default the
   * client calls tools as tasks where the server offers it (2026-07-28: the
   * `io.modelcontextprotocol/tasks` extension is declared on tools/call and tasks/*) and, on a
   * 2025-11-25 session, runs sampling/elicitation as tasks when the server asks.
   */
  tasks?: boolean | TaskOptions;
  /** Honour 2026-07-28 cache hints (ttlMs/cacheScope) with an in-memory response cache. */
  cache?: boolean;
  /**
   * Middleware around every request sent, the era detection's included, outermost first;
   * as if given to `client.use()` before connecting.
   */
  middleware?: ClientMiddleware[];
}

/** `ConnectOptions.tasks`. */
export interface TaskOptions {
  /** Call tools as tasks: 2025-11-25 task augmentation, the 2026-07-28 extension declared (default true). */
  call?: boolean;
  /**
   * 2025-11-25: declare `capabilities.tasks` for the handlers present (onSample, onElicit) and
   * run a request that carries `task` in the background, serving tasks/get, tasks/result,
   * tasks/list and tasks/cancel (default true).
   */
  receive?: boolean;
  /** Between polls when the server suggests no interval; and what this client suggests as a receiver (default 1000 ms). */
  pollIntervalMs?: number;
  /** Receiver: the longest task lifetime granted, and the one given when the server asks for none (default one hour). */
  maxTtlMs?: number;
  /** Receiver: most tasks running at once; one more is refused with -32603 (default 16). */
  maxRunning?: number;
}
