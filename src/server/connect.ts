/**
 * Binds a message transport (stdio, in-memory) to the core. The channel has one legacy
 * session, opened up front, whose id also keys cancellation for modern requests on the
 * same channel (stdio cancels by notification).
 */
import { ErrorCode, JanusError } from '../protocol/errors.js';
import { errorResponse, isRequestId, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import { SENT, type Transport } from '../transports/transport.js';
import type { Core } from './core.js';
import type { Inbound, LegacySession, TransportKind } from './transport-seam.js';

export interface Connection {
  readonly session: LegacySession;
  /** Resolves when the transport closed. */
  readonly closed: Promise<void>;
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
  const session = core.openSession({ send });
  const inbound: Inbound = { transport: kind, send, sendBatch: send, signal: controller.signal, session };
  let markClosed!: () => void;
  const closed = new Promise<void>((r) => (markClosed = r));
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    void transport.close();
    controller.abort(new JanusError('TRANSPORT_CLOSED', 'transport closed'));
    session.close();
    markClosed();
  };
  // The peer stopped sending (stdin EOF): listen streams end, requests already in flight
  // still get their answers, then the session closes.
  // server.close() closes the session; the transport goes with it.
  session.onClosed(() => finish());
  const onClose = () => {
    core.endListeners((i) => i === inbound);
    session.failPending('the client closed its input');
    void session.inflight.settled().then(finish);
    // A handler that never settles (one waiting on ctx.signal) must not keep the channel open.
    setTimeout(finish, graceMs).unref?.();
  };
  await transport.start({
    onMessage: (m) => void core.handle(m, inbound),
    onParseError: () => send(errorResponse(null, { code: ErrorCode.ParseError, message: 'Parse error' })),
    onClose,
    onError: (e) => core.reportError(e),
  });
  return {
    session,
    closed,
    close: async () => {
      await transport.close();
      finish();
    },
  };
}
