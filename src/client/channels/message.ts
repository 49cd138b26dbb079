/** A client channel over a message transport (stdio, in-memory): one shared stream, correlated by id. */
import { JanusError } from '../../protocol/errors.js';
import { classify, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from '../../protocol/jsonrpc.js';
import type { Transport } from '../../transports/transport.js';
import { ChannelError, type ChannelHandlers, type ClientChannel, type SendOptions } from '../channel.js';

export class MessageChannel implements ClientChannel {
  private readonly pending = new Map<RequestId, { resolve(r: JsonRpcResponse): void; reject(e: Error): void }>();
  private handlers: ChannelHandlers | undefined;
  private closed = false;

  constructor(private readonly transport: Transport, readonly kind: 'stdio' | 'memory' = 'stdio', private readonly onClosed?: () => Promise<void>) {}

  async start(handlers: ChannelHandlers): Promise<void> {
    this.handlers = handlers;
    await this.transport.start({
      onMessage: (value) => {
        for (const v of Array.isArray(value) ? value : [value]) this.receive(v);
      },
      onParseError: () => {},
      onClose: () => this.fail(new ChannelError('the server closed the connection')),
      onError: () => {},
    });
  }

  private receive(value: unknown): void {
    const c = classify(value);
    if (c.kind === 'response') {
      const id = c.message.id;
      const entry = id === undefined || id === null ? undefined : this.pending.get(id);
      if (entry) {
        this.pending.delete(id!);
        entry.resolve(c.message);
        return;
      }
    }
    if (c.kind !== 'invalid') this.handlers?.onMessage(c.message);
  }

  request(request: JsonRpcRequest, options?: SendOptions): Promise<JsonRpcResponse> {
    if (this.closed) return Promise.reject(new ChannelError('connection closed'));
    return new Promise((resolve, reject) => {
      const signal = options?.signal;
      const onAbort = () => {
        this.pending.delete(request.id);
        reject(new JanusError('ABORTED', `${request.method} aborted`, { cause: signal?.reason }));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(request.id, {
        resolve: (r) => (signal?.removeEventListener('abort', onAbort), resolve(r)),
        reject: (e) => (signal?.removeEventListener('abort', onAbort), reject(e)),
      });
      this.transport.send(request).catch((e: unknown) => {
        this.pending.delete(request.id);
        reject(new ChannelError(`could not send ${request.method}`, undefined, undefined, { cause: e }));
      });
    });
  }

  async send(message: JsonRpcNotification | JsonRpcResponse): Promise<void> {
    if (this.closed) throw new ChannelError('connection closed');
    await this.transport.send(message);
  }

  private fail(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    this.handlers?.onClose(error);
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.fail(new ChannelError('connection closed'));
      await this.transport.close();
    }
    await this.onClosed?.();
  }
}
