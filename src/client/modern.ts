/**
 * What every 2026-07-28 request carries (basic/index.mdx §_meta; streamable-http.mdx
 * §Request Metadata): the `_meta` envelope, and on HTTP the mirrored headers.
 */
import { META } from '../protocol/meta.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import { encodeHeaderValue, headerParamValue, type HeaderParam } from '../protocol/x-mcp-header.js';

export function envelope(
  params: Record<string, unknown>,
  version: string,
  capabilities: ClientCapabilities,
  clientInfo: Implementation,
  logLevel: LoggingLevel | undefined,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    ...(params._meta as Record<string, unknown> | undefined),
    [META.protocolVersion]: version,
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: clientInfo,
  };
  if (logLevel !== undefined) meta[META.logLevel] = logLevel;
  return { ...params, _meta: meta };
}

const NAMED: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

export function modernHeaders(method: string, params: Record<string, unknown>, version: string, headerParams: readonly HeaderParam[] | undefined): Record<string, string> {
  const h: Record<string, string> = { 'MCP-Protocol-Version': version, 'Mcp-Method': method };
  const field = NAMED[method];
  if (field) {
    const name = encodeHeaderValue(params[field]);
    if (name !== undefined) h['Mcp-Name'] = name;
  }
  if (method === 'tools/call' && headerParams) {
    for (const p of headerParams) {
      const value = encodeHeaderValue(headerParamValue(params.arguments, p));
      if (value !== undefined) h[`Mcp-Param-${p.name}`] = value;
    }
  }
  return h;
}
