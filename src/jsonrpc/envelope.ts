/**
 * The envelopes the peer layer builds and reads. The wire types, `classify` and the
 * response constructors stay in protocol/jsonrpc.ts: transports (the layer below) use them
 * too, and `janus-mcp/protocol` exports them. What is here is what a peer does with them:
 * requests and notifications to send, cancellation (basic/utilities/cancellation.mdx),
 * progress tokens (basic/utilities/progress.mdx) and a response's result.
 */
import { McpError } from '../protocol/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../protocol/jsonrpc.js';
import { extend } from '../protocol/extend.js';

/** progress.mdx: a string or an integer, unique among the sender's active requests. */
export type ProgressToken = string | number;

/** What `notifications/progress` carries (progress.mdx §Progress Flow). */
export interface ProgressParams {
  progressToken: ProgressToken;
  progress: number;
  total?: number;
  message?: string;
  [key: string]: unknown;
}

export function requestMessage(id: RequestId, method: string, params?: Record<string, unknown>): JsonRpcRequest {
  return params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method };
}

export function notificationMessage(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method };
}

/** cancellation.mdx §Cancellation Flow: tells the receiver to stop working on `requestId`. */
export function cancelledNotification(requestId: RequestId, reason: string): JsonRpcNotification {
  return notificationMessage('notifications/cancelled', { requestId, reason });
}

/** progress.mdx: the sender asks for progress by putting a token in the request's `_meta`. */
export function withProgressToken(params: Record<string, unknown>, token: ProgressToken): Record<string, unknown> {
  return extend(params, { _meta: extend((params._meta as object | undefined) ?? {}, { progressToken: token }) });
}

/** The progress notification's params when they name a token, else undefined. */
export function progressOf(notification: JsonRpcNotification): ProgressParams | undefined {
  const params = notification.params;
  if (notification.method !== 'notifications/progress' || !params) return undefined;
  const token = params.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? (params as ProgressParams) : undefined;
}

/** The result of a response, or its error as an McpError. */
export function unwrap(response: JsonRpcResponse): Record<string, unknown> {
  if ('error' in response) throw McpError.from(response.error);
  return response.result;
}
