/**
 * `janus-mcp/testing`: test your server the way a client sees it. `connectInMemory` joins a
 * server and a client in memory and records the wire; `MessageRecorder` records any
 * transport; `createMemoryPair` is the bare transport pair. Runtime-neutral.
 *
 * @module janus-mcp/testing
 */
export { connectInMemory } from './in-memory.js';
export type { InMemoryConnection } from './in-memory.js';
export { MessageRecorder } from './recorder.js';
export type { RecordedMessage, Sender } from './recorder.js';
export { createMemoryPair } from '../transports/memory.js';
export type { Transport, TransportHandlers } from '../transports/transport.js';
