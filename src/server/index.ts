/** `janus-mcp/server`: define once, serve every MCP revision. */
export { createServer, Server, coreOf } from './server.js';
export type { ServerOptions, Registration } from './server.js';
export type { Connection } from './connect.js';
export { isInputRequired } from './middleware.js';
export { errorCodeFor } from './wire-error.js';
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
// The seam for transport authors: what a transport drives (src/server/transport-seam.ts).
export type { ServerCore, Inbound, SessionHost, LegacySession, TransportKind, HeaderParam } from './transport-seam.js';
export type {
  RequestContext,
  AskOptions,
  ElicitFormRequest,
  ElicitAnswer,
  ElicitUrlRequest,
  ClientView,
  SessionHandle,
  AuthInfo,
  TaskHandle,
} from './context.js';
export type { SessionHooks, SessionOptions } from './session-hooks.js';
export type {
  ToolConfig,
  ToolHandler,
  ToolReturn,
  StructuredReturn,
  ToolErrorResult,
  TaskSupport,
  ToolTaskOptions,
} from './features/tools.js';
// Extensions (extension.ts) and the built-in tasks extension (src/extensions/tasks).
export type { ServerExtension, ExtensionMethod, ExtensionHost, CallSite, ListenGrant, ToolCallHook } from './extension.js';
export { verbatim, clientDeclares } from './extension.js';
export type { TasksOptions } from '../extensions/tasks/extension.js';
export type { TaskStore, TaskRecord, TaskStatus, TaskChange, TaskSignal, TaskError } from '../extensions/tasks/store.js';
export { InMemoryTaskStore } from '../extensions/tasks/memory-store.js';
export type { InMemoryTaskStoreOptions } from '../extensions/tasks/memory-store.js';
export type { AppToolConfig, AppToolPatch, AppToolRegistration, AppUi, AppHtml } from '../extensions/apps/app-tool.js';
export type { AppCsp, AppPermissions, AppResourceMeta, AppToolMeta, AppVisibility } from '../extensions/apps/wire.js';
export { APPS_EXTENSION, APP_MIME_TYPE } from '../extensions/apps/wire.js';
export { toolError } from './features/tools.js';
export { ToolError } from './features/tool-error.js';
export type { ServerLimits } from './limits.js';
export type { PromptConfig, PromptHandler, PromptReturn } from './features/prompts.js';
export type { ResourceConfig, ResourceReader, ResourceReturn, TemplateConfig, TemplateReader, CacheHint } from './features/resources.js';
export type { Completer, CompletionRequest } from './features/completion.js';
export type { SchemaInput, StandardSchema, JsonSchemaObject } from './schema/types.js';
export type { RequestStateOptions } from './modern/request-state.js';
export type { Secret, SecretRing } from './modern/secret-ring.js';
export type { RequestStateStore, InMemoryRequestStateStoreOptions } from './modern/request-state-store.js';
export { InMemoryRequestStateStore } from './modern/request-state-store.js';
export type { Backplane, ServerEvent } from './backplane.js';
export type { Cluster } from './cluster.js';
export type {
  SessionStore,
  SessionRecord,
  NewSessionRecord,
  SessionSignal,
  SubscribeOutcome,
  EventStore,
  ListKind,
} from './session-store.js';
export { LocalBackplane } from './backplane.js';
export { McpError, JanusError, ErrorCode, UrlElicitationRequiredError } from '../protocol/errors.js';
export type { UrlElicitation } from '../protocol/errors.js';
export { prepareSkills, readSkillDirectory, SKILLS_EXTENSION } from '../extensions/skills/index.js';
export { prepareJsonSchema } from './schema/json-schema.js';
export type {
  SkillsOptions,
  SkillRegistration,
  SkillFiles,
  SkillFileContent,
  SkillEntry,
  SkillResourceEntry,
  SkillFrontmatter,
} from '../extensions/skills/index.js';
