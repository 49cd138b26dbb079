/**
 * `janus-mcp/stdio`: serve a server over this process's stdin/stdout.
 *
 * @module janus-mcp/stdio
 */
import type { Connection, Server } from '../server/index.js';
import { StdioTransport, type StdioTransportOptions } from '../transports/stdio.js';
import { guardStdout } from '../transports/stdout-guard.js';

export { StdioTransport } from '../transports/stdio.js';
export type { StdioTransportOptions } from '../transports/stdio.js';

/**
 * Serves `server` on stdin/stdout until stdin ends. Nothing but protocol messages goes to
 * stdout: diagnostics go to stderr, and so do `console.log` and other writes to stdout while it
 * runs (`protectStdout`, default true). While the client does not read stdout, stdin is not read
 * (`pauseInputWhileBlocked`), and notifications past `maxBufferedBytes` are dropped, its listen
 * subscriptions ended.
 */
export function serveStdio(server: Server, options: StdioTransportOptions = {}): Promise<Connection> {
  return server.connect(new StdioTransport({ pauseInputWhileBlocked: true, ...options }));
}

/**
 * Sends what writes to `process.stdout` (`console.log` and the like) to stderr from now on, as
 * `serveStdio` does while it runs, with one line on stderr the first time. For a program that
 * prints before it serves (while its modules load, say). Returns the function that restores
 * stdout, once `serveStdio` has released it too.
 */
export function protectStdout(): () => void {
  const guard = guardStdout();
  return () => guard.release();
}
