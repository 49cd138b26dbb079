/**
 * Runs the fixture: `PORT=3901 node dist/examples/everything/main.js` serves
 * http://127.0.0.1:3901/mcp (both eras on one URL); `--stdio` serves stdin/stdout.
 */
import { serveHttp } from '../../src/transports/http/index.js';
import { serveStdio } from '../../src/stdio/index.js';
import { createEverythingServer } from './server.js';

const server = createEverythingServer();

if (process.argv.includes('--stdio')) {
  await serveStdio(server);
} else {
  const port = Number(process.env.PORT ?? 3901);
  const host = process.env.HOST ?? '127.0.0.1';
  const http = await serveHttp(server, { port, host });
  console.error(`janus-everything listening on ${http.url.href}`);
  const stop = () => {
    void http.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
