// Served with Bun.serve on a free loopback port, printed for the test to read.
import { createHandler } from './server.mjs';

const served = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createHandler() });
console.log(`listening on http://127.0.0.1:${served.port}/`);
