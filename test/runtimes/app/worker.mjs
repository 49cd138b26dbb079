// A Cloudflare module worker: the handler is made with the first request, as a Worker's is.
import { createHandler } from './server.mjs';

let handler;

export default {
  fetch(request) {
    handler ??= createHandler();
    return handler(request);
  },
};
