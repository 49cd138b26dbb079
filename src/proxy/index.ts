/**
 * `janus-mcp/proxy`: one upstream MCP server, of any revision, served to clients of every revision.
 *
 * @module janus-mcp/proxy
 */
export { createProxy } from './proxy.js';
export type { Proxy, ProxyOptions } from './proxy.js';
export { CONTINUATION_RELAY } from './relay.js';
export type { ContinuationRelay } from './relay.js';
