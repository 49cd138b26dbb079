/**
 * Graceful shutdown of the example on SIGTERM or SIGINT (docs/reliability.md).
 * - HTTP: no new connections; 2026-07-28 listen streams end with their final result
 *   (subscriptions.mdx); the calls in flight finish, for at most `graceMs`; then sessions and
 *   their streams end (`close()` of the handle) and the process exits with code 0.
 * - stdio: the signal counts as the end of input, which is how a client ends a stdio session
 *   (lifecycle.mdx §Shutdown): calls in flight are answered, then the process exits.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { coreOf } from '../../src/spi/index.js';
import type { Server } from '../../src/server/index.js';
import type { HttpServerHandle } from '../../src/transports/http/index.js';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

export function drainHttpOnSignal(server: Server, http: HttpServerHandle, graceMs = 10_000): void {
  const calls = new Set<ServerResponse>();
  let draining = false;
  let idle: (() => void) | undefined;
  // While draining, every answer closes its connection, so a keep-alive client comes back on a
  // new one, which is refused: the calls in flight end and no new ones start.
  const lastOnItsConnection = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };
  http.httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (draining) lastOnItsConnection(res);
    if (req.method !== 'POST') return; // GET streams last as long as their session
    calls.add(res);
    res.once('close', () => {
      calls.delete(res);
      if (draining) http.httpServer.closeIdleConnections();
      if (calls.size === 0) idle?.();
    });
  });
  const stop = async () => {
    draining = true;
    http.httpServer.close(); // stop accepting connections
    for (const res of calls) lastOnItsConnection(res);
    coreOf(server).endListeners(() => true);
    if (calls.size > 0) {
      await new Promise<void>((resolve) => {
        idle = resolve;
        setTimeout(resolve, graceMs).unref();
      });
    }
    await http.close();
    process.exit(0);
  };
  for (const signal of SIGNALS) process.once(signal, () => void stop());
}

/** stdin as the stdio transport's input, ended (as if the client closed it) on SIGTERM or SIGINT. */
export function stdinEndedOnSignal(): PassThrough {
  const input = new PassThrough();
  process.stdin.pipe(input);
  const end = () => {
    process.stdin.unpipe(input);
    process.stdin.destroy();
    input.end();
  };
  for (const signal of SIGNALS) process.once(signal, end);
  return input;
}
