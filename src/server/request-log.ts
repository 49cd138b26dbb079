/**
 * `logRequests`: one log line per inbound message, as a middleware (middleware.ts). It only
 * observes: what `next()` resolves to, or the error it throws, goes on as it is.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import { ToolError } from './features/tool-error.js';
import { consoleLogger, describe, isLogLevel, type LogFields, type Logger, type LogLevel } from './logger.js';
import { Exchange, isInputRequired, type Middleware, type MiddlewareContext } from './middleware.js';
import { errorCodeFor } from './wire-error.js';

/**
 * How a request ended, as the log line says it:
 * - `ok`: answered with a result;
 * - `error`: answered with a JSON-RPC error (`errorCode`, `errorMessage`); for a notification,
 *   a middleware refused it or it failed;
 * - `tool_error`: a `tools/call` result with `isError: true` (a `ToolError`, a masked failure);
 * - `input_required`: a 2026-07-28 round that ended waiting for the client's answers (mrtr.mdx);
 * - `cancelled`: cancelled by the client, so not answered (cancellation.mdx).
 */
export type RequestOutcome = 'ok' | 'error' | 'tool_error' | 'input_required' | 'cancelled';

/** How {@link logRequests} logs. */
export interface LogRequestsOptions {
  /** The level of request lines (default `'info'`). Notification lines are always `'debug'`. */
  level?: LogLevel;
}

/** The methods whose log line names a target, and the param it is read from (never the arguments). */
const TARGETS: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['resources/subscribe', 'uri'],
  ['resources/unsubscribe', 'uri'],
]);
/** The methods whose `UrlElicitationRequired` a 2026-07-28 server answers as an `input_required` round. */
const ASKING = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * A middleware that logs one line per inbound request (at `options.level`, default info) and
 * notification (at debug), once it has been handled. The line's message is `request` or
 * `notification`; its fields are `method`, `id`, `target` (the tool or prompt name, the
 * resource URI), `outcome` (`RequestOutcome`), `durationMs`, `era`, `protocolVersion`,
 * `sessionId` and `transport`, plus `errorCode` and `errorMessage` when it failed: the code
 * the client got, and the error's own message (the client of a masked failure read
 * "Internal error"; the full report, with the stack, goes to `onError` or the server's `logger`).
 * Arguments and results are never logged. A `subscriptions/listen` line is written when its
 * stream ends, with the stream's lifetime as `durationMs`.
 *
 * ```ts
 * const logger = consoleLogger();
 * const server = createServer({ name: 'orders', version: '1.0.0', logger });
 * server.use(logRequests(logger)); // first, so it times everything after it
 * ```
 *
 * `logger` defaults to `consoleLogger()` (JSON lines on stderr, info and up).
 */
export function logRequests(logger: Logger = consoleLogger(), options: LogRequestsOptions = {}): Middleware {
  const requestLevel = options.level ?? 'info';
  if (!isLogLevel(requestLevel)) throw new TypeError(`logRequests: unknown level ${JSON.stringify(requestLevel)}`);
  return async (ctx, next) => {
    const level: LogLevel = ctx.kind === 'request' ? requestLevel : 'debug';
    if (logger.isLevelEnabled?.(level) === false) return next();
    const started = performance.now();
    let result: unknown;
    try {
      result = await next();
    } catch (e) {
      write(logger, level, ctx, started, failed(ctx, e), e);
      throw e;
    }
    write(logger, level, ctx, started, succeeded(ctx, result), undefined);
    return result;
  };
}

/** Whether the request was cancelled; an `Exchange` tells without making its signal. */
const aborted = (ctx: MiddlewareContext): boolean => (ctx instanceof Exchange ? ctx.aborted : ctx.signal.aborted);

function succeeded(ctx: MiddlewareContext, result: unknown): RequestOutcome {
  // A round that ended with input_required aborts its handler: not a cancellation.
  if (isInputRequired(result)) return 'input_required';
  if (aborted(ctx)) return 'cancelled';
  if (ctx.method === 'tools/call' && (result as { isError?: unknown } | undefined)?.isError === true) return 'tool_error';
  return 'ok';
}

function failed(ctx: MiddlewareContext, e: unknown): RequestOutcome {
  if (aborted(ctx)) return 'cancelled';
  // What the dispatchers make of these (legacy/dispatch.ts, modern/dispatch.ts).
  if (ctx.method === 'tools/call' && e instanceof ToolError) return 'tool_error';
  if (ctx.era === 'modern' && e instanceof McpError && e.code === ErrorCode.UrlElicitationRequired && ASKING.has(ctx.method)) {
    return 'input_required';
  }
  return 'error';
}

function write(logger: Logger, level: LogLevel, ctx: MiddlewareContext, started: number, outcome: RequestOutcome, error: unknown): void {
  try {
    const fields: LogFields = { method: ctx.method };
    if (ctx.id !== undefined) fields.id = ctx.id;
    const targetParam = TARGETS.get(ctx.method);
    const target = targetParam === undefined ? undefined : ctx.params[targetParam];
    if (typeof target === 'string') fields.target = target;
    fields.outcome = outcome;
    fields.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    fields.era = ctx.era;
    if (ctx.protocolVersion !== undefined) fields.protocolVersion = ctx.protocolVersion;
    if (ctx.sessionId !== undefined) fields.sessionId = ctx.sessionId;
    fields.transport = ctx.transport;
    if (outcome === 'error') {
      if (ctx.kind === 'request') fields.errorCode = wireCode(ctx, error);
      fields.errorMessage = error instanceof Error ? error.message : describe(error);
    }
    logger[level](ctx.kind, fields);
  } catch {
    // Logging never changes what the client gets.
  }
}

/** The code the client was answered with. */
function wireCode(ctx: MiddlewareContext, error: unknown): number {
  return errorCodeFor(error, ctx.protocolVersion, ctx.era);
}
