/** The resource-server side of MCP authorization, as `janus-mcp/http` serves it (option `auth`). */
export { ResourceServer } from './resource-server.js';
export type { Verdict, Refusal } from './resource-server.js';
export type { ResourceServerOptions, TokenVerifier, IntrospectionOptions } from './options.js';
export { InvalidTokenError, AuthorizationServerUnavailable } from './errors.js';
export { describedPath, metadataUrl, PRM_PREFIX } from './resource-url.js';
