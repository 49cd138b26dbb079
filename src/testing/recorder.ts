/**
 * A message recorder: wraps a transport so that every JSON-RPC message crossing it, either
 * way, is kept in order. Tests assert the exact transcript a client and server exchanged.
 */
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { Transport } from '../transports/transport.js';

/** Who sent a recorded message. */
export type Sender = 'client' | 'server';

/** One message that crossed a recorded transport, and who sent it. */
export interface RecordedMessage {
  /** Who sent it. */
  readonly from: Sender;
  /** The message, as it crossed. */
  readonly message: JsonRpcMessage;
}

function hasMethod(m: JsonRpcMessage, method: string | undefined): boolean {
  return method === undefined || ('method' in m && m.method === method);
}

/**
 * Records the messages that cross a transport, in order, for tests to assert on the wire: wrap one
 * side's transport with `wrap`, then read `messages`, `fromClient()` or `fromServer()`.
 *
 * @example
 * ```ts
 * const { client, recorder } = await connectInMemory(server);
 * await client.callTool('greet', {});
 * assert.equal(recorder.fromClient('tools/call').length, 1);
 * ```
 */
export class MessageRecorder {
  /** Every message, in the order it crossed the transport. */
  readonly messages: RecordedMessage[] = [];

  /** Messages the client sent, optionally only requests/notifications of one method. */
  fromClient(method?: string): JsonRpcMessage[] {
    return this.pick('client', method);
  }

  /** Messages the server sent, optionally only requests/notifications of one method. */
  fromServer(method?: string): JsonRpcMessage[] {
    return this.pick('server', method);
  }

  /**
   * The transcript in short: `client: tools/call`, `server: notifications/progress`,
   * `server: result`, `server: error -32602`, one line per message.
   */
  transcript(): string[] {
    return this.messages.map(({ from, message: m }) => {
      const what = 'method' in m ? m.method : 'error' in m ? `error ${m.error.code}` : 'result';
      return `${from}: ${what}`;
    });
  }

  /** Forgets what was recorded so far. */
  clear(): void {
    this.messages.length = 0;
  }

  /**
   * Wraps the transport of one side (`side` is who owns it): what it sends is recorded as
   * from `side`, what it receives as from the other. Batches are recorded message by message.
   */
  wrap(transport: Transport, side: Sender): Transport {
    const other: Sender = side === 'client' ? 'server' : 'client';
    const record = (from: Sender, value: unknown) => {
      for (const message of Array.isArray(value) ? value : [value]) this.messages.push({ from, message: message as JsonRpcMessage });
    };
    return {
      kind: transport.kind,
      start: (handlers) =>
        transport.start({
          ...handlers,
          onMessage: (m) => {
            record(other, m);
            handlers.onMessage(m);
          },
        }),
      send: (m) => {
        record(side, m);
        return transport.send(m);
      },
      close: () => transport.close(),
    };
  }

  private pick(from: Sender, method: string | undefined): JsonRpcMessage[] {
    return this.messages.filter((r) => r.from === from && hasMethod(r.message, method)).map((r) => r.message);
  }
}
