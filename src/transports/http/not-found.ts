/**
 * The 404 of a path that is not the MCP endpoint, alike in every adapter: a JSON-RPC error
 * (the 2026-07-28 clients read its message) naming the path asked for and the one this server
 * serves, so that a wrong URL says which URL is right. Runtime-neutral.
 */

/** The longest stretch of the requested path echoed back (the rest is elided). */
const MAX_ECHOED = 200;

export function notFoundBody(pathname: string, endpoint: string | false): string {
  const asked = pathname.length > MAX_ECHOED ? `${pathname.slice(0, MAX_ECHOED)}…` : pathname;
  const message =
    endpoint === false ? `Not an MCP endpoint: ${asked}` : `Not an MCP endpoint: ${asked}. This server's MCP endpoint is ${endpoint}`;
  return JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message } });
}
