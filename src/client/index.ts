/**
 * `janus-mcp/client`: connect to any MCP server, detect its era, speak the whole protocol.
 * Errors (`McpError`, `JanusError`, `ChannelError`, …) come from `janus-mcp/errors`.
 *
 * @module janus-mcp/client
 */
export { connect } from './connect.js';
export { Client } from './client.js';
export { SKILLS_EXTENSION } from './skills.js';
export type {
  SkillEntry,
  SkillResourceEntry,
  SkillFrontmatter,
  LoadedSkill,
  SkillFileContent,
} from './skills.js';
export type { ConnectOptions, Target, HandlerContext, SpawnOptions } from './options.js';
// A Target may be a message transport (one end of createMemoryPair(), a StdioTransport).
export type { Transport, TransportHandlers } from '../transports/transport.js';
export type { CallOptions, Progress } from './peer.js';
export { ToolTask } from './tasks/tool-task.js';
export type { ToolCallOptions } from './tasks/tool-calls.js';
export type { TaskSnapshot, TaskStatus } from './tasks/snapshot.js';
export type { TaskOptions } from './options.js';
export type {
  ClientMiddleware,
  ClientMethodMiddleware,
  ClientMiddlewareContext,
  ClientMethodContext,
  ClientNext,
  ClientMethod,
  ClientMethods,
} from './middleware.js';
export type { Verdict } from './known-server.js';
export { appsExtension, appOf, visibleToModel, APPS_EXTENSION, APP_MIME_TYPE } from './apps.js';
export type { AppLink, AppResource } from './apps.js';
export type { AppCsp, AppPermissions, AppResourceMeta, AppVisibility } from '../extensions/apps/wire.js';
export type { ClientChannel, ChannelHandlers, SendOptions } from './channel.js';
export {
  OAuthClient,
  headlessRedirect,
  loopbackLogin,
  InMemoryTokenStore,
  FileTokenStore,
  tokenStoreKey,
  parseBearerChallenge,
  type BearerChallenge,
  type HeadlessRedirectOptions,
  type LoopbackLogin,
  type LoopbackLoginOptions,
  type OAuthClientOptions,
  type OAuthProvider,
  type PreRegisteredClient,
  type RedirectHandler,
  type GrantOptions,
  type AuthorizationCodeGrantOptions,
  type ClientCredentialsGrantOptions,
  type JwtBearerGrantOptions,
  type EnterpriseManagedGrantOptions,
  type ClientCredentials,
  type AssertionSource,
  type DPoPOptions,
  type RegisteredClient,
  type StoredAuthorization,
  type StoredTokens,
  type TokenStore,
} from '../auth/client/index.js';
