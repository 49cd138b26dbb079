/**
 * One worker: the MCP server with its shared state on Redis (`janus-mcp/redis`), served on the
 * port node:cluster shares, and a graceful drain on SIGTERM (the primary passes it on):
 * 1. no new connections, and every answer from now on closes its connection, so keep-alive
 *    clients come back on a new one, which reaches a worker that is not stopping;
 * 2. 2026-07-28 listen streams end with their final result;
 * 3. the calls in flight finish, for at most DRAIN_MS;
 * 4. sessions and streams end, the Redis connections close, the process exits 0.
 * A 2025 session is not lost with its worker: its record is on Redis, and the next worker to
 * get one of its requests serves it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveHttp } from 'janus-mcp/http';
import { type RedisCluster, redisCluster } from 'janus-mcp/redis';
import { coreOf } from 'janus-mcp/spi';
import { fail, readConfig } from './config.js';
import { createWorkerServer } from './server.js';

export async function runWorker(): Promise<void> {
  const config = readConfig();
  let cluster: RedisCluster;
  try {
    // Every worker (and every machine running this) uses the same URL and prefix.
    cluster = await redisCluster({ url: config.redisUrl, prefix: 'workers-redis:' });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  const server = createWorkerServer(cluster);
  const http = await serveHttp(server, { port: config.port, host: config.host });

  const calls = new Set<ServerResponse>();
  let draining = false;
  let drained: (() => void) | undefined;
  const lastOnItsConnection = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };
  http.httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (draining) lastOnItsConnection(res);
    if (req.method !== 'POST') return; // a GET stream lasts as long as its session
    calls.add(res);
    res.once('close', () => {
      calls.delete(res);
      if (draining) http.httpServer.closeIdleConnections();
      if (calls.size === 0) drained?.();
    });
  });

  process.once('SIGTERM', async () => {
    draining = true;
    http.httpServer.close();
    for (const res of calls) lastOnItsConnection(res);
    coreOf(server).endListeners(() => true);
    if (calls.size > 0) {
      await new Promise<void>((resolve) => {
        drained = resolve;
        setTimeout(resolve, config.drainMs).unref();
      });
    }
    await http.close();
    await cluster.close();
    console.error(`workers-redis: worker ${process.pid} drained`);
    process.exit(0);
  });
  // Ctrl-C reaches every process of the group; the primary passes SIGTERM on, so the workers ignore SIGINT.
  process.on('SIGINT', () => {});

  // stderr only: stdout stays free.
  console.error(`workers-redis: worker ${process.pid} listening on ${http.url.href}`);
}
