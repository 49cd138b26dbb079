/** HTTP status of JSON-RPC error responses, and small reply helpers. Runtime-neutral. */
import { ErrorCode } from '../../protocol/errors.js';
import { errorResponse, type RequestId } from '../../protocol/jsonrpc.js';
import type { HeaderMap, HttpExchange } from './exchange.js';
import { extend } from '../../protocol/extend.js';

export type Wire = 'legacy' | 'modern';

/**
 * Status for a JSON response that carries a JSON-RPC error.
 * - modern (2026-07-28): -32601 → 404 (basic/transports/streamable-http.mdx §Protocol Version
 *   Header, the MethodNotFoundError doc); -32020/-32021/-32022 → 400 (§Server Validation,
 *   basic/index.mdx §Error Codes); missing `_meta` fields (-32602) → 400 (basic/index.mdx
 *   §Per-request protocol fields). -32600 and -32700 are malformed requests, so 400 as well.
 *   Every other error is an ordinary answer: 200 (the spec names no status for it).
 * - legacy (2025-03-26 … 2025-11-25): a JSON-RPC error is a successful HTTP exchange, 200.
 */
export function statusForError(wire: Wire, code: number): number {
  if (wire === 'legacy') return 200;
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
    case ErrorCode.InvalidRequest:
    case ErrorCode.InvalidParams:
    case ErrorCode.ParseError:
      return 400;
    default:
      return 200;
  }
}

export const JSON_HEADERS: HeaderMap = { 'content-type': 'application/json' };

export function replyJson(ex: HttpExchange, status: number, body: unknown, headers?: HeaderMap): void {
  if (!ex.open) return;
  ex.respond(status, headers === undefined ? JSON_HEADERS : extend(JSON_HEADERS, headers), JSON.stringify(body));
}

/**
 * A transport-level refusal with a JSON-RPC error body. -32600 is used for all of them: the
 * -32000..-32019 range is legacy/implementation-defined and SHOULD NOT be used by new
 * implementations (2026-07-28 basic/index.mdx §Error Codes).
 */
export function replyError(
  ex: HttpExchange,
  status: number,
  message: string,
  code: number = ErrorCode.InvalidRequest,
  id?: RequestId | null,
  headers?: HeaderMap,
): void {
  replyJson(ex, status, errorResponse(id, { code, message }), headers);
}

export function replyEmpty(ex: HttpExchange, status: number, headers: HeaderMap = {}): void {
  if (ex.open) ex.respond(status, headers);
}
