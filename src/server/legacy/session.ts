/**
 * A handshake-era session: what `initialize` negotiated, the client's log level and
 * resource subscriptions, in-flight requests (for cancellation) and the server's own
 * pending requests to the client. Kept lean: many may be open at once.
 */
import { JanusError, McpError } from '../../protocol/errors.js';
import type { JsonRpcResponse, RequestId } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../protocol/types.js';
import type { LegacyVersion } from '../../protocol/versions.js';
import type { Inbound, LegacySession, SessionHost } from '../inbound.js';
import type { Abortable } from '../cancel.js';

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** In-flight requests; tells a waiter when the last one settles (graceful stdio shutdown). */
export class InflightMap extends Map<RequestId, Abortable> {
  private idle: (() => void) | undefined;
  override delete(id: RequestId): boolean {
    const removed = super.delete(id);
    if (removed && this.size === 0 && this.idle) {
      const idle = this.idle;
      this.idle = undefined;
      idle();
    }
    return removed;
  }
  /** Resolves once nothing is in flight. */
  settled(): Promise<void> {
    return this.size === 0 ? Promise.resolve() : new Promise((r) => (this.idle = r));
  }
}

export class Session implements LegacySession {
  readonly id: string;
  protocolVersion: LegacyVersion | undefined;
  initialized = false;
  closed = false;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities = {};
  logLevel: LoggingLevel | undefined;
  subscriptions: Set<string> | undefined;
  /** Inbound requests in flight, by id, so `notifications/cancelled` can abort them. */
  readonly inflight = new InflightMap();
  private pending: Map<RequestId, Pending> | undefined;
  private nextId = 0;
  private closeHooks: Array<(s: Session) => void> = [];

  constructor(readonly host: SessionHost, onClose?: (s: Session) => void) {
    this.id = crypto.randomUUID();
    if (onClose) this.closeHooks.push(onClose);
  }

  /** Runs once the session closes (immediately if it already has). */
  onClosed(hook: (s: Session) => void): void {
    if (this.closed) hook(this);
    else this.closeHooks.push(hook);
  }

  /** Sends a server-to-client request on `via` (the stream of the request that caused it) and awaits the answer. */
  request(method: string, params: Record<string, unknown>, via: Inbound | undefined, signal: AbortSignal, timeoutMs = 60_000): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new JanusError('TRANSPORT_CLOSED', 'session closed'));
    const id = this.nextId++;
    this.pending ??= new Map();
    const pending = this.pending;
    return new Promise((resolve, reject) => {
      const done = () => {
        pending.delete(id);
        if (entry.timer) clearTimeout(entry.timer);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(new JanusError('ABORTED', `${method} aborted`, { cause: signal.reason }));
      };
      const entry: Pending = {
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
        timer: setTimeout(() => {
          done();
          reject(new JanusError('TIMEOUT', `${method}: no answer from the client within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      pending.set(id, entry);
      const message = { jsonrpc: '2.0' as const, id, method, params };
      (via ?? this.host).send(message);
    });
  }

  /** Routes the client's answer to one of our requests; false if none was waiting. */
  settle(response: JsonRpcResponse): boolean {
    const id = response.id;
    const entry = id === undefined || id === null ? undefined : this.pending?.get(id);
    if (!entry) return false;
    if ('error' in response) entry.reject(McpError.from(response.error));
    else entry.resolve(response.result);
    return true;
  }

  /** The peer can no longer answer (it stopped sending): fail our requests to it now. */
  failPending(reason: string): void {
    if (this.pending) for (const p of [...this.pending.values()]) p.reject(new JanusError('TRANSPORT_CLOSED', reason));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.inflight.values()) c.abort(new JanusError('TRANSPORT_CLOSED', 'session closed'));
    this.inflight.clear();
    this.failPending('session closed');
    const hooks = this.closeHooks;
    this.closeHooks = [];
    for (const hook of hooks) hook(this);
    this.host.onSessionClosed?.();
  }
}
