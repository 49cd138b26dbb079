/**
 * Structured logs (docs/observability.md): a four-method `Logger` any logging library
 * fits behind, and `consoleLogger`, which writes JSON lines (or readable text) to stderr.
 * Never stdout: on a stdio server stdout carries protocol messages only (transports.mdx
 * §stdio). A logger never throws into the server: fields that cannot be serialised are
 * written as placeholders, and a failing sink is ignored.
 */

/** How much a logger writes: each level includes the ones after it. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Extra data on a log line; values may be anything (Errors, cycles and BigInts are handled). */
export type LogFields = Record<string, unknown>;

/**
 * Where the server's logs go. `consoleLogger()` is one; any logging library fits behind the
 * four methods, e.g. pino, which takes the fields first:
 *
 * ```ts
 * const logger: Logger = {
 *   debug: (msg, fields) => pino.debug(fields ?? {}, msg),
 *   info: (msg, fields) => pino.info(fields ?? {}, msg),
 *   warn: (msg, fields) => pino.warn(fields ?? {}, msg),
 *   error: (msg, fields) => pino.error(fields ?? {}, msg),
 *   isLevelEnabled: (level) => pino.isLevelEnabled(level),
 * };
 * ```
 */
export interface Logger {
  /** Writes a debug line: detail for troubleshooting. */
  debug(message: string, fields?: LogFields): void;
  /** Writes an info line: what happened. */
  info(message: string, fields?: LogFields): void;
  /** Writes a warning: something to fix, such as a configuration problem. */
  warn(message: string, fields?: LogFields): void;
  /** Writes an error: a failure, with its fields. */
  error(message: string, fields?: LogFields): void;
  /**
   * Whether a line at `level` would be written. Optional; when present, `logRequests` skips
   * the work of a line nobody reads (pino and winston loggers have it under this name).
   */
  isLevelEnabled?(level: LogLevel): boolean;
}

/** How {@link consoleLogger} writes. */
export interface ConsoleLoggerOptions {
  /** The least severe level written (default `'info'`); `'silent'` writes nothing. */
  level?: LogLevel | 'silent';
  /**
   * `'json'` (default): one JSON object per line, `{"time","level","name","msg",...fields}`.
   * `'text'`: `<time> <LEVEL> <name>: <msg> key=value …`, with stacks on the lines after.
   */
  format?: 'json' | 'text';
  /** Where each entry goes, without its trailing newline. Default: `console.error` (stderr). */
  write?: (line: string) => void;
  /** The `name` of every line (default `'janus-mcp'`). */
  name?: string;
}

const RANK: Readonly<Record<LogLevel | 'silent', number>> = Object.freeze({ debug: 10, info: 20, warn: 30, error: 40, silent: Infinity });
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
/** The keys of every JSON line; a field with one of these names is written as `_<name>`. */
const RESERVED = new Set(['time', 'level', 'name', 'msg']);
/** How deep a field is written before the rest is elided (a deep structure must not cost a stack overflow). */
const MAX_DEPTH = 12;

const noop = (): void => {};
// console.error ignores a broken stderr (EPIPE) rather than crash the process.
const toStderr = (line: string): void => console.error(line);

/**
 * A logger that writes one entry per call to stderr (or `write`), as JSON lines by default:
 *
 * ```ts
 * const logger = consoleLogger({ level: 'debug' });
 * const server = createServer({ name: 'orders', version: '1.0.0', logger });
 * server.use(logRequests(logger));
 * // {"time":"2026-01-05T10:00:00.000Z","level":"info","name":"janus-mcp","msg":"request","method":"tools/call",…}
 * ```
 *
 * A call below `level` is a no-op function: it costs nothing but the call.
 */
export function consoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if (!Object.hasOwn(RANK, level)) throw new TypeError(`consoleLogger: unknown level ${JSON.stringify(level)}`);
  const min = RANK[level];
  const write = options.write ?? toStderr;
  const name = options.name ?? 'janus-mcp';
  const format = options.format === 'text' ? textLine(name) : jsonLine(name);
  const method = (l: LogLevel) =>
    RANK[l] < min
      ? noop
      : (message: string, fields?: LogFields): void => {
          try {
            write(format(l, message, fields));
          } catch {
            // A logger never throws into the code that logs.
          }
        };
  return {
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    isLevelEnabled: (l) => RANK[l] >= min,
  };
}

type Format = (level: LogLevel, message: string, fields: LogFields | undefined) => string;

/** The JSON line format; the logger's name is serialised once. */
function jsonLine(name: string): Format {
  const head = `,"name":${JSON.stringify(name)},"msg":`;
  return (level, message, fields) => {
    let line = `{"time":"${new Date().toISOString()}","level":"${level}"${head}${JSON.stringify(String(message))}`;
    forEachField(fields, (key, value) => {
      const json = toJson(value);
      if (json !== undefined) line += `,${JSON.stringify(RESERVED.has(key) ? `_${key}` : key)}:${json}`;
    });
    return `${line}}`;
  };
}

/** The readable format: one line, then any multi-line value (a stack) indented below it. */
const textLine =
  (name: string): Format =>
  (level, message, fields) => {
    let line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${name}: ${String(message)}`;
    let below = '';
    forEachField(fields, (key, value) => {
      if (value instanceof Error) {
        line += ` ${key}=${JSON.stringify(`${value.name}: ${value.message}`)}`;
        if (typeof value.stack === 'string') below += `\n  ${key}.stack:\n${indent(value.stack)}`;
      } else if (typeof value === 'string' && value.includes('\n')) {
        below += `\n  ${key}:\n${indent(value)}`;
      } else if (typeof value === 'string' && /^[\w./:@+-]+$/.test(value)) {
        line += ` ${key}=${value}`;
      } else {
        const json = toJson(value);
        if (json !== undefined) line += ` ${key}=${json}`;
      }
    });
    return line + below;
  };

const indent = (text: string): string => text.replace(/^/gm, '    ');

/** Calls `fn` for each defined field; fields that are not an object are written as `fields`. */
function forEachField(fields: unknown, fn: (key: string, value: unknown) => void): void {
  if (fields === undefined || fields === null) return;
  if (typeof fields !== 'object') {
    fn('fields', fields);
    return;
  }
  let keys: string[];
  try {
    keys = Object.keys(fields);
  } catch {
    return; // a Proxy that refuses to list its keys
  }
  for (const key of keys) {
    let value: unknown;
    try {
      value = (fields as LogFields)[key];
    } catch (e) {
      value = unserializable(e);
    }
    if (value !== undefined) fn(key, value);
  }
}

/** A value as JSON text, or undefined for what JSON leaves out (functions, symbols, undefined). Never throws. */
function toJson(value: unknown): string | undefined {
  // The common fields (strings, numbers, booleans) need no walk.
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
  try {
    return JSON.stringify(plain(value, [], 0));
  } catch (e) {
    return JSON.stringify(unserializable(e));
  }
}

const unserializable = (e: unknown): string => `[unserializable: ${e instanceof Error ? e.message : typeof e}]`;

/**
 * A copy of `value` that JSON.stringify can write: Errors as `{name, message, stack, code,
 * cause}` (their own properties are not enumerable), BigInts as strings, a reference to an
 * enclosing object as "[Circular]", anything deeper than MAX_DEPTH as "[…]", and a property
 * whose getter or `toJSON` throws as "[unserializable: …]".
 */
function plain(value: unknown, ancestors: object[], depth: number): unknown {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'symbol':
    case 'function':
    case 'undefined':
      return undefined;
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (ancestors.includes(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[…]';
  ancestors.push(value);
  try {
    if (value instanceof Error) return errorFields(value, ancestors, depth);
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return plain(toJSON.call(value), ancestors, depth + 1);
    if (Array.isArray(value)) return value.map((v) => plain(v, ancestors, depth + 1) ?? null);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      let v: unknown;
      try {
        v = plain((value as LogFields)[key], ancestors, depth + 1);
      } catch (e) {
        v = unserializable(e);
      }
      // defineProperty: a key named __proto__ stays data.
      if (v !== undefined) Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    ancestors.pop();
  }
}

function errorFields(e: Error, ancestors: object[], depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { name: e.name, message: e.message };
  const { code, cause } = e as { code?: unknown; cause?: unknown };
  if (code !== undefined) out.code = plain(code, ancestors, depth + 1);
  if (typeof e.stack === 'string') out.stack = e.stack;
  if (cause !== undefined) out.cause = plain(cause, ancestors, depth + 1);
  return out;
}

/** What a report to the server's `onError` becomes when the server has a `logger` and no `onError`. */
export function errorReporter(logger: Logger): (error: unknown) => void {
  return (error) => {
    try {
      if (error instanceof Error) {
        const fields: LogFields = { errorName: error.name, errorMessage: error.message };
        const { code, cause } = error as { code?: unknown; cause?: unknown };
        if (code !== undefined) fields.errorCode = code;
        if (typeof error.stack === 'string') fields.stack = error.stack;
        if (cause !== undefined) fields.cause = cause;
        logger.error(error.message || error.name, fields);
      } else {
        const message = describe(error);
        logger.error(message, { errorMessage: message });
      }
    } catch {
      // A failing logger must not turn one failure into two.
    }
  };
}

/** Any thrown value as text (String() throws for some objects). */
export function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return toJson(value) ?? typeof value;
  }
}

/** Whether `level` names a level (for options read at runtime). */
export const isLogLevel = (level: unknown): level is LogLevel => LEVELS.includes(level as LogLevel);

/** What a configuration warning becomes when the server has a `logger`. */
export function warningReporter(logger: Logger): (message: string) => void {
  return (message) => {
    try {
      logger.warn(message);
    } catch {
      // As for errors: a failing logger is not the server's failure.
    }
  };
}
