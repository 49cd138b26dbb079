/**
 * A scripted MCP client for server tests. It sends exactly what a test tells it to,
 * records every message the server writes (`received`, in order), and checks EVERY one
 * against the official schema of the revision in use (test/support/wire-schema.ts).
 * A message that fails the schema, or anything on stdout that is not a protocol message,
 * is a violation: it rejects the request or `next()` waiting for it, and `close()` throws
 * listing all of them, so no test passes while the server wrote something invalid.
 *
 * Two transports share this interface: `MemoryPeer` (in-memory pair, for fine-grained
 * behaviour tests) and `StdioPeer` in ./stdio-peer.ts (a real child process).
 */
import { AssertionError } from 'node:assert';
import type { Connection, Server } from '../../src/server/index.js';
import { createMemoryPair, type Transport } from '../../src/testing/index.js';
import { META_CAPS, META_CLIENT, META_VERSION, MODERN, type Id, type Msg } from './common.js';
import { truncateJson, wireValidator } from './wire-schema.js';

export const CLIENT_INFO = { name: 'janus-test-peer', version: '1.0.0' };

/** The `_meta` every 2026-07-28 request carries (basic/index.mdx §Per-request protocol fields). */
export function modernMeta(capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { [META_VERSION]: MODERN, [META_CAPS]: capabilities, [META_CLIENT]: CLIENT_INFO, ...extra };
}

export interface PeerOptions {
  /** Revision the server's messages are validated against until `initialize` negotiates one (default 2025-11-25). */
  revision?: string;
  /** Default timeout of `request` and `next` (ms). */
  timeoutMs?: number;
}

interface Waiter {
  test: (m: Msg) => boolean;
  resolve: (m: Msg) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export abstract class TestPeer {
  /** Revision used to validate what the server sends; `initialize` results switch it. */
  revision: string;
  /** Every message the server wrote, in order (batches as arrays). */
  readonly received: unknown[] = [];
  /** Schema and framing violations seen so far. */
  readonly violations: string[] = [];
  /** Server requests, notifications and unclaimed responses not yet taken by `next()`. */
  readonly inbox: Msg[] = [];
  protected readonly timeoutMs: number;
  private nextId = 1;
  private readonly sentMethods = new Map<Id, string>();
  private readonly pending = new Map<Id, Waiter>();
  private readonly waiters = new Set<Waiter>();
  private readonly allowances: Array<{ test: (m: Msg) => boolean; why: string }> = [];

  constructor(options: PeerOptions = {}) {
    this.revision = options.revision ?? '2025-11-25';
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /** Writes one JSON value (message or batch) to the server. */
  protected abstract write(value: unknown): void;
  /** Ends the connection; throws if any violation was recorded. */
  abstract close(): Promise<void>;

  /** A fresh request id (numbers, counting from 1). */
  id(): number {
    return this.nextId++;
  }

  /** Sends a request and resolves with the whole response message (result or error). */
  request(method: string, params?: Record<string, unknown>, opts: { id?: Id; timeoutMs?: number } = {}): Promise<Msg> {
    const id = opts.id ?? this.id();
    const message: Msg = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const answer = this.expectResponse(id, method, opts.timeoutMs);
    this.write(message);
    return answer;
  }

  /** Sends a request and returns its result; an error response throws with the error attached. */
  async call(method: string, params?: Record<string, unknown>): Promise<Msg> {
    const r = await this.request(method, params);
    if (r.error) throw Object.assign(new Error(`${method} failed: ${JSON.stringify(r.error)}`), { rpc: r.error });
    return r.result;
  }

  /** A 2026-07-28 request: `params._meta` gets the modern envelope (plus `meta` extras). */
  modern(
    method: string,
    params: Record<string, unknown> = {},
    opts: { caps?: Record<string, unknown>; meta?: Record<string, unknown>; id?: Id } = {},
  ): Promise<Msg> {
    const { _meta, ...rest } = params as { _meta?: Record<string, unknown> };
    return this.request(method, { ...rest, _meta: { ...modernMeta(opts.caps, opts.meta), ..._meta } }, { id: opts.id });
  }

  notify(method: string, params?: Record<string, unknown>): void {
    const message: Msg = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.write(message);
  }

  /** Answers a server-to-client request. */
  respond(id: Id, result: Record<string, unknown>): void {
    this.write({ jsonrpc: '2.0', id, result });
  }

  respondError(id: Id, error: { code: number; message: string; data?: unknown }): void {
    this.write({ jsonrpc: '2.0', id, error });
  }

  /**
   * Sends any JSON value as is (invalid envelopes, batches). Requests inside it are
   * remembered, so their responses are validated against the right result type; their
   * responses land in the inbox.
   */
  sendRaw(value: unknown): void {
    for (const m of Array.isArray(value) ? value : [value]) {
      if (m && typeof m === 'object' && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')) {
        this.sentMethods.set(m.id, m.method);
      }
    }
    this.write(value);
  }

  /** Resolves with the response to `id` (a request sent some other way, e.g. `sendRaw`). */
  expectResponse(id: Id, method?: string, timeoutMs = this.timeoutMs): Promise<Msg> {
    if (method !== undefined) this.sentMethods.set(id, method);
    const queued = this.inbox.findIndex((m) => isResponse(m) && m.id === id);
    if (queued >= 0) return Promise.resolve(this.inbox.splice(queued, 1)[0]!);
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        test: () => true,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.pending.delete(id);
          reject(
            new Error(
              `no response to ${method ?? 'request'} id ${JSON.stringify(id)} within ${timeoutMs} ms; received: ${truncateJson(this.received)}`,
            ),
          );
        }, timeoutMs),
      };
      this.pending.set(id, w);
    });
  }

  /** The next server message (request, notification or unclaimed response) matching `test`. */
  next(test: (m: Msg) => boolean = () => true, timeoutMs = this.timeoutMs): Promise<Msg> {
    const i = this.inbox.findIndex(test);
    if (i >= 0) return Promise.resolve(this.inbox.splice(i, 1)[0]!);
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        test,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(w);
          reject(new Error(`no matching server message within ${timeoutMs} ms; inbox: ${truncateJson(this.inbox)}`));
        }, timeoutMs),
      };
      this.waiters.add(w);
    });
  }

  /** Removes and returns every inbox message matching `test`. */
  take(test: (m: Msg) => boolean): Msg[] {
    const out: Msg[] = [];
    for (let i = 0; i < this.inbox.length; ) {
      if (test(this.inbox[i]!)) out.push(...this.inbox.splice(i, 1));
      else i++;
    }
    return out;
  }

  /**
   * Waits until the server has written everything caused by what was sent so far: a
   * round trip of a request it answers at once (ping on the handshake era, server/discover
   * on the stateless era; both are written after anything queued before them).
   */
  async barrier(): Promise<void> {
    const r = this.revision === MODERN ? await this.modern('server/discover') : await this.request('ping');
    if (r.error) throw new Error(`barrier failed: ${JSON.stringify(r.error)}`);
  }

  /** After a barrier, asserts the server sent no message matching `test`. */
  async assertNone(test: (m: Msg) => boolean, what: string): Promise<void> {
    await this.barrier();
    const found = this.inbox.filter(test);
    if (found.length) throw new AssertionError({ message: `expected no ${what}, got ${truncateJson(found)}`, actual: found, expected: [] });
  }

  /** Lets messages matching `test` through without schema validation (say why; use rarely). */
  allowInvalid(test: (m: Msg) => boolean, why: string): void {
    this.allowances.push({ test, why });
  }

  protected violation(text: string): void {
    this.violations.push(text);
  }

  /** Throws if anything invalid was received. */
  assertClean(): void {
    if (this.violations.length) {
      throw new AssertionError({
        message: `the server broke the wire contract:\n${this.violations.join('\n')}`,
        actual: this.violations,
        expected: [],
      });
    }
  }

  protected failAll(error: Error): void {
    for (const [id, w] of this.pending) {
      clearTimeout(w.timer);
      this.pending.delete(id);
      w.reject(error);
    }
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      this.waiters.delete(w);
      w.reject(error);
    }
  }

  /** Called with each value the server wrote. */
  protected receive(value: unknown): void {
    this.received.push(value);
    const schemaError = this.validate(value);
    for (const m of Array.isArray(value) ? value : [value]) this.route(m as Msg, schemaError);
  }

  private route(m: Msg, schemaError: Error | undefined): void {
    if (isResponse(m) && m.id !== undefined && m.id !== null) {
      const w = this.pending.get(m.id);
      if (w) {
        this.pending.delete(m.id);
        clearTimeout(w.timer);
        if (schemaError) w.reject(schemaError);
        else w.resolve(m);
        return;
      }
    }
    for (const w of this.waiters) {
      if (w.test(m)) {
        this.waiters.delete(w);
        clearTimeout(w.timer);
        if (schemaError) w.reject(schemaError);
        else w.resolve(m);
        return;
      }
    }
    this.inbox.push(m);
  }

  private validate(value: unknown): Error | undefined {
    const v = wireValidator();
    const first = (Array.isArray(value) ? value[0] : value) as Msg | undefined;
    if (first && this.allowances.some((a) => a.test(first))) return undefined;
    // The initialize result is checked against the revision it negotiates.
    if (
      first &&
      isResponse(first) &&
      this.sentMethods.get(first.id) === 'initialize' &&
      typeof first.result?.protocolVersion === 'string'
    ) {
      this.revision = first.result.protocolVersion;
    }
    let revision = this.revision;
    // An error whose request id could not be read (parse error, invalid envelope, refused
    // batch) has no valid shape before 2025-11-25: those schemas require an id and allow no
    // null. 2025-11-25 is the first to spell "unknown id" (by omitting it); check it there.
    if (first && !Array.isArray(value) && 'error' in first && first.id === undefined && revision < '2025-11-25') revision = '2025-11-25';
    const errors = v.checkServerMessage(revision, value, {
      requestMethod: (id) => (id === undefined ? undefined : this.sentMethods.get(id)),
    });
    if (!errors.length) return undefined;
    const text = `schema [${revision}]: ${errors.join('; ')} in ${truncateJson(value)}`;
    this.violation(text);
    return new AssertionError({ message: text, actual: errors, expected: [] });
  }
}

export function isResponse(m: Msg): boolean {
  return m !== null && typeof m === 'object' && !('method' in m) && ('result' in m || 'error' in m);
}

/** A peer on an in-memory pair, connected with `server.connect(transport)`. */
export class MemoryPeer extends TestPeer {
  private transport!: Transport;
  connection!: Connection;
  private closed = false;

  static async connect(server: Server, options: PeerOptions = {}): Promise<MemoryPeer> {
    const peer = new MemoryPeer(options);
    const [serverSide, clientSide] = createMemoryPair();
    peer.transport = clientSide;
    peer.connection = await server.connect(serverSide);
    await clientSide.start({
      onMessage: (m) => peer.receive(m),
      onClose: () => peer.failAll(new Error('in-memory transport closed')),
    });
    return peer;
  }

  protected write(value: unknown): void {
    void this.transport.send(value as never);
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      await this.connection.close();
    }
    this.assertClean();
  }
}

/** Legacy handshake: initialize (checked), then notifications/initialized. Returns the initialize result. */
export async function handshake(peer: TestPeer, protocolVersion: string, capabilities: Record<string, unknown> = {}): Promise<Msg> {
  const r = await peer.request('initialize', { protocolVersion, capabilities, clientInfo: CLIENT_INFO });
  if (r.error) throw new Error(`initialize failed: ${JSON.stringify(r.error)}`);
  peer.notify('notifications/initialized');
  return r.result;
}

/**
 * Runs `fn` with a MemoryPeer on `server` (after the legacy handshake at the peer's revision
 * when `handshake` gives the client capabilities), then closes the peer, which fails on any
 * wire violation, and the server.
 */
export async function withMemoryPeer<S extends Server>(
  server: S,
  fn: (peer: MemoryPeer, server: S) => Promise<void>,
  options: PeerOptions & { handshake?: Record<string, unknown> } = {},
): Promise<void> {
  const peer = await MemoryPeer.connect(server, options);
  try {
    if (options.handshake) await handshake(peer, peer.revision, options.handshake);
    await fn(peer, server);
  } finally {
    await peer.close();
    server.close();
  }
}
