/**
 * The options of an HTTP handler: the endpoint's own (options.ts) and, where the build has the
 * handshake era, that era's (sessions, event store, HTTP+SSE: legacy/options.ts, by eras.ts).
 */
import type { LegacyHttpOptions } from './eras.js';
import type { EndpointOptions } from './options.js';

export interface HttpHandlerOptions extends EndpointOptions, LegacyHttpOptions {}
