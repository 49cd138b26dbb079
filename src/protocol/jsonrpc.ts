/** JSON-RPC 2.0 envelopes as MCP uses them (no batches except on 2025-03-26). */
import type { JsonRpcErrorObject } from './errors.js';

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  /** Absent only when the request id could not be read (parse error, invalid request). */
  id?: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

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

export function classify(v: unknown): Classified {
  if (!isObject(v)) return { kind: 'invalid', id: null, reason: 'message must be a JSON object' };
  const id = isRequestId(v.id) ? v.id : null;
  if (v.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' };
  if ('method' in v) {
    if (typeof v.method !== 'string') return { kind: 'invalid', id, reason: 'method must be a string' };
    if (v.params !== undefined && !isObject(v.params)) {
      return { kind: 'invalid', id, reason: 'params must be an object' };
    }
    if (!('id' in v)) return { kind: 'notification', message: v as unknown as JsonRpcNotification };
    if (id === null) return { kind: 'invalid', id: null, reason: 'id must be a string or an integer' };
    return { kind: 'request', message: v as unknown as JsonRpcRequest };
  }
  if ('result' in v || 'error' in v) {
    if ('result' in v && !isObject(v.result)) return { kind: 'invalid', id, reason: 'result must be an object' };
    if ('error' in v) {
      const e = v.error;
      if (!isObject(e) || typeof e.code !== 'number' || typeof e.message !== 'string') {
        return { kind: 'invalid', id, reason: 'error must have a numeric code and a message' };
      }
    }
    return { kind: 'response', message: v as unknown as JsonRpcResponse };
  }
  return { kind: 'invalid', id, reason: 'not a request, notification or response' };
}

export function errorResponse(id: RequestId | null | undefined, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  // The schemas of every revision require an id on error responses except where it is
  // unknowable; an absent id is how "unknown" is spelt in the 2025+ schemas.
  return id === null || id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result };
}

export function isResponse(m: JsonRpcMessage): m is JsonRpcResponse {
  return 'result' in m || 'error' in m;
}

export function isErrorResponse(m: JsonRpcMessage): m is JsonRpcErrorResponse {
  return 'error' in m;
}
