/**
 * Checks of what a client sent that narrow it to the protocol types, shared by both eras'
 * dispatchers and the features: wire input is `unknown` until one of these has looked at it.
 */
import { LOGGING_LEVELS, type Implementation, type LoggingLevel } from '../protocol/types.js';

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export { isThenable } from '../protocol/thenable.js';

const LEVELS: ReadonlySet<string> = new Set(LOGGING_LEVELS);

/** One of the syslog levels of logging.mdx (`logging/setLevel`, 2026-07-28 `_meta` logLevel). */
export function isLoggingLevel(v: unknown): v is LoggingLevel {
  return typeof v === 'string' && LEVELS.has(v);
}

/** `clientInfo` (schema `Implementation`: a name and a version at least). */
export function isImplementation(v: unknown): v is Implementation {
  return isObject(v) && typeof v.name === 'string' && typeof v.version === 'string';
}

/**
 * Sets `key` as an own entry of a record built from a client's keys: a key such as
 * `__proto__` becomes a plain property rather than changing the record's prototype.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/**
 * A client's value quoted in an error message: short whatever the client sent, and never
 * through its own `toString` (`{"toString": null}` makes `String(v)` throw).
 */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? typeof value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/**
 * An absolute URI (RFC 3986), or an IRI (RFC 3987: the same with characters beyond ASCII): a
 * scheme, then only URI characters or non-ASCII ones that are not spaces, any `%` followed by
 * two hex digits. The schemas give resource URIs `format: "uri"`, and a URI a client sends is
 * echoed back (read results, subscription acknowledgements), so a string that is not one
 * (a space, a bare path, a broken `%`) is refused (-32602) rather than read.
 */
export function isUri(v: unknown): v is string {
  return typeof v === 'string' && URI.test(v);
}

const URI = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2}|[^\p{ASCII}\s])*$/u;
