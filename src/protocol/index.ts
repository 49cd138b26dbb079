/**
 * `janus-mcp/protocol`: revisions, error codes, wire types and envelopes. Runtime-neutral.
 *
 * @module janus-mcp/protocol
 */
export * from './versions.js';
export * from './meta.js';
export * from './jsonrpc.js';
export * from './types.js';
export * from './x-mcp-header.js';
export { CLIENT_REQUEST_METHODS, requestFacts } from './methods.js';
export type {
  CacheableMethod,
  ClientNotificationMethod,
  ClientRequestMethod,
  ClientRequestTypes,
  RequestFacts,
  ServerNotificationMethod,
  ServerRequestMethod,
  ServerRequestTypes,
} from './methods.js';
