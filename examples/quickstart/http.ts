/** `node dist/examples/quickstart/http.js`: the greeter at http://127.0.0.1:3000/mcp. */
import { serveHttp } from '../../src/transports/http/index.js';
import { server } from './greeter.js';

const http = await serveHttp(server, { port: Number(process.env.PORT ?? 3000) });
console.error(`greeter on ${http.url.href}`);
