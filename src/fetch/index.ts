/**
 * `janus-mcp/fetch`: the Streamable HTTP endpoint (every revision's rules, chosen per
 * request) as a web-standard `(request: Request) => Promise<Response>`, for Bun, Deno,
 * Cloudflare Workers and any Fetch API runtime. Neither this entry nor its types reach a
 * `node:` module; on Node, `janus-mcp/http` adds `createNodeHandler` and `serveHttp`.
 *
 * @module janus-mcp/fetch
 */
export { createFetchHandler } from '../transports/http/fetch.js';
export type { FetchHandler, FetchHandlerOptions } from '../transports/http/fetch.js';
export type { HttpHandlerOptions } from '../transports/http/handler-options.js';
export type { ResourceServerOptions, TokenVerifier, IntrospectionOptions } from '../auth/server/options.js';
export { InMemoryEventStore } from '../transports/http/eras.js';
export type { EventStore, InMemoryEventStoreOptions } from '../transports/http/eras.js';
