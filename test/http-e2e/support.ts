/**
 * End-to-end support: the REAL server (`serveHttp` on 127.0.0.1, port 0) driven by a raw HTTP
 * peer over real loopback sockets. No janus client code is involved: requests are written with
 * `node:http` and SSE is parsed by hand (raw.ts).
 *
 * Every JSON-RPC message the server emits — a JSON body, a `message` event on a POST's SSE
 * stream, on the standalone GET stream or on the 2024-11-05 HTTP+SSE stream — is checked on
 * arrival against the official schema of the peer's revision (test/support/wire-schema.ts),
 * responses against the result type of the request method they answer. A violation is
 * recorded, makes the read that meets it throw, and makes `assertClean()` throw.
 */
import { sessionSeamOf } from '../../src/server/legacy/index.js';
import { mcpNameField } from '../../src/protocol/request-headers.js';
import { taskNameField } from '../../src/extensions/tasks/methods.js';
import { AssertionError } from 'node:assert';
import type { IncomingHttpHeaders } from 'node:http';
import { createEverythingServer } from '../fixtures/everything/server.js';
import type { Core } from '../../src/server/core.js';
import type { Server } from '../../src/server/index.js';
import { coreOf } from '../../src/server/server.js';
import { serveHttp, type HttpServerHandle, type ServeHttpOptions } from '../../src/transports/http/index.js';
import { MODERN, type Id, type Msg } from '../support/common.js';
import { JSON_HEADERS } from '../support/http.js';
import { modernMeta } from '../support/peer.js';
import { truncateJson, wireValidator } from '../support/wire-schema.js';
import { raw, WAIT_MS, type RawInit, type RawReply, type SseEvent } from './raw.js';

export { raw, RawReply, type RawInit, type SseEvent } from './raw.js';

// ---------------------------------------------------------------------------------------------
// A served server

export interface Served {
  readonly server: Server;
  readonly http: HttpServerHandle;
  readonly url: URL;
  /** The server's core, for observable counts: `hub.size` (listen streams). */
  readonly core: Core;
  /** The handshake-era sessions the server holds, by id (its era's session seam). */
  readonly sessions: ReadonlyMap<string, unknown>;
  /** Everything the server reported through its `onError` (transport and handler failures). */
  readonly errors: unknown[];
  /** Stops everything; throws if the server reported errors (unless `allowErrors`). */
  close(opts?: { allowErrors?: boolean }): Promise<void>;
}

/**
 * Serves `server` (default: a fresh everything fixture) on 127.0.0.1:0. Its `onError` sink is
 * redirected into `errors`, so "no unhandled errors" is checked by every test's `close()`.
 */
export async function serve(server: Server = createEverythingServer(), options: ServeHttpOptions = {}): Promise<Served> {
  const errors: unknown[] = [];
  const core = coreOf(server) as unknown as Core;
  const config = (core as unknown as { config?: { onError?: (e: unknown) => void } }).config;
  if (typeof config?.onError !== 'function') throw new Error('e2e support: Core.config.onError not found (internals changed)');
  config.onError = (e: unknown) => void errors.push(e);
  const handle = await serveHttp(server, options);
  let closed = false;
  return {
    server,
    http: handle,
    url: handle.url,
    core,
    get sessions() {
      return sessionSeamOf(core)?.sessions ?? new Map();
    },
    errors,
    async close(opts = {}) {
      if (closed) return;
      closed = true;
      await handle.close();
      server.close();
      if (!opts.allowErrors && errors.length > 0) {
        throw new AssertionError({
          message: `the server reported errors: ${errors.map((e) => (e instanceof Error ? e.stack : String(e))).join('\n')}`,
        });
      }
    },
  };
}

/** Open TCP connections of the HTTP server. */
export function connections(s: Served): Promise<number> {
  return new Promise((resolve, reject) => s.http.httpServer.getConnections((e, n) => (e ? reject(e) : resolve(n))));
}

// ---------------------------------------------------------------------------------------------
// The checking peer

/** What one POST produced, fully read: the status, the headers and every message in order. */
export interface Outcome {
  status: number;
  headers: IncomingHttpHeaders;
  /** `json`, `sse` or `empty` (no body). */
  kind: 'json' | 'sse' | 'empty';
  /** JSON body, or the `message` events with data, in order. */
  messages: Msg[];
  /** All SSE events, priming events included. */
  events: SseEvent[];
}

export class HttpPeer {
  /** The revision every server message is validated against. */
  revision: string;
  /** Legacy Streamable HTTP session, once `initialize` returned one. */
  sessionId: string | undefined;
  readonly url: URL;
  readonly violations: string[] = [];
  readonly #sent = new Map<Id, string>();
  #nextId = 1;

  constructor(url: URL, revision: string) {
    this.url = url;
    this.revision = revision;
  }

  id(): number {
    return this.#nextId++;
  }

  /** Headers of this peer's legacy requests: session id, and the version header from 2025-06-18 on. */
  sessionHeaders(): Record<string, string | undefined> {
    return {
      'mcp-session-id': this.sessionId,
      'mcp-protocol-version':
        this.sessionId !== undefined && this.revision >= '2025-06-18' && this.revision !== MODERN ? this.revision : undefined,
    };
  }

  /** Remembers the methods of the requests in `body`, to check the responses' result types. */
  remember(body: unknown): void {
    for (const m of Array.isArray(body) ? body : [body]) {
      if (m && typeof m === 'object' && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number'))
        this.#sent.set(m.id, m.method);
    }
  }

  /** Validates one server value (message or batch); records and returns the violation. */
  check(value: unknown): string | undefined {
    const v = wireValidator();
    let revision = this.revision;
    // An error whose request id could not be known has no valid shape before 2025-11-25 (those
    // schemas require an id and allow no null); 2025-11-25 first spells it by omission. In a
    // batch, such an item is checked on its own that way, the rest as the batch.
    const unknownId = (m: unknown) => m !== null && typeof m === 'object' && 'error' in m && (m as Msg).id === undefined;
    if (Array.isArray(value) && revision < '2025-11-25' && value.some(unknownId)) {
      const rest = value.filter((m) => !unknownId(m));
      const problem = value.filter(unknownId).reduce<string | undefined>((found, m) => found ?? this.check(m), undefined);
      return problem ?? (rest.length > 0 ? this.check(rest) : undefined);
    }
    if (!Array.isArray(value) && unknownId(value) && revision < '2025-11-25') revision = '2025-11-25';
    const errors = v.checkServerMessage(revision, value, { requestMethod: (id) => (id === undefined ? undefined : this.#sent.get(id)) });
    if (errors.length === 0) return undefined;
    const text = `schema [${revision}]: ${errors.join('; ')} in ${truncateJson(value)}`;
    this.violations.push(text);
    return text;
  }

  /** Sends a raw HTTP request; SSE `message` events are parsed and checked as they arrive. */
  async send(init: RawInit & { url?: URL | string }): Promise<RawReply> {
    if (init.body !== undefined) {
      try {
        this.remember(JSON.parse(init.body));
      } catch {
        // not JSON: nothing to remember
      }
    }
    return raw(init.url ?? this.url, init, (e) => {
      if (e.event !== 'message' || e.data === '') return;
      let m: unknown;
      try {
        m = JSON.parse(e.data);
      } catch {
        this.violations.push(`SSE data is not JSON: ${e.data}`);
        return;
      }
      e.message = m as Msg;
      const problem = this.check(m);
      if (problem !== undefined) e.violation = problem;
    });
  }

  /** POSTs a JSON value and returns the open reply (an SSE stream may still be running). */
  open(body: unknown, headers: Record<string, string | undefined> = {}, url?: URL | string): Promise<RawReply> {
    return this.send({
      method: 'POST',
      url,
      body: JSON.stringify(body),
      headers: { ...JSON_HEADERS, ...this.sessionHeaders(), ...headers },
    });
  }

  /** Reads a reply to its end and checks a JSON body. */
  async finish(r: RawReply): Promise<Outcome> {
    if (r.isSse) {
      const events = await r.rest();
      this.assertClean();
      return { status: r.status, headers: r.headers, kind: 'sse', events, messages: events.flatMap((e) => (e.message ? [e.message] : [])) };
    }
    const text = await r.text();
    if (text === '') return { status: r.status, headers: r.headers, kind: 'empty', events: [], messages: [] };
    let body: Msg;
    try {
      body = JSON.parse(text) as Msg;
    } catch {
      throw new AssertionError({ message: `status ${r.status}: body is not JSON: ${text}` });
    }
    if (!String(r.headers['content-type']).startsWith('application/json')) {
      throw new AssertionError({ message: `a JSON body with content-type ${String(r.headers['content-type'])}` });
    }
    const problem = this.check(body);
    if (problem !== undefined) throw new AssertionError({ message: problem });
    return { status: r.status, headers: r.headers, kind: 'json', events: [], messages: [body] };
  }

  /** POSTs and reads everything. */
  async post(body: unknown, headers: Record<string, string | undefined> = {}, url?: URL | string): Promise<Outcome> {
    return this.finish(await this.open(body, headers, url));
  }

  /** A JSON-RPC request (fresh id unless given) POSTed with this peer's session headers. */
  request(
    method: string,
    params?: Record<string, unknown>,
    opts: { id?: Id; headers?: Record<string, string | undefined> } = {},
  ): Promise<Outcome> {
    return this.post(rpc(opts.id ?? this.id(), method, params), opts.headers);
  }

  notify(method: string, params?: Record<string, unknown>): Promise<Outcome> {
    return this.post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Legacy handshake over Streamable HTTP; keeps the session id. Returns the initialize outcome. */
  async initialize(capabilities: Record<string, unknown> = {}): Promise<Outcome> {
    const o = await this.request('initialize', {
      protocolVersion: this.revision,
      capabilities,
      clientInfo: { name: 'janus-e2e', version: '1.0.0' },
    });
    const sid = o.headers['mcp-session-id'];
    if (typeof sid !== 'string') throw new AssertionError({ message: `initialize returned no Mcp-Session-Id: ${truncateJson(o)}` });
    this.sessionId = sid;
    const n = await this.notify('notifications/initialized');
    if (n.status !== 202) throw new AssertionError({ message: `notifications/initialized got ${n.status}` });
    return o;
  }

  /** The 2026-07-28 request body: params plus the `_meta` envelope (and `meta` extras). */
  modernBody(
    method: string,
    params: Record<string, unknown> = {},
    opts: { id?: Id; caps?: Record<string, unknown>; meta?: Record<string, unknown> } = {},
  ): Msg {
    return rpc(opts.id ?? this.id(), method, {
      ...params,
      _meta: { ...modernMeta(opts.caps, opts.meta), ...(params._meta as object | undefined) },
    });
  }

  /** The request metadata headers of 2026-07-28 (streamable-http.mdx §Standard Request Headers). */
  modernHeaders(body: Msg): Record<string, string | undefined> {
    const field = mcpNameField(body.method, taskNameField);
    const name = field === undefined ? undefined : body.params?.[field];
    return { 'mcp-protocol-version': MODERN, 'mcp-method': body.method, 'mcp-name': typeof name === 'string' ? name : undefined };
  }

  /** Opens a 2026-07-28 request with the full envelope and headers (`headers` override them). */
  openModern(
    method: string,
    params?: Record<string, unknown>,
    opts: { id?: Id; caps?: Record<string, unknown>; meta?: Record<string, unknown>; headers?: Record<string, string | undefined> } = {},
  ): Promise<RawReply> {
    const body = this.modernBody(method, params, opts);
    return this.open(body, { ...this.modernHeaders(body), ...opts.headers });
  }

  async modern(method: string, params?: Record<string, unknown>, opts: Parameters<HttpPeer['openModern']>[2] = {}): Promise<Outcome> {
    return this.finish(await this.openModern(method, params, opts));
  }

  /** Opens a GET stream (standalone, resumed or HTTP+SSE). */
  get(headers: Record<string, string | undefined> = {}): Promise<RawReply> {
    return this.send({ method: 'GET', headers: { accept: 'text/event-stream', ...this.sessionHeaders(), ...headers } });
  }

  /** Throws if any server message broke the schema. */
  assertClean(): void {
    if (this.violations.length > 0) {
      throw new AssertionError({
        message: `the server broke the wire contract:\n${this.violations.join('\n')}`,
        actual: this.violations,
        expected: [],
      });
    }
  }
}

export function rpc(id: Id, method: string, params?: Record<string, unknown>): Msg {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** The next `message` event that carries a JSON-RPC message (priming events are skipped). */
export async function nextMessage(r: RawReply, ms = WAIT_MS): Promise<Msg> {
  for (;;) {
    const e = await r.next(ms);
    if (e.violation !== undefined) throw new AssertionError({ message: e.violation });
    if (e.message !== undefined) return e.message;
  }
}
