/** `janus-mcp/testing`: fixtures for tests. */
export { createMemoryPair } from '../transports/memory.js';
export type { Transport, TransportHandlers } from '../transports/transport.js';
