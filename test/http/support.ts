/**
 * Test support for the HTTP transport: a fake ServerCore with scripted methods, and raw HTTP
 * helpers on real sockets that read SSE with the shared parser (test/support/http.ts).
 */
import { taskNameField } from '../../src/extensions/tasks/methods.js';
import http, { type IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  classify,
  errorResponse,
  resultResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../src/protocol/jsonrpc.js';
import { META } from '../../src/protocol/meta.js';
import { isLegacyVersion, type LegacyVersion } from '../../src/protocol/versions.js';
import { provideSessionSeam, type LegacySession, type SessionHost } from '../../src/server/legacy/index.js';
import type { ChannelHost, HeaderParam, Inbound, ServerChannel, ServerCore } from '../../src/spi/index.js';
import { serveHttp, type HttpServerHandle, type ServeHttpOptions } from '../../src/transports/http/index.js';
import { MODERN } from '../support/common.js';
import { JSON_HEADERS, SseParser, type SseEvent } from '../support/http.js';
import { delay } from '../support/wait.js';

export class FakeSession implements LegacySession {
  protocolVersion: LegacyVersion | undefined;
  initialized = false;
  closed = false;
  constructor(
    readonly id: string,
    readonly host: SessionHost,
  ) {}
  close(): void {
    this.closed = true;
  }
  inputEnded(): Promise<void> {
    return Promise.resolve();
  }
  onClosed(): void {}
}

/** The session a scripted request came on, if any. */
const sessionOf = (inbound: Inbound): FakeSession | undefined => (inbound.channel instanceof FakeSession ? inbound.channel : undefined);

/** What the fake core saw of one request. */
export interface Seen {
  method: string;
  id: string | number;
  inbound: Inbound;
  aborted?: boolean;
  /** Set once the scripted method has sent everything it sends (its response last). */
  finished?: boolean;
}

/**
 * Scripted methods: `notify` (n notifications, then the result), `close-stream` (calls
 * closeStream, waits, then answers), `ask` (a server-to-client request, answers with the
 * reply), `wait` (waits up to params.ms or until aborted), `error` (params.code), `silent`
 * (no response). `initialize` negotiates params.protocolVersion (fails on params.fail). Without
 * a session and without `_meta`, requests get -32602; `unknown/method` gets -32601.
 */
export class FakeCore implements ServerCore {
  readonly name = 'fake';
  readonly sessions: FakeSession[] = [];
  readonly seen: Seen[] = [];
  readonly notifications: JsonRpcMessage[] = [];
  readonly errors: unknown[] = [];
  readonly toolParams: Record<string, HeaderParam[]> = {
    x_header_tool: [
      { name: 'Region', property: 'region', path: ['region'], type: 'string' },
      { name: 'Level', property: 'level', path: ['level'], type: 'integer' },
      { name: 'Verbose', property: 'verbose', path: ['verbose'], type: 'boolean' },
    ],
    plain_tool: [],
  };
  readonly #pending = new Map<string | number, (m: JsonRpcResponse) => void>();
  #n = 0;

  constructor() {
    // The HTTP transport reaches a core's handshake-era sessions through the era's session seam.
    provideSessionSeam(this, {
      openSession: (host) => this.#open(host),
      adoptSession: undefined,
      instanceId: undefined,
      eventStore: undefined,
      sessions: new Map(),
    });
  }

  #open(host: SessionHost): LegacySession {
    const s = new FakeSession(`core-${++this.#n}`, host);
    this.sessions.push(s);
    return s;
  }

  openChannel(host: ChannelHost): ServerChannel {
    return this.#open(host);
  }

  /** Matchers the transport asked to end listen streams with (the fake core opens none). */
  readonly endListenerCalls: Array<(inbound: Inbound) => boolean> = [];
  endListeners(match: (inbound: Inbound) => boolean): void {
    this.endListenerCalls.push(match);
  }

  toolHeaderParams(name: string): readonly HeaderParam[] | undefined {
    return this.toolParams[name];
  }

  /** As a core with the tasks extension: its tasks/* requests name their task in Mcp-Name. */
  mcpNameField(method: string): string | undefined {
    return taskNameField(method);
  }

  reportError(e: unknown): void {
    this.errors.push(e);
  }

  async handle(payload: unknown, inbound: Inbound): Promise<void> {
    if (Array.isArray(payload)) {
      const v = sessionOf(inbound)?.protocolVersion;
      if (v !== '2025-03-26') {
        const refusal = errorResponse(null, { code: -32600, message: 'batches are not supported' });
        return inbound.refuseBatch ? inbound.refuseBatch(refusal) : inbound.send(refusal);
      }
      for (const m of payload) {
        const c = classify(m);
        if (c.kind !== 'request') continue;
        if (c.message.method === 'notify')
          inbound.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'b', progress: 1 } });
        inbound.send(resultResponse(c.message.id, { echo: c.message.method }));
      }
      return;
    }
    const c = classify(payload);
    if (c.kind === 'invalid') return inbound.send(errorResponse(c.id, { code: -32600, message: c.reason }));
    if (c.kind === 'notification') {
      this.notifications.push(c.message);
      const session = sessionOf(inbound);
      if (c.message.method === 'notifications/initialized' && session) session.initialized = true;
      return;
    }
    if (c.kind === 'response') {
      this.#pending.get(c.message.id as string)?.(c.message);
      return;
    }
    const req = c.message;
    const p = req.params ?? {};
    const seen: Seen = { method: req.method, id: req.id, inbound };
    this.seen.push(seen);
    const modern = inbound.channel === undefined;
    if (modern && req.method !== 'wait' && (typeof p._meta !== 'object' || p._meta === null || !(META.protocolVersion in p._meta))) {
      return inbound.send(errorResponse(req.id, { code: -32602, message: 'missing _meta' }));
    }
    await this.#script(req, inbound, seen);
    seen.finished = true;
  }

  async #script(req: JsonRpcRequest, inbound: Inbound, seen: Seen): Promise<void> {
    const p = req.params ?? {};
    switch (req.method) {
      case 'initialize': {
        if (p.fail) return inbound.send(errorResponse(req.id, { code: -32602, message: 'no' }));
        const v = isLegacyVersion(p.protocolVersion) ? p.protocolVersion : '2025-11-25';
        sessionOf(inbound)!.protocolVersion = v;
        return inbound.send(resultResponse(req.id, { protocolVersion: v, capabilities: {}, serverInfo: { name: 'fake', version: '1' } }));
      }
      case 'notify': {
        const n = typeof p.n === 'number' ? p.n : 2;
        for (let i = 0; i < n; i++) {
          inbound.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: i } });
          await delay(5);
        }
        return inbound.send(resultResponse(req.id, { done: n }));
      }
      case 'close-stream': {
        if (p.before) inbound.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'before' } });
        inbound.closeStream?.();
        await delay(typeof p.ms === 'number' ? p.ms : 50);
        inbound.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } });
        return inbound.send(resultResponse(req.id, { reconnected: true }));
      }
      case 'ask': {
        const answer = new Promise<JsonRpcResponse>((resolve) => this.#pending.set('s1', resolve));
        inbound.send({ jsonrpc: '2.0', id: 's1', method: 'roots/list', params: {} });
        const reply = await answer;
        return inbound.send(resultResponse(req.id, { answer: 'result' in reply ? reply.result : null }));
      }
      case 'wait': {
        const signal = inbound.signal;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, typeof p.ms === 'number' ? p.ms : 300);
          signal?.addEventListener('abort', () => {
            clearTimeout(t);
            resolve();
          });
        });
        seen.aborted = signal?.aborted ?? false;
        return inbound.send(resultResponse(req.id, { waited: true }));
      }
      case 'error':
        return inbound.send(errorResponse(req.id, { code: typeof p.code === 'number' ? p.code : -32603, message: 'scripted' }));
      case 'silent':
        return;
      case 'unknown/method':
        return inbound.send(errorResponse(req.id, { code: -32601, message: 'Method not found' }));
      default:
        return inbound.send(resultResponse(req.id, { echo: req.method }));
    }
  }
}

// ---------------------------------------------------------------------------------------
// HTTP helpers

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface Req {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  path?: string;
}

function toRequestOptions(url: URL, r: Req): http.RequestOptions {
  return {
    hostname: url.hostname,
    port: url.port,
    path: r.path ?? url.pathname + url.search,
    method: r.method ?? 'POST',
    headers: r.headers,
  };
}

function bodyText(body: unknown): string | undefined {
  return body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
}

/** One request, whole answer. */
export function send(url: URL, r: Req = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const text = bodyText(r.body);
    const req = http.request(toRequestOptions(url, r), (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () => {
        let json: unknown;
        try {
          json = data === '' ? undefined : JSON.parse(data);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: data, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

export function post(url: URL, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return send(url, { body, headers: { ...JSON_HEADERS, ...headers } });
}

/** An open streamed response, read event by event. */
export class SseReader {
  readonly events: SseEvent[] = [];
  ended = false;
  readonly #parser = new SseParser();
  #waiters: Array<() => void> = [];
  constructor(
    readonly res: http.IncomingMessage,
    readonly req: http.ClientRequest,
  ) {
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      this.events.push(...this.#parser.push(c));
      this.#wake();
    });
    res.on('end', () => this.#done());
    res.on('close', () => this.#done());
    res.on('error', () => this.#done());
  }
  get status(): number {
    return this.res.statusCode ?? 0;
  }
  #done(): void {
    this.ended = true;
    this.#wake();
  }
  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }
  /** Waits until `n` events arrived (or the stream ended). */
  waitFor(n: number, timeoutMs = 5000): Promise<SseEvent[]> {
    return this.#until(
      () => this.events.length >= n,
      () => `${n} events (got ${this.events.length})`,
      timeoutMs,
    );
  }
  waitEnd(timeoutMs = 5000): Promise<SseEvent[]> {
    return this.#until(
      () => false,
      () => 'the stream to end',
      timeoutMs,
    );
  }
  /** Resolves with the events once `enough()` holds or the stream ended, woken by each chunk. */
  async #until(enough: () => boolean, what: () => string, timeoutMs: number): Promise<SseEvent[]> {
    const deadline = performance.now() + timeoutMs;
    while (!enough() && !this.ended) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
    return this.events;
  }
  /** Messages (parsed data of `message` events). */
  messages(): JsonRpcMessage[] {
    return this.events.filter((e) => e.data !== '' && e.event === 'message').map((e) => JSON.parse(e.data));
  }
  close(): void {
    this.req.destroy();
    this.res.destroy();
  }
}

/** Sends a request and returns it without waiting (to disconnect mid-flight). */
export function fire(url: URL, r: Req = {}): http.ClientRequest {
  const req = http.request(toRequestOptions(url, r), (res) => res.resume());
  req.on('error', () => undefined);
  req.end(bodyText(r.body));
  return req;
}

/** Opens a request and resolves once the response headers are in (body read as SSE). */
export function open(url: URL, r: Req = {}): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = http.request(toRequestOptions(url, r), (res) => resolve(new SseReader(res, req)));
    req.on('error', reject);
    req.end(bodyText(r.body));
  });
}

// ---------------------------------------------------------------------------------------
// fixtures

export async function start(core: ServerCore, options: ServeHttpOptions = {}): Promise<HttpServerHandle> {
  return serveHttp(core, { keepAliveMs: 0, ...options });
}

export function modernParams(extra: Record<string, unknown> = {}, version = MODERN): Record<string, unknown> {
  return { ...extra, _meta: { [META.protocolVersion]: version, [META.clientCapabilities]: {} } };
}

export function modernRequest(method: string, extra: Record<string, unknown> = {}, id: number | string = 1) {
  return { jsonrpc: '2.0', id, method, params: modernParams(extra) };
}

/** A modern request for method `x` whose JSON is exactly `bytes` long (ASCII padding in a parameter), for body limits. */
export function modernRequestOfSize(bytes: number): string {
  const bare = JSON.stringify(modernRequest('x', { pad: '' })).length;
  return JSON.stringify(modernRequest('x', { pad: 'x'.repeat(bytes - bare) }));
}

export function modernHeaders(method: string, name?: string): Record<string, string> {
  const h: Record<string, string> = { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (name !== undefined) h['mcp-name'] = name;
  return h;
}

/** Runs the legacy handshake; returns the session id. */
export async function initialize(url: URL, protocolVersion = '2025-11-25'): Promise<string> {
  const r = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const sid = r.headers['mcp-session-id'];
  if (r.status !== 200 || typeof sid !== 'string') throw new Error(`initialize failed: ${r.status} ${r.text}`);
  const n = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': sid, 'mcp-protocol-version': protocolVersion },
  );
  if (n.status !== 202) throw new Error(`initialized failed: ${n.status}`);
  return sid;
}

export function sessionHeaders(sid: string, version = '2025-11-25'): Record<string, string> {
  return { ...JSON_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': version };
}
