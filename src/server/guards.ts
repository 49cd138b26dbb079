/**
 * Checks of what a client sent that narrow it to the protocol types, shared by both eras'
 * dispatchers and the features: wire input is `unknown` until one of these has looked at it.
 */
import { LOGGING_LEVELS, type Implementation, type LoggingLevel } from '../protocol/types.js';

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const LEVELS: ReadonlySet<string> = new Set(LOGGING_LEVELS);

/** One of the syslog levels of logging.mdx (`logging/setLevel`, 2026-07-28 `_meta` logLevel). */
export function isLoggingLevel(v: unknown): v is LoggingLevel {
  return typeof v === 'string' && LEVELS.has(v);
}

/** `clientInfo` (schema `Implementation`: a name and a version at least). */
export function isImplementation(v: unknown): v is Implementation {
  return isObject(v) && typeof v.name === 'string' && typeof v.version === 'string';
}
