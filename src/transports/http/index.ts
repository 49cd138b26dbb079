/**
 * `janus-mcp/http`: the Streamable HTTP endpoint (every revision's rules, chosen per request)
 * and the deprecated 2024-11-05 HTTP+SSE transport, for Node (`createNodeHandler`,
 * `serveHttp`) and for web-standard runtimes (`createFetchHandler`). No static `node:`
 * imports anywhere in this entry: `serveHttp` loads `node:http` when called.
 */
export { createNodeHandler, serveHttp } from './node.js';
export type { NodeHandler, ServeHttpOptions, HttpServerHandle } from './node.js';
export { createFetchHandler } from './fetch.js';
export type { FetchHandler } from './fetch.js';
export type { HttpHandlerOptions } from './options.js';
export { InMemoryEventStore } from './event-store.js';
export type { EventStore, InMemoryEventStoreOptions } from './event-store.js';
