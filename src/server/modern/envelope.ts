/**
 * The per-request `_meta` envelope of 2026-07-28 (basic/index.mdx §Per-request protocol
 * fields). Read per request and never written to shared state: two concurrent requests
 * may declare different capabilities.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { META } from '../../protocol/meta.js';
import { MODERN_VERSIONS, isModernVersion, type ModernVersion } from '../../protocol/versions.js';
import type { ClientCapabilities, Implementation, LoggingLevel, Meta } from '../../protocol/types.js';
import { isImplementation, isLoggingLevel, isObject, quoted } from '../guards.js';

export interface Envelope {
  readonly version: ModernVersion;
  readonly capabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | undefined;
  readonly meta: Meta;
}

/**
 * The request's envelope; -32022 (naming `supported`, the server's revisions newest first) for
 * a version this server does not speak.
 */
export function readEnvelope(params: Record<string, unknown> | undefined, supported: readonly string[]): Envelope {
  const m = params?._meta;
  if (!isObject(m)) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Missing params._meta: every ${MODERN_VERSIONS.join('/')} request carries ${META.protocolVersion} and ${META.clientCapabilities}`,
    );
  }
  const version = m[META.protocolVersion];
  if (typeof version !== 'string') {
    throw new McpError(ErrorCode.InvalidParams, `Missing _meta["${META.protocolVersion}"]`);
  }
  const capabilities = m[META.clientCapabilities];
  if (!isObject(capabilities)) {
    throw new McpError(ErrorCode.InvalidParams, `Missing _meta["${META.clientCapabilities}"] (send {} for none)`);
  }
  if (!isModernVersion(version) || !supported.includes(version)) {
    throw new McpError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${quoted(version)}`, {
      supported: [...supported],
      requested: version,
    });
  }
  const level = m[META.logLevel];
  if (level !== undefined && !isLoggingLevel(level)) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid _meta["${META.logLevel}"]: ${quoted(level)}`);
  }
  const info = m[META.clientInfo];
  return { version, capabilities, clientInfo: isImplementation(info) ? info : undefined, logLevel: level, meta: m };
}
