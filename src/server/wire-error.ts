/**
 * What a failed request answers on the wire, in either era, safe by default: an
 * `McpError` as it is (the handler chose its code and words for the client); the era-neutral
 * errors of the features in the code of the revision in use; anything else masked as
 * -32603 "Internal error". Every -32603 is a failure of the server, so it is reported in full
 * to `onError`; client mistakes (every other code) are not, so a hostile client cannot flood
 * the server's logs.
 */
import { ErrorCode, McpError, ResourceNotFoundError, type JsonRpcErrorObject } from '../protocol/errors.js';
import { revision } from '../protocol/revisions.js';
import { LATEST_LEGACY_VERSION, latestVersion, type Era, type ProtocolVersion } from '../protocol/versions.js';
import { jsonProblem } from './features/json-value.js';

/** Where an unexpected error is reported in full (the server's `onError`). */
export interface ErrorSink {
  reportError(error: unknown): void;
}

/** The masked answer to an unexpected failure. */
export const INTERNAL_ERROR: Readonly<JsonRpcErrorObject> = Object.freeze({ code: ErrorCode.InternalError, message: 'Internal error' });

export function toWireError(error: unknown, v: ProtocolVersion, sink: ErrorSink): JsonRpcErrorObject {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.InternalError) sink.reportError(error);
    // A handler's `data` must be JSON the transport can write; otherwise it is left out.
    if (error.data !== undefined && jsonProblem(error.data) !== undefined) {
      if (error.code !== ErrorCode.InternalError) sink.reportError(error);
      return { code: error.code, message: error.message };
    }
    return error.toJSON();
  }
  // -32002 up to 2025-11-25, -32602 in 2026-07-28 (server/resources.mdx §Error Handling).
  if (error instanceof ResourceNotFoundError)
    return { code: revision(v).errors.resourceNotFound, message: error.message, data: { uri: error.uri } };
  sink.reportError(error);
  return { ...INTERNAL_ERROR };
}

const NO_REPORTS: ErrorSink = { reportError: () => {} };

/**
 * The JSON-RPC error code the server answers a failure with, as the dispatchers would (an
 * `McpError`'s own code, resource-not-found in the code of the revision, -32603 for the
 * rest): for middleware that logs or traces what the client got. `protocolVersion` undefined
 * (before `initialize`) counts as the latest revision of `era`.
 */
export function errorCodeFor(error: unknown, protocolVersion: ProtocolVersion | undefined, era: Era = 'legacy'): number {
  const v = protocolVersion ?? (era === 'legacy' ? LATEST_LEGACY_VERSION : latestVersion());
  return toWireError(error, v, NO_REPORTS).code;
}
