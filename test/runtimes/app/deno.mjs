// Served with Deno.serve on a free loopback port, printed for the test to read.
import { createHandler } from './server.mjs';

Deno.serve(
  { hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}/`) },
  createHandler(),
);
