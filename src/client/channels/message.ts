/** A client channel over a message transport (stdio, in-memory): one shared stream, correlated by id. */
import { classify, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../../protocol/jsonrpc.js';
import { PendingRequests } from '../../jsonrpc/pending.js';
import { excerpt, NotJsonLineError } from '../../transports/not-json.js';
import type { Transport } from '../../transports/transport.js';
import { ChannelError, type ChannelHandlers, type ClientChannel, type SendOptions } from '../channel.js';

export interface MessageChannelOptions {
  /** Runs after `close()` has closed the transport (the spawn channel ends its child here). */
  onClosed?: () => Promise<void>;
  /**
   * Why the server went away, given the methods that were waiting for an answer: the error
   * every pending and later request rejects with. The spawn channel waits for the exit
   * status and stderr here. Default: "the server closed the connection".
   */
  closeReason?: (waitingFor: string[]) => Promise<Error>;
}

export class MessageChannel implements ClientChannel {
  /** Requests sent and not yet answered: responses are matched to them by id. */
  private readonly pending = new PendingRequests<JsonRpcResponse>();
  private handlers: ChannelHandlers | undefined;
  private closed = false;
  /** Set when the server went away (not by our close()): the error everything now rejects with. */
  private lost: Promise<Error> | undefined;

  constructor(
    private readonly transport: Transport,
    readonly kind: 'stdio' | 'memory' = 'stdio',
    private readonly options: MessageChannelOptions = {},
  ) {}

  async start(handlers: ChannelHandlers): Promise<void> {
    this.handlers = handlers;
    await this.transport.start({
      onMessage: (value) => {
        for (const v of Array.isArray(value) ? value : [value]) this.receive(v);
      },
      // Dropped and said, and the channel goes on: a line that is not JSON (a server printing
      // on its stdout), or one over the line bound (the request it answered now waits for its timeout).
      onParseError: (e) => {
        if (e instanceof NotJsonLineError) this.notMessage(`${JSON.stringify(e.line)} is not JSON`);
        else if (!(e instanceof SyntaxError))
          this.handlers?.onWarning?.(`dropped a message from the server: ${e.message} (maxMessageBytes)`);
      },
      onClose: () => this.serverGone(),
      onError: () => {},
    });
  }

  private receive(value: unknown): void {
    const c = classify(value);
    if (c.kind === 'invalid') {
      const text = JSON.stringify(value) ?? String(value);
      this.notMessage(`${excerpt(text)} is not a JSON-RPC message (${c.reason})`);
      return;
    }
    this.handlers?.onActivity?.();
    if (c.kind === 'response' && this.pending.settle(c.message.id, c.message)) return;
    this.handlers?.onMessage(c.message);
  }

  /** A line from the server skipped: said once per line, since each is a mistake to find. */
  private notMessage(what: string): void {
    const where = this.kind === 'stdio' ? "on the server's stdout" : 'from the server';
    this.handlers?.onWarning?.(
      `skipped a line ${where}: ${what} (${this.kind === 'stdio' ? 'stdout must carry only MCP messages: a server logs on stderr' : 'only MCP messages are taken'})`,
    );
  }

  private serverGone(): void {
    if (this.closed || this.lost) return;
    const waitingFor = [...new Set(this.pending.methods())];
    const reason = this.options.closeReason?.(waitingFor) ?? Promise.resolve(new ChannelError('the server closed the connection'));
    this.lost = reason.catch((e: unknown) => (e instanceof Error ? e : new ChannelError(String(e))));
    void this.lost.then((e) => this.fail(e));
  }

  request(request: JsonRpcRequest, options?: SendOptions): Promise<JsonRpcResponse> {
    if (this.lost) return this.lost.then((e) => Promise.reject(e));
    if (this.closed) return Promise.reject(new ChannelError('connection closed'));
    const call = this.pending.start({ id: request.id, method: request.method, signal: options?.signal }, () =>
      this.transport.send(request).catch((e: unknown) => {
        // The server may be gone (a write to a dead child's stdin): that is the better story, told by fail().
        if (this.lost || this.closed) return;
        throw new ChannelError(`could not send ${request.method}`, undefined, undefined, { cause: e });
      }),
    );
    return call.promise;
  }

  async send(message: JsonRpcNotification | JsonRpcResponse): Promise<void> {
    if (this.lost) throw await this.lost;
    if (this.closed) throw new ChannelError('connection closed');
    await this.transport.send(message);
  }

  private fail(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.pending.rejectAll(error);
    this.handlers?.onClose(error);
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.fail(new ChannelError('connection closed'));
      await this.transport.close();
    }
    await this.options.onClosed?.();
  }
}
