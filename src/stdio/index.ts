/**
 * `janus-mcp/stdio`: serve a server over this process's stdin/stdout.
 *
 * @module janus-mcp/stdio
 */
import type { Connection, Server } from '../server/index.js';
import { StdioTransport, type StdioTransportOptions } from '../transports/stdio.js';

export { StdioTransport } from '../transports/stdio.js';
export type { StdioTransportOptions } from '../transports/stdio.js';

/**
 * Serves `server` on stdin/stdout until stdin ends. Nothing but protocol messages goes to
 * stdout: diagnostics go to stderr. While the client does not read stdout, stdin is not read
 * (`pauseInputWhileBlocked`), and notifications past `maxBufferedBytes` are dropped, its listen
 * subscriptions ended.
 */
export function serveStdio(server: Server, options: StdioTransportOptions = {}): Promise<Connection> {
  return server.connect(new StdioTransport({ pauseInputWhileBlocked: true, ...options }));
}
