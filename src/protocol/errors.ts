/**
 * Two kinds of error (as in the official SDK v2): `McpError` travels on the wire as a
 * JSON-RPC error with a numeric code; `JanusError` stays local, with a string code.
 */

/** The JSON-RPC error codes MCP uses, by name: the JSON-RPC 2.0 ones and those the MCP revisions add. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** 2024-11-05 … 2025-11-25 only; 2026-07-28 uses InvalidParams. */
  ResourceNotFound: -32002,
  /** 2025-11-25 only. */
  UrlElicitationRequired: -32042,
  /** 2026-07-28 (basic/index.mdx §Error Codes). */
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** One of the {@link ErrorCode} numbers. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  /** The error's JSON-RPC code (see {@link ErrorCode}). */
  code: number;
  /** What went wrong, for a person to read. */
  message: string;
  /** Details for a program to read, if any. */
  data?: unknown;
}

/** An error meant for the peer: thrown in a handler, it becomes a JSON-RPC error response. */
export class McpError extends Error {
  /** The JSON-RPC error code sent with it (see {@link ErrorCode}). */
  readonly code: number;
  /** Details sent as the error's `data`, if any. */
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    this.data = data;
  }
  /** The error as the `error` member of a JSON-RPC response (`data` only when there is some). */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
  /** The error a peer sent in a JSON-RPC error response, to be thrown locally. */
  static from(e: JsonRpcErrorObject): McpError {
    return mcpErrorFrom(e);
  }
}

/**
 * Outside the class body on purpose: a class that names itself inside its body is emitted by
 * esbuild as `class _McpError`, and would print under that name from the bundle.
 */
function mcpErrorFrom(e: JsonRpcErrorObject): McpError {
  return new McpError(e.code, e.message, e.data);
}

/**
 * No resource answers a URI. Throw it from a resource reader (the server throws it itself for a
 * URI nothing serves): it is era-neutral on purpose, because the wire code differs per revision
 * (-32002 up to 2025-11-25; -32602 in 2026-07-28, where servers must not send -32002), so the
 * dispatcher of the era in use picks the code and puts the URI in the error's `data`.
 *
 * @example
 * ```ts
 * server.resourceTemplate('note://{id}', { name: 'note' }, (uri, { id }) => {
 *   const note = notes.get(id);
 *   if (note === undefined) throw new ResourceNotFoundError(uri, `No note ${id}; resources/list names every note`);
 *   return note.text;
 * });
 * ```
 */
export class ResourceNotFoundError extends Error {
  /** The URI that names nothing. */
  readonly uri: string;
  constructor(uri: string, message = `Resource not found: ${uri}`) {
    super(message);
    this.name = 'ResourceNotFoundError';
    this.uri = uri;
  }
}

/** What kind of local failure a {@link JanusError} is. */
export type JanusErrorCode =
  | 'SCHEMA'
  | 'REGISTRATION'
  | 'TRANSPORT_CLOSED'
  | 'TIMEOUT'
  | 'ABORTED'
  | 'CONNECTION'
  | 'ERA_DETECTION'
  | 'PROTOCOL'
  /** Authorization (OAuth) could not be obtained or was refused: discovery, registration, the authorization response, the token endpoint. */
  | 'AUTH';

/** An error that never goes on the wire: bad configuration, closed transports, timeouts. */
export class JanusError extends Error {
  /** What kind of failure this is, for a program to tell them apart. */
  readonly code: JanusErrorCode;
  constructor(code: JanusErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JanusError';
    this.code = code;
  }
}

/** A URL elicitation the client must complete before the request can be served (2025-11-25 client/elicitation.mdx). */
export interface UrlElicitation {
  /** Why the user should go there, shown to them. */
  message: string;
  /** The URL to send the user to. */
  url: string;
  /** Identifies the elicitation in `notifications/elicitation/complete`. */
  elicitationId: string;
}

/**
 * `-32042` (2025-11-25 only): thrown by a handler that cannot proceed until the user has
 * visited one or more URLs. On 2026-07-28 use `ctx.elicitUrl`, which becomes an
 * `input_required` round instead.
 */
export class UrlElicitationRequiredError extends McpError {
  constructor(elicitations: UrlElicitation[], message = 'This request requires URL elicitation') {
    super(ErrorCode.UrlElicitationRequired, message, { elicitations: elicitations.map((e) => ({ mode: 'url', ...e })) });
    this.name = 'UrlElicitationRequiredError';
  }
}

/**
 * An error meant for the model: thrown in a tool handler, it becomes a tool result with
 * `isError: true` and this message as its text, verbatim (2025-11-25 server/tools.mdx §Error
 * Handling). Any other error a tool throws is masked and reported to the server's `onError`.
 *
 * ```ts
 * if (!order) throw new ToolError(`No order ${id}. Use list_orders to see the open ones.`);
 * ```
 */
export class ToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }
}
