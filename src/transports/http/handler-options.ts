/**
 * The options of an HTTP handler: the endpoint's own (options.ts) and, where the build has the
 * handshake era, that era's (sessions, event store, HTTP+SSE: legacy/options.ts, by eras.ts).
 */
import type { LegacyHttpOptions } from './eras.js';
import type { EndpointOptions } from './options.js';

/**
 * How the Streamable HTTP endpoint serves, for `createNodeHandler`, `serveHttp` and
 * `createFetchHandler`: its path, the hosts and origins it accepts, its bounds, OAuth (`auth`),
 * and, for the handshake era, its sessions, event store and the 2024-11-05 HTTP+SSE transport.
 */
export interface HttpHandlerOptions extends EndpointOptions, LegacyHttpOptions {}
