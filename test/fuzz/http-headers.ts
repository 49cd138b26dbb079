/**
 * The headers a correct client sends with a fuzz frame over Streamable HTTP, and what the
 * harness could not mirror faithfully (so that a -32020 HeaderMismatch is the server's right
 * answer): 2026-07-28 streamable-http.mdx §Standard Request Headers (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`), §Custom Headers (`Mcp-Param-*` of `x-mcp-header` arguments, the
 * example's test_x_mcp_header), §Value Encoding (`=?base64?…?=`); 2025-06-18+ transports
 * §Session Management and §Protocol Version Header for legacy sessions.
 */
import { encodeHeaderValue } from '../../src/protocol/x-mcp-header.js';
import { META_VERSION, MODERN } from '../support/common.js';
import { claimsModern, type Context } from './model.js';

/** What a POST body claims, as a dual-era server reads it (2026-07-28 basic/versioning.mdx §Backward Compatibility). */
export type PayloadEra = 'modern' | 'handshake' | 'legacy';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): boolean => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

export function payloadEra(value: unknown): PayloadEra {
  if (!isObject(value)) return 'legacy';
  const params = value.params;
  if (isObject(params) && isObject(params._meta) && Object.hasOwn(params._meta, META_VERSION)) return 'modern';
  if (value.method === 'initialize' && isId(value.id)) return 'handshake';
  return typeof value.method === 'string' && claimsModern(value.method, undefined) ? 'modern' : 'legacy';
}

/** Text a header value can carry as is: visible ASCII and inner spaces. */
const HEADER_SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
/** Headers past this size may get 431 from Node's HTTP parser (16 KiB for all of them). */
export const LARGE_HEADERS = 8 * 1024;

export interface FrameHeaders {
  readonly headers: Record<string, string>;
  /** The body holds something a header had to mirror and could not (exactly): -32020 is a right answer. */
  readonly unmirrored: boolean;
  /** The headers are large enough for 431. */
  readonly large: boolean;
}

/** Base64 form of `=?base64?…?=` decoded as the server does, to see whether a value survives the round trip. */
function decoded(header: string): string {
  const m = /^=\?base64\?(.*)\?=$/.exec(header);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : header;
}

/** The header of a body value that must be mirrored, and whether it mirrors it exactly. */
function mirror(value: unknown): { header: string | undefined; exact: boolean } {
  if (value === undefined || value === null) return { header: undefined, exact: true };
  const header = encodeHeaderValue(value);
  if (header === undefined) return { header, exact: false };
  const primitive = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  return { header, exact: primitive && decoded(header) === String(value) };
}

/** The headers of one frame POSTed on `ctx` (with `sessionId` when the channel has a session). */
/**
 * The `Accept` header a POST carries. Clients MUST list both media types (2025-03-26+ transports
 * §Sending Messages item 2); the others are what lenient servers meet anyway: either one alone,
 * a wildcard, or no header at all.
 */
export type AcceptChoice = 'both' | 'json' | 'sse' | 'any' | 'none';

const ACCEPT: Readonly<Record<AcceptChoice, string | undefined>> = {
  both: 'application/json, text/event-stream',
  json: 'application/json',
  sse: 'text/event-stream',
  any: '*/*',
  none: undefined,
};

export function frameHeaders(text: string, ctx: Context, sessionId: string | undefined, accept: AcceptChoice = 'both'): FrameHeaders {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const acceptHeader = ACCEPT[accept];
  if (acceptHeader !== undefined) headers.accept = acceptHeader;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  let unmirrored = false;
  const era = value === undefined ? 'legacy' : payloadEra(value);
  if (era === 'modern' && isObject(value)) {
    const params = isObject(value.params) ? value.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    const version = meta[META_VERSION];
    if (typeof version === 'string') {
      if (HEADER_SAFE.test(version)) headers['mcp-protocol-version'] = version;
      else unmirrored = true;
    } else if (!Object.hasOwn(meta, META_VERSION)) {
      headers['mcp-protocol-version'] = MODERN; // a modern-only method without _meta: the header names the revision
    }
    if (typeof value.method === 'string') {
      if (HEADER_SAFE.test(value.method)) headers['mcp-method'] = value.method;
      else unmirrored = true;
      const nameField = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' }[value.method];
      const name = nameField === undefined ? undefined : params[nameField];
      if (typeof name === 'string') {
        const m = mirror(name);
        if (m.header !== undefined) headers['mcp-name'] = m.header;
        unmirrored ||= !m.exact;
      }
      if (value.method === 'tools/call' && params.name === 'test_x_mcp_header') {
        const region = isObject(params.arguments) ? params.arguments.region : undefined;
        const m = mirror(region);
        if (m.header !== undefined) headers['mcp-param-region'] = m.header;
        unmirrored ||= !m.exact;
      }
    }
  } else if (sessionId !== undefined) {
    headers['mcp-session-id'] = sessionId;
    if (ctx.session !== undefined && ctx.session >= '2025-06-18') headers['mcp-protocol-version'] = ctx.session;
  }
  const size = Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  return { headers, unmirrored, large: size > LARGE_HEADERS };
}
