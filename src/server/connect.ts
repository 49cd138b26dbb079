/**
 * Binds a message transport (stdio, in-memory) to the core as one channel (`core.openChannel`):
 * the requests in flight on it are cancelled by notification, in either era, and a
 * handshake-era client's session lives on it.
 */
import { ErrorCode, JanusError } from '../protocol/errors.js';
import { errorResponse, isRequestId, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import { SENT, type Transport } from '../transports/transport.js';
import type { Core } from './core.js';
import type { ServerChannel } from './channel.js';
import type { Inbound, TransportKind } from './transport-seam.js';

/**
 * A server bound to one message transport (`server.connect(transport)`, `serveStdio`): a
 * handshake-era client's session lives on it.
 */
export interface Connection {
  /** The channel the transport's messages come on (a handshake-era client's session, where that era is served). */
  readonly channel: ServerChannel;
  /** Resolves when the transport closed. */
  readonly closed: Promise<void>;
  /** Closes the transport and the channel: the session ends and its handlers abort. */
  close(): Promise<void>;
}

export async function connectTransport(
  core: Core,
  transport: Transport,
  kind: TransportKind = 'stdio',
  graceMs = 5000,
): Promise<Connection> {
  const controller = new AbortController();
  const failed = (m: JsonRpcMessage | JsonRpcMessage[]) => (e: unknown) => {
    core.reportError(new JanusError('TRANSPORT_CLOSED', 'write failed', { cause: e }));
    // An answer the transport could not encode (not a closed channel) is replaced, so the request still gets one.
    if (!(e instanceof JanusError) && !Array.isArray(m) && 'id' in m && !('method' in m) && isRequestId(m.id)) {
      transport.send(errorResponse(m.id, { code: ErrorCode.InternalError, message: 'Internal error' })).catch(() => {});
    }
  };
  const send = (m: JsonRpcMessage | JsonRpcMessage[]) => {
    if (controller.signal.aborted) return; // the channel is gone: late answers have nowhere to go
    const written = transport.send(m);
    if (written !== SENT) written.catch(failed(m));
  };
  const channel = core.openChannel({ send });
  const inbound: Inbound = { transport: kind, send, sendBatch: send, signal: controller.signal, channel };
  let markClosed!: () => void;
  const closed = new Promise<void>((r) => (markClosed = r));
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    void transport.close();
    controller.abort(new JanusError('TRANSPORT_CLOSED', 'transport closed'));
    const ending = channel.close();
    if (ending !== undefined) ending.catch((e: unknown) => core.reportError(e));
    markClosed();
  };
  // The peer stopped sending (stdin EOF): listen streams end, requests already in flight
  // still get their answers, then the session closes.
  // server.close() closes the channel; the transport goes with it.
  channel.onClosed(() => finish());
  const onClose = () => {
    core.endListeners((i) => i === inbound);
    void channel.inputEnded('the client closed its input').then(finish);
    // A handler that never settles (one waiting on ctx.signal) must not keep the channel open.
    setTimeout(finish, graceMs).unref?.();
  };
  await transport.start({
    onMessage: (m) => void core.handle(m, inbound),
    onParseError: () => send(errorResponse(null, { code: ErrorCode.ParseError, message: 'Parse error' })),
    onClose,
    onError: (e) => core.reportError(e),
    // The client stopped reading: its listen subscriptions end (answered, so it re-listens and
    // lists anew), since the events they would carry are dropped until it reads again.
    onOverflow: () => core.endListeners((i) => i === inbound),
  });
  return {
    channel,
    closed,
    close: async () => {
      await transport.close();
      finish();
    },
  };
}
