/**
 * One worker of examples/workers: the everything server with its shared state on `REDIS_URL`,
 * served on `PORT`/`HOST`. Under `node:cluster` the primary holds the listening socket and
 * hands each new connection to one of the workers; SIGTERM drains this worker (shutdown.ts).
 */
import { serveHttp } from '../../src/transports/http/index.js';
import { clusterOnRedis } from '../everything/redis.js';
import { createEverythingServer } from '../everything/server.js';
import { drainHttpOnSignal } from '../everything/shutdown.js';

export async function runWorker(): Promise<void> {
  // The primary refuses to start without REDIS_URL: workers that kept their state to
  // themselves would refuse each other's requestState.
  const cluster = await clusterOnRedis(process.env.REDIS_URL!);
  const server = createEverythingServer({ cluster });
  const http = await serveHttp(server, { port: Number(process.env.PORT ?? 3901), host: process.env.HOST ?? '127.0.0.1' });
  drainHttpOnSignal(server, http);
  // stderr only: stdout stays free, as for every Janus server.
  console.error(`janus-everything worker ${process.pid} listening on ${http.url.href}`);
}
