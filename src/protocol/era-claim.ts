/**
 * Which era an inbound message claims: the one classifier behind the server core (per
 * message, on channels that carry both eras, such as stdio) and the HTTP transport (per
 * POST, because the HTTP rules differ per era). The spec leaves the exact rule to
 * implementations (2026-07-28 basic/versioning.mdx §Backward Compatibility); Janus's is:
 *
 * - a `_meta` protocol version claims 2026-07-28, even on `initialize` (which that revision
 *   answers with -32601: it has no handshake);
 * - an `initialize` request opens a handshake-era session;
 * - a method only 2026-07-28 has (`server/discover`, `subscriptions/listen`; the revisions
 *   table says which) claims it too;
 * - JSON-RPC batches exist only in 2025-03-26, so an array is legacy;
 * - on HTTP, a `MCP-Protocol-Version` header is the last hint (versionHeaderClaimsModern);
 * - everything else is legacy session traffic.
 */
import { isRequestId } from './jsonrpc.js';
import { META } from './meta.js';
import { isModernOnlyMethod } from './revisions.js';
import { isLegacyVersion, isModernVersion } from './versions.js';

/** What one decoded payload claims: the stateless wire, a new handshake-era session, or legacy session traffic. */
export type PayloadEra = 'modern' | 'handshake' | 'legacy';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** 2026-07-28 basic/index.mdx §Per-request protocol fields: every modern request names its revision in `_meta`. */
function metaNamesVersion(params: unknown): boolean {
  if (!isObject(params)) return false;
  const meta = params._meta;
  return isObject(meta) && META.protocolVersion in meta;
}

/** Does one request claim the 2026-07-28 wire? (A `_meta` protocol version, or a modern-only method.) */
export function claimsModern(method: string, params: Record<string, unknown> | undefined): boolean {
  return metaNamesVersion(params) || isModernOnlyMethod(method);
}

/**
 * A `MCP-Protocol-Version` HTTP header that claims the modern wire: a modern revision, or
 * (without a session id) any version that is not a legacy revision, so that an unknown one
 * gets -32022 from the core. With a session id an unknown version is a bad legacy header
 * (legacyVersionHeaderProblem), not a modern claim.
 */
export function versionHeaderClaimsModern(version: string | undefined, sessionId: string | undefined): boolean {
  const v = version?.trim();
  if (v === undefined || v === '') return false;
  return isModernVersion(v) || (sessionId === undefined && !isLegacyVersion(v));
}

/**
 * 2025-06-18 and later, transports §Protocol Version Header: on session traffic a present
 * `MCP-Protocol-Version` header must name a supported revision (absent is fine). The problem,
 * or undefined.
 */
export function legacyVersionHeaderProblem(version: string | undefined): string | undefined {
  const v = version?.trim();
  if (v === undefined || v === '' || isLegacyVersion(v)) return undefined;
  return `unsupported MCP-Protocol-Version ${JSON.stringify(v)}`;
}

/**
 * The era one decoded payload (a message, or an array for a batch) claims. `versionHeader`
 * and `sessionId` are HTTP's `MCP-Protocol-Version` and `Mcp-Session-Id` headers, for
 * transports that have them.
 */
export function classifyPayload(payload: unknown, versionHeader?: string, sessionId?: string): PayloadEra {
  if (Array.isArray(payload)) return 'legacy';
  if (isObject(payload)) {
    if (metaNamesVersion(payload.params)) return 'modern';
    const method = payload.method;
    if (method === 'initialize' && isRequestId(payload.id)) return 'handshake';
    if (typeof method === 'string' && isModernOnlyMethod(method)) return 'modern';
  }
  return versionHeaderClaimsModern(versionHeader, sessionId) ? 'modern' : 'legacy';
}
