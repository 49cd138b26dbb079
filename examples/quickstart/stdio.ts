/** `node dist/examples/quickstart/stdio.js`: the greeter over stdio. */
import { serveStdio } from '../../src/stdio/index.js';
import { server } from './greeter.js';

await serveStdio(server);
