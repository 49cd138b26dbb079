/**
 * The standard test fixture: a Janus server and a Janus client joined by an in-memory
 * transport pair, with the wire recorded. No sockets, no processes; messages still cross as
 * JSON copies, asynchronously, as on a real wire.
 */
import { connect } from '../client/connect.js';
import type { Client } from '../client/client.js';
import type { ConnectOptions } from '../client/options.js';
import type { Server } from '../server/server.js';
import { createMemoryPair } from '../transports/memory.js';
import { MessageRecorder } from './recorder.js';

/**
 * What {@link connectInMemory} returns: the connected client and the record of every message
 * between it and the server.
 */
export interface InMemoryConnection {
  /** The client, connected to the server. */
  readonly client: Client;
  /** Every message between the two, in order. */
  readonly recorder: MessageRecorder;
  /** Closes the client and this connection (the server stays usable for others). */
  close(): Promise<void>;
}

/**
 * Connects a client to `server` in memory. The client detects the era as it would over stdio
 * (pass `{ era: 'legacy' }`, `{ era: 'modern' }` or a `protocolVersion` to choose one), and
 * takes every other `connect()` option (handlers for elicitation, sampling and roots included).
 */
export async function connectInMemory(server: Server, options: ConnectOptions = {}): Promise<InMemoryConnection> {
  const [clientSide, serverSide] = createMemoryPair();
  const recorder = new MessageRecorder();
  const connection = await server.connect(recorder.wrap(serverSide, 'server'));
  const client = await connect(clientSide, options);
  return {
    client,
    recorder,
    close: async () => {
      await client.close();
      await connection.close();
    },
  };
}
