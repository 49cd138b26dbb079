/** JSON-RPC 2.0 envelopes as MCP uses them (no batches except on 2025-03-26). */
import type { JsonRpcErrorObject } from './errors.js';
import type { Result } from './types.js';

/** A JSON-RPC request id: a string or an integer, chosen by the sender and echoed in the response. */
export type RequestId = string | number;

/** A JSON-RPC request: a method call that expects one response with the same `id`. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/** A JSON-RPC notification: a method call without an `id`, which gets no response. */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

/** A successful JSON-RPC response: the `result` of the request with the same `id`. */
export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

/** A failed JSON-RPC response: the `error` of the request with the same `id`. */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  /** Absent only when the request id could not be read (parse error, invalid request). */
  id?: RequestId | null;
  error: JsonRpcErrorObject;
}

/** Either kind of JSON-RPC response. */
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
/** Any JSON-RPC message MCP sends: a request, a notification or a response. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether `v` can be a request id: a string or an integer. */
export function isRequestId(v: unknown): v is RequestId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

/**
 * Classifies one decoded JSON value. Hand-written guards, not a schema library: this is
 * the hot path, and the shape checks needed are few.
 */
export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: RequestId | null; reason: string };

type Fields = Record<string, unknown>;

// Each guard checks one member, so that `classify` can name the one that is wrong and the
// message's type follows from the checks it passed.
const isVersion2 = (v: Fields): v is Fields & { jsonrpc: '2.0' } => v.jsonrpc === '2.0';
const hasMethod = (v: Fields): v is Fields & { method: string } => typeof v.method === 'string';
const hasParams = (v: Fields): v is Fields & { params?: Record<string, unknown> } => v.params === undefined || isObject(v.params);
const hasId = (v: Fields): v is Fields & { id: RequestId } => isRequestId(v.id);
const hasResult = (v: Fields): v is Fields & { result: Record<string, unknown>; id?: unknown } => isObject(v.result);
const hasError = (v: Fields): v is Fields & { error: JsonRpcErrorObject } => {
  const e = v.error;
  return isObject(e) && typeof e.code === 'number' && typeof e.message === 'string';
};

/**
 * Tells what one decoded JSON value is: a request, a notification, a response, or invalid with the reason (and the id, when it could be read), so that the receiver can answer an invalid request with `-32600`.
 *
 * @example
 * ```ts
 * const seen = classify(JSON.parse(line));
 * if (seen.kind === 'invalid') console.error(seen.reason);
 * ```
 */
export function classify(v: unknown): Classified {
  if (!isObject(v)) return { kind: 'invalid', id: null, reason: 'message must be a JSON object' };
  const id = isRequestId(v.id) ? v.id : null;
  if (!isVersion2(v)) return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' };
  if ('method' in v) {
    if (!hasMethod(v)) return { kind: 'invalid', id, reason: 'method must be a string' };
    if (!hasParams(v)) return { kind: 'invalid', id, reason: 'params must be an object' };
    if (!('id' in v)) return { kind: 'notification', message: v };
    if (!hasId(v)) return { kind: 'invalid', id: null, reason: 'id must be a string or an integer' };
    return { kind: 'request', message: v };
  }
  if ('result' in v || 'error' in v) {
    if ('result' in v && !isObject(v.result)) return { kind: 'invalid', id, reason: 'result must be an object' };
    if ('error' in v) {
      return hasError(v)
        ? { kind: 'response', message: v }
        : { kind: 'invalid', id, reason: 'error must have a numeric code and a message' };
    }
    // The id is not checked: a response whose id answers no request is dropped by whoever matches it.
    if (hasResult(v)) return { kind: 'response', message: v as JsonRpcResultResponse };
  }
  return { kind: 'invalid', id, reason: 'not a request, notification or response' };
}

/** An error response to request `id`; with no `id` (null or undefined: it could not be read) the response has none. */
export function errorResponse(id: RequestId | null | undefined, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  // The schemas of every revision require an id on error responses except where it is
  // unknowable; an absent id is how "unknown" is spelt in the 2025+ schemas.
  return id === null || id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

/**
 * A typed result (`CallToolResult`, `GetPromptResult`, …) seen as the open `Result` it is on
 * the wire. Those public types have no index signature, so that a handler's object literal
 * with a misspelt member is still a compile error; the wire, where any member may appear,
 * takes them through here.
 */
export function asWireResult(result: object): Result {
  return result as Result;
}

/** A result response to request `id`. */
export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result };
}

/** Whether `m` is a response (a result or an error) rather than a request or a notification. */
export function isResponse(m: JsonRpcMessage): m is JsonRpcResponse {
  return 'result' in m || 'error' in m;
}

/** Whether `m` is an error response. */
export function isErrorResponse(m: JsonRpcMessage): m is JsonRpcErrorResponse {
  return 'error' in m;
}
