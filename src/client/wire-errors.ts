/**
 * A JSON-RPC error response as the `McpError` the caller sees, keeping the HTTP status it
 * arrived with as `httpStatus`: era detection reads it (a 404 carrying -32601 is a modern
 * server, a 200 carrying it is not: 2026-07-28 streamable-http.mdx §Backward Compatibility).
 */
import { McpError } from '../protocol/errors.js';
import type { JsonRpcErrorResponse } from '../protocol/jsonrpc.js';
import { httpStatusOf } from './channels/http-common.js';

export function errorOf(response: JsonRpcErrorResponse): McpError {
  const error = McpError.from(response.error);
  const status = httpStatusOf(response);
  return status === undefined ? error : Object.assign(error, { httpStatus: status });
}

/** The HTTP status an error from `errorOf` arrived with. */
export function httpStatusOfError(e: unknown): number | undefined {
  return e instanceof Error && 'httpStatus' in e && typeof e.httpStatus === 'number' ? e.httpStatus : undefined;
}

/** The versions a -32022 error's data lists (basic/versioning.mdx), unchecked. */
export function supportedVersionsOf(data: unknown): unknown {
  return typeof data === 'object' && data !== null && 'supported' in data ? data.supported : undefined;
}
