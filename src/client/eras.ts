/**
 * The one file of the client that names the handshake era: its session start (legacy/: the
 * `initialize` handshake, with the HTTP+SSE fallback), its connection, its task design and the
 * session half of a Streamable HTTP channel. A build without the
 * era (`npm run build:modern-only`) puts eras.modern-only.ts here instead: such a client speaks
 * only to servers of the stateless era.
 */
import type { HandshakeClient } from './handshake-party.js';
import { handshake, LegacyConnection, LegacyTaskDriver, LegacyTaskReceiver, StreamableHttpSession } from './legacy/index.js';

export const HANDSHAKE_CLIENT: HandshakeClient | undefined = {
  handshake,
  Connection: LegacyConnection,
  tasks: {
    driver: (port, first, options, progress) => new LegacyTaskDriver(port, first, options, progress),
    receiver: (settings) => new LegacyTaskReceiver(settings),
  },
  httpSession: (host) => new StreamableHttpSession(host),
};
