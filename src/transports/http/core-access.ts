/**
 * How the HTTP transport reaches a server: through the public seam (`coreOf(server)`, from
 * `janus-mcp/server`) for a `Server`; a bare `ServerCore` (tests, custom cores) is accepted
 * as is.
 */
import { coreOf, type ServerCore } from '../../spi/index.js';
import { Server } from '../../server/index.js';

function looksLikeCore(v: unknown): v is ServerCore {
  return (
    typeof v === 'object' &&
    v !== null &&
    'handle' in v &&
    typeof v.handle === 'function' &&
    'openChannel' in v &&
    typeof v.openChannel === 'function' &&
    'toolHeaderParams' in v &&
    typeof v.toolHeaderParams === 'function'
  );
}

export function resolveCore(target: Server | ServerCore): ServerCore {
  if (target instanceof Server) return coreOf(target);
  if (looksLikeCore(target)) return target;
  const got =
    target === null
      ? 'null'
      : typeof target === 'object'
        ? `an object without ${['handle', 'openChannel', 'toolHeaderParams'].filter((m) => !(m in target)).join(', ')}`
        : typeof target;
  throw new TypeError(`janus-mcp/http: expected a Server (createServer) or its core (coreOf(server)), got ${got}`);
}
