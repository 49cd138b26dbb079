/**
 * `janus-mcp/errors`: every error the library throws or sends, in one place. Two kinds: the
 * ones that go on the wire (`McpError`, with its numeric JSON-RPC `ErrorCode`; `ToolError`,
 * whose message the model reads as a tool result) and the ones that stay local (`JanusError`
 * with a string `code`, the client's channel errors, and `InvalidTokenError`, which a token
 * check throws to have the request refused with 401). Runtime-neutral.
 *
 * @module janus-mcp/errors
 */
export { ErrorCode, McpError, JanusError, ResourceNotFoundError, ToolError, UrlElicitationRequiredError } from '../protocol/errors.js';
export type { ErrorCodeValue, JanusErrorCode, JsonRpcErrorObject, UrlElicitation } from '../protocol/errors.js';
export { ChannelError } from '../client/channel.js';
export { ProcessChannelError } from '../client/channels/process-error.js';
export { SkillVerificationError, type SkillVerificationFailure } from '../client/skill-error.js';
export { InvalidTokenError } from '../auth/server/errors.js';
