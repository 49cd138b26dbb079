/**
 * How an operation ended, in the terms of mcp.md (§Client and §Server note [1]): `error.type`
 * is the JSON-RPC error code when one is answered, `tool_error` for a CallToolResult with
 * `isError: true`, and otherwise a low-cardinality name of the failure; `rpc.response.status_code`
 * is the code when the response carries one. The span's status is ERROR, described by the
 * error's message, whenever `error.type` is set.
 */
import { type Attributes, type Span, SpanStatusCode } from '@opentelemetry/api';
import { ErrorCode, JanusError, McpError } from '../errors/index.js';
import type { Era, ProtocolVersion } from '../protocol/index.js';
import { errorCodeFor } from '../spi/index.js';
import { ATTR, OTHER_ERROR, TOOL_ERROR } from './attributes.js';
import { jsonOf } from './options.js';

/** The message the server answers a failure it masks (-32603) with, whatever the failure said. */
const MASKED_MESSAGE = 'Internal error';

export interface Failure {
  readonly errorType: string;
  /** The JSON-RPC error code the response carries, if it carries one. */
  readonly statusCode: string | undefined;
  readonly message: string | undefined;
  /** An unexpected failure (not an answer the peer chose): recorded as an exception event too. */
  readonly unexpected: boolean;
}

/**
 * A failure seen by the server: an `McpError` is answered with its code; the features'
 * resource-not-found with the code of the era (-32002 on a legacy session, -32602 on
 * 2026-07-28, server/resources.mdx §Error Handling); anything else is masked as -32603 on the
 * wire, and named here by its class, which says more than the mask.
 */
export function serverFailure(error: unknown, version: ProtocolVersion | undefined, era: Era): Failure {
  if (error instanceof McpError) return coded(error.code, error.message);
  const code = errorCodeFor(error, version, era);
  if (code !== ErrorCode.InternalError) return coded(code, error instanceof Error ? error.message : String(error));
  // Masked on the wire: the status says what the client was told; the exception event keeps the error itself.
  return {
    errorType: className(error),
    statusCode: String(ErrorCode.InternalError),
    message: MASKED_MESSAGE,
    unexpected: true,
  };
}

/**
 * A failure seen by the client: an `McpError` is the server's JSON-RPC error; a `JanusError`
 * never went on the wire and is named by its code in lower case (`timeout`, `aborted`,
 * `connection`, `transport_closed`, …); anything else by its class (`ChannelError`, …).
 */
export function clientFailure(error: unknown): Failure {
  if (error instanceof McpError) return coded(error.code, error.message);
  return {
    errorType: error instanceof JanusError ? error.code.toLowerCase() : className(error),
    statusCode: undefined,
    message: error instanceof Error ? error.message : undefined,
    unexpected: !(error instanceof JanusError),
  };
}

/** The longest tool error text put in a span's status (the text is the model's; a status is a line in a trace view). */
const MAX_TOOL_MESSAGE = 1024;

/**
 * A result-level failure: no code (the JSON-RPC call succeeded); its message is what the
 * model read, the result's text (for an unexpected throw, the server's masked text).
 */
function toolFailure(content: unknown): Failure {
  const texts = Array.isArray(content)
    ? content.flatMap((c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        (c as { type?: unknown }).type === 'text' &&
        typeof (c as { text?: unknown }).text === 'string'
          ? [(c as { text: string }).text]
          : [],
      )
    : [];
  const text = texts.join('\n');
  const message =
    text === ''
      ? 'the tool reported an error (isError: true)'
      : text.length > MAX_TOOL_MESSAGE
        ? `${text.slice(0, MAX_TOOL_MESSAGE - 1)}…`
        : text;
  return { errorType: TOOL_ERROR, statusCode: undefined, message, unexpected: false };
}

/**
 * A result that succeeded on the wire, on either side: a tools/call answered with
 * `isError: true` is still a failed operation (`tool_error`); an `initialize` result names the
 * version the handshake chose, unknown until then; a final tools/call result is the opt-in
 * `gen_ai.tool.call.result`.
 */
export function recordResult(span: Span, metric: Attributes, method: string, result: unknown, capturePayloads: boolean): void {
  if (typeof result !== 'object' || result === null) return;
  if (method === 'tools/call') {
    const r = result as { isError?: unknown; resultType?: unknown; structuredContent?: unknown; content?: unknown };
    if (r.isError === true) {
      recordFailure(span, metric, toolFailure(r.content));
    } else if (capturePayloads && r.resultType !== 'input_required') {
      // Not on an input_required round: the tool's result comes with a later round.
      const json = jsonOf(r.structuredContent ?? r.content);
      if (json !== undefined) span.setAttribute(ATTR.toolResult, json);
    }
  } else if (method === 'initialize') {
    const version = (result as { protocolVersion?: unknown }).protocolVersion;
    if (typeof version !== 'string') return;
    span.setAttribute(ATTR.protocolVersion, version);
    metric[ATTR.protocolVersion] = version;
  }
}

/** Puts a failure on the span (status, attributes, exception event) and on the metric's attributes. */
export function recordFailure(span: Span, metric: Attributes, failure: Failure, error?: unknown): void {
  span.setAttribute(ATTR.errorType, failure.errorType);
  metric[ATTR.errorType] = failure.errorType;
  if (failure.statusCode !== undefined) {
    span.setAttribute(ATTR.statusCode, failure.statusCode);
    metric[ATTR.statusCode] = failure.statusCode;
  }
  if (failure.unexpected && error instanceof Error) span.recordException(error);
  span.setStatus(failure.message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: failure.message });
}

function coded(code: number, message: string): Failure {
  const s = String(code);
  return { errorType: s, statusCode: s, message, unexpected: false };
}

function className(error: unknown): string {
  if (error instanceof Error) return error.name && error.name !== 'Error' ? error.name : error.constructor?.name || 'Error';
  return OTHER_ERROR;
}
