/** `_meta` key names of 2026-07-28 (docs/2026-07-28/basic/index.mdx §_meta). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The extension identifier of the tasks extension (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
