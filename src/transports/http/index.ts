/**
 * `janus-mcp/http`: the Streamable HTTP endpoint (every revision's rules, chosen per request)
 * and the deprecated 2024-11-05 HTTP+SSE transport, for Node (`createNodeHandler`,
 * `serveHttp`) and for web-standard runtimes (`createFetchHandler`). No static `node:`
 * imports anywhere in this entry: `serveHttp` loads `node:http` when called.
 *
 * @module janus-mcp/http
 */
export { createNodeHandler } from './node.js';
export type { NodeHandler, NodeHandlerOptions, ClientAddress } from './node.js';
export { serveHttp } from './serve-http.js';
export type { ServeHttpOptions, HttpServerHandle } from './serve-http.js';
export { createFetchHandler } from './fetch.js';
export type { FetchHandler, FetchHandlerOptions } from './fetch.js';
export type { HttpHandlerOptions } from './handler-options.js';
export type { ResourceServerOptions, TokenVerifier, IntrospectionOptions } from '../../auth/server/index.js';
export { InMemoryEventStore } from './eras.js';
export type { EventStore, InMemoryEventStoreOptions } from './eras.js';
