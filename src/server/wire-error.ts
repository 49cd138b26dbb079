/**
 * What a failed request answers on the wire, in either era: an `McpError` as it is; the
 * era-neutral errors of the features in the code of the revision in use; anything else masked
 * as -32603 and reported in full (DESIGN.md §Safe by default).
 */
import { ErrorCode, McpError, type JsonRpcErrorObject } from '../protocol/errors.js';
import { revision } from '../protocol/revisions.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import { ResourceNotFound } from './features/resources.js';

/** Where an unexpected error is reported in full (the server's `onError`). */
export interface ErrorSink {
  reportError(error: unknown): void;
}

export function toWireError(error: unknown, v: ProtocolVersion, sink: ErrorSink): JsonRpcErrorObject {
  if (error instanceof McpError) return error.toJSON();
  // -32002 up to 2025-11-25, -32602 in 2026-07-28 (server/resources.mdx §Error Handling).
  if (error instanceof ResourceNotFound)
    return { code: revision(v).errors.resourceNotFound, message: error.message, data: { uri: error.uri } };
  sink.reportError(error);
  return { code: ErrorCode.InternalError, message: error instanceof Error ? error.message : 'Internal error' };
}
