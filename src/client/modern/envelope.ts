/**
 * What every 2026-07-28 request carries (basic/index.mdx §_meta; streamable-http.mdx
 * §Request Metadata): the `_meta` envelope, and on HTTP the mirrored headers.
 */
import { META } from '../../protocol/meta.js';
import { mcpNameField } from '../../protocol/request-headers.js';
import { taskNameField } from '../../extensions/tasks/methods.js';
import type { ClientCapabilities, Implementation, LoggingLevel, Meta } from '../../protocol/types.js';
import { encodeHeaderValue, headerParamValue, type HeaderParam } from '../../protocol/x-mcp-header.js';
import { extend } from '../../protocol/extend.js';

/** A request's params: whatever the method takes, and the caller's own `_meta`. */
export interface RequestParams {
  _meta?: Meta;
  [key: string]: unknown;
}

export function envelope(
  params: RequestParams,
  version: string,
  capabilities: ClientCapabilities,
  clientInfo: Implementation,
  logLevel: LoggingLevel | undefined,
): RequestParams {
  const meta: Meta = {
    ...params._meta,
    [META.protocolVersion]: version,
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: clientInfo,
  };
  if (logLevel !== undefined) meta[META.logLevel] = logLevel;
  return extend(params, { _meta: meta });
}

export function modernHeaders(
  method: string,
  params: RequestParams,
  version: string,
  headerParams: readonly HeaderParam[] | undefined,
): Record<string, string> {
  const h: Record<string, string> = { 'MCP-Protocol-Version': version, 'Mcp-Method': method };
  const field = mcpNameField(method, taskNameField);
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
