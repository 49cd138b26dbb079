/** `janus-mcp/protocol`: revisions, error codes, wire types and envelopes. Runtime-neutral. */
export * from './versions.js';
export * from './errors.js';
export * from './meta.js';
export * from './jsonrpc.js';
export * from './types.js';
export * from './x-mcp-header.js';
