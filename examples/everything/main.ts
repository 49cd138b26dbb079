/**
 * Runs the fixture: `PORT=3901 node dist/examples/everything/main.js` serves
 * http://127.0.0.1:3901/mcp (both eras on one URL); `--stdio` serves stdin/stdout. SIGTERM and
 * SIGINT drain it gracefully (shutdown.ts). With `REDIS_URL` its shared state lives on that
 * Redis (janus-mcp/redis), so several instances on several ports serve one deployment; the
 * Redis code is loaded only then. With `AUTH_ISSUER` it requires OAuth access tokens from that
 * authorization server (auth.ts); the OAuth libraries are loaded only then.
 */
import { serveHttp } from '../../src/transports/http/index.js';
import { serveStdio } from '../../src/stdio/index.js';
import { authFromEnv } from './auth.js';
import { clusterOnRedis } from './redis.js';
import { createEverythingServer } from './server.js';
import { drainHttpOnSignal, stdinEndedOnSignal } from './shutdown.js';

const cluster = process.env.REDIS_URL ? await clusterOnRedis(process.env.REDIS_URL) : undefined;
const server = createEverythingServer({ cluster });

if (process.argv.includes('--stdio')) {
  await serveStdio(server, { input: stdinEndedOnSignal() });
} else {
  const port = Number(process.env.PORT ?? 3901);
  const host = process.env.HOST ?? '127.0.0.1';
  const auth = authFromEnv(process.env, host, port);
  const http = await serveHttp(server, { port, host, ...(auth !== undefined ? { auth } : {}) });
  console.error(`janus-everything listening on ${http.url.href}`);
  drainHttpOnSignal(server, http);
}
