/**
 * The per-request `_meta` envelope of 2026-07-28 (basic/index.mdx §Per-request protocol
 * fields). Read per request and never written to shared state: two concurrent requests
 * may declare different capabilities.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { META } from '../../protocol/meta.js';
import { isModernOnlyMethod } from '../../protocol/revisions.js';
import { ALL_VERSIONS, MODERN_VERSIONS, isModernVersion, type ModernVersion } from '../../protocol/versions.js';
import { LOGGING_LEVELS, type ClientCapabilities, type Implementation, type LoggingLevel } from '../../protocol/types.js';

export interface Envelope {
  readonly version: ModernVersion;
  readonly capabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | undefined;
  readonly meta: Record<string, unknown>;
}

/** Does this message claim the modern wire? (A `_meta` protocol version, or a modern-only method.) */
export function claimsModern(method: string, params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  if (meta && typeof meta === 'object' && META.protocolVersion in meta) return true;
  return isModernOnlyMethod(method);
}

/** Versions named in -32022 and `server/discover`, newest first. */
export const SUPPORTED_VERSIONS: readonly string[] = [...ALL_VERSIONS].reverse();

export function readEnvelope(params: Record<string, unknown> | undefined): Envelope {
  const meta = params?._meta;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta)) {
    throw new McpError(ErrorCode.InvalidParams, `Missing params._meta: every ${MODERN_VERSIONS.join('/')} request carries ${META.protocolVersion} and ${META.clientCapabilities}`);
  }
  const m = meta as Record<string, unknown>;
  const version = m[META.protocolVersion];
  if (typeof version !== 'string') {
    throw new McpError(ErrorCode.InvalidParams, `Missing _meta["${META.protocolVersion}"]`);
  }
  const capabilities = m[META.clientCapabilities];
  if (!capabilities || typeof capabilities !== 'object' || Array.isArray(capabilities)) {
    throw new McpError(ErrorCode.InvalidParams, `Missing _meta["${META.clientCapabilities}"] (send {} for none)`);
  }
  if (!isModernVersion(version)) {
    throw new McpError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${version}`, {
      supported: SUPPORTED_VERSIONS,
      requested: version,
    });
  }
  const level = m[META.logLevel];
  if (level !== undefined && (typeof level !== 'string' || !LOGGING_LEVELS.includes(level as LoggingLevel))) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid _meta["${META.logLevel}"]: ${JSON.stringify(level)}`);
  }
  const info = m[META.clientInfo];
  return {
    version,
    capabilities: capabilities as ClientCapabilities,
    clientInfo: info && typeof info === 'object' ? (info as Implementation) : undefined,
    logLevel: level as LoggingLevel | undefined,
    meta: m,
  };
}
