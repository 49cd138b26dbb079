/** An in-memory transport pair: what one side sends, the other receives (as a JSON copy, like a wire). */
import { JanusError } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import { SENT, type Transport, type TransportHandlers } from './transport.js';

class MemoryTransport implements Transport {
  readonly kind = 'memory';
  peer!: MemoryTransport;
  private handlers: TransportHandlers | undefined;
  private queue: unknown[] = [];
  closed = false;
  private closing = false;

  async start(handlers: TransportHandlers): Promise<void> {
    this.handlers = handlers;
    const queued = this.queue;
    this.queue = [];
    for (const m of queued) handlers.onMessage(m);
  }

  deliver(value: unknown): void {
    if (this.closed) return;
    if (this.handlers) this.handlers.onMessage(value);
    else this.queue.push(value);
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.closing) return Promise.reject(new JanusError('TRANSPORT_CLOSED', 'in-memory transport is closed'));
    let copy: unknown;
    try {
      copy = JSON.parse(JSON.stringify(message));
    } catch (e) {
      return Promise.reject(e);
    }
    // Deliver asynchronously, as a real wire would.
    queueMicrotask(() => this.peer.deliver(copy));
    return SENT;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    // Messages already sent still arrive, as on a real wire: deliveries are queued first.
    await new Promise<void>((r) => queueMicrotask(r));
    this.closed = true;
    this.handlers?.onClose?.();
    void this.peer.close();
  }
}

/**
 * Two connected in-memory transports: what one sends, the other receives. For tests, and for a
 * server and a client in one process.
 *
 * @example
 * ```ts
 * const [serverSide, clientSide] = createMemoryPair();
 * await server.connect(serverSide);
 * const client = await connect(clientSide);
 * ```
 */
export function createMemoryPair(): [Transport, Transport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
