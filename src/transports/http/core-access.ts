/**
 * How the HTTP transport reaches a server's internal core: `coreOf(server)` for a `Server`;
 * a bare `ServerCore` (tests, custom cores) is accepted as is.
 */
import type { ServerCore } from '../../server/core-api.js';
import { coreOf, Server } from '../../server/server.js';

function looksLikeCore(v: unknown): v is ServerCore {
  return (
    typeof v === 'object' && v !== null &&
    typeof (v as ServerCore).handle === 'function' &&
    typeof (v as ServerCore).openSession === 'function' &&
    typeof (v as ServerCore).toolHeaderParams === 'function'
  );
}

export function resolveCore(target: Server | ServerCore): ServerCore {
  if (target instanceof Server) return coreOf(target);
  if (looksLikeCore(target)) return target;
  throw new TypeError('janus-mcp/http: expected a Server');
}
