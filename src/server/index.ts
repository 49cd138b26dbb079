/**
 * `janus-mcp/server`: define once, serve every MCP revision. The authoring API: what a server
 * author writes against. Errors come from `janus-mcp/errors`; the interfaces for transport,
 * cluster and extension authors from `janus-mcp/spi`.
 *
 * @module janus-mcp/server
 */
export { createServer, Server } from './server.js';
export type { ServerOptions, Registration } from './server.js';
export type { Connection } from './connect.js';
export { isInputRequired } from './middleware.js';
export type {
  Middleware,
  MethodMiddleware,
  MiddlewareContext,
  MethodContext,
  Next,
  ServerMethod,
  ServerMethods,
} from './middleware.js';
export { consoleLogger } from './logger.js';
export type { Logger, LogLevel, LogFields, ConsoleLoggerOptions } from './logger.js';
export { logRequests } from './request-log.js';
export type { LogRequestsOptions, RequestOutcome } from './request-log.js';
export type {
  RequestContext,
  AskOptions,
  ElicitFormRequest,
  ElicitAnswer,
  ElicitUrlRequest,
  ClientView,
  SessionHandle,
  AuthInfo,
} from './context.js';
export type { SessionHooks, SessionOptions } from './session-hooks.js';
export type { ToolConfig, ToolHandler, ToolReturn, StructuredReturn, ToolErrorResult } from './features/tools.js';
export { toolError } from './features/tools.js';
export type { ServerLimits } from './limits.js';
export type { PromptConfig, PromptHandler, PromptReturn } from './features/prompts.js';
export type { ResourceConfig, ResourceReader, ResourceReturn, TemplateConfig, TemplateReader, CacheHint } from './features/resources.js';
export type { Completer, CompletionRequest } from './features/completion.js';
export type { RawShape, SchemaInput, StandardSchema, JsonSchemaObject } from './schema/types.js';
export { prepareJsonSchema } from './schema/json-schema.js';
export type { RequestStateOptions } from './modern/request-state.js';
export type { TransportKind } from './transport-seam.js';
