/**
 * The 2026-07-28 request metadata headers, as a server checks them
 * (basic/transports/streamable-http.mdx §Request Metadata, §Server Validation): the
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers must mirror the
 * body, or the request is refused with -32020 HeaderMismatch. Protocol knowledge that the HTTP
 * transport calls (it answers the refusal with HTTP 400); the `=?base64?…?=` value codec is
 * shared with the client (x-mcp-header.ts). Runtime-neutral.
 */
import type { JsonRpcRequest } from './jsonrpc.js';
import { META } from './meta.js';
import { requestFacts } from './methods.js';
import { decodeHeaderValue, headerParamValue, type HeaderParam } from './x-mcp-header.js';

/** Where request headers come from (an HTTP exchange), by lower-case name. */
export interface HeaderReader {
  header(lowerName: string): string | undefined;
}

/** Who knows the tools' `x-mcp-header` declarations and the methods beyond the catalogue (the server core). */
export interface ToolHeaderLookup {
  /** A tool's `x-mcp-header` parameters; undefined for an unknown tool. */
  toolHeaderParams(name: string): readonly HeaderParam[] | undefined;
  /** The `Mcp-Name` field of a method the catalogue does not have (an extension's); undefined: none. */
  mcpNameField?(method: string): string | undefined;
}

/** Visible ASCII, space and tab: what a header value may carry (§Value Encoding, RFC 9110 §5.5). */
const HEADER_SAFE = /^[\x20-\x7e\t]*$/;

/**
 * A received `Mcp-Name` / `Mcp-Param-*` value, trimmed (RFC 9110 §5.5 optional whitespace)
 * and decoded when in the `=?base64?…?=` form (strict: canonical padding, standard alphabet,
 * valid UTF-8; a value lacking the prefix or the suffix is a literal). Undefined when invalid,
 * including raw characters a header value may not carry (§Server Behavior for Custom Headers).
 */
function readHeaderValue(raw: string): string | undefined {
  return HEADER_SAFE.test(raw) ? decodeHeaderValue(raw) : undefined;
}

/**
 * The body field a request's `Mcp-Name` header mirrors (§Standard Request Headers): the method
 * catalogue's `mcpName`, or for a method outside it (an extension's) what `extra` says;
 * undefined for a method without one.
 */
export function mcpNameField(method: string, extra?: (method: string) => string | undefined): string | undefined {
  return requestFacts(method)?.mcpName ?? extra?.(method);
}

const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Header text vs body value: integers compared numerically (§Server Validation note), booleans as `true`/`false`. */
function sameValue(header: string, body: unknown): boolean {
  if (typeof body === 'string') return header === body;
  if (typeof body === 'number') return NUMBER_TEXT.test(header) && Number(header) === body;
  if (typeof body === 'boolean') return header === String(body);
  return false;
}

/**
 * Validates the mirrored headers of a modern request against its body. Returns the -32020
 * message, or undefined when they agree. Requests without a body `protocolVersion` are not
 * compared: the core refuses them with -32602 (basic/index.mdx §Per-request protocol fields),
 * which the conformance suite expects even when the version header is present (the spec does
 * not say which of the two checks comes first).
 */
export function checkRequestHeaders(headers: HeaderReader, request: JsonRpcRequest, tools: ToolHeaderLookup): string | undefined {
  const params = request.params;
  const meta = params?._meta;
  if (typeof meta !== 'object' || meta === null || !(META.protocolVersion in meta)) return undefined;
  const bodyVersion: unknown = meta[META.protocolVersion];
  if (typeof bodyVersion !== 'string') return undefined;

  const version = headers.header('mcp-protocol-version');
  if (version === undefined) return 'Header mismatch: MCP-Protocol-Version header is required';
  if (version.trim() !== bodyVersion) {
    return `Header mismatch: MCP-Protocol-Version header '${version.trim()}' does not match body _meta protocolVersion '${bodyVersion}'`;
  }

  const method = headers.header('mcp-method');
  if (method === undefined) return 'Header mismatch: Mcp-Method header is required';
  if (method.trim() !== request.method) {
    return `Header mismatch: Mcp-Method header '${method.trim()}' does not match body method '${request.method}'`;
  }

  const nameField = mcpNameField(request.method, (m) => tools.mcpNameField?.(m));
  const bodyName = nameField === undefined ? undefined : params?.[nameField];
  if (typeof bodyName === 'string') {
    const raw = headers.header('mcp-name');
    if (raw === undefined) return `Header mismatch: Mcp-Name header is required for ${request.method}`;
    const name = readHeaderValue(raw);
    if (name === undefined) return 'Header mismatch: Mcp-Name header value is malformed';
    if (name !== bodyName) return `Header mismatch: Mcp-Name header '${name}' does not match body ${nameField} '${bodyName}'`;
  }

  if (request.method === 'tools/call' && typeof bodyName === 'string') {
    const declared = tools.toolHeaderParams(bodyName); // undefined: unknown tool, the core answers
    if (declared !== undefined && declared.length > 0) {
      for (const p of declared) {
        const problem = checkParam(headers, p, headerParamValue(params?.arguments, p));
        if (problem !== undefined) return problem;
      }
    }
  }
  return undefined;
}

/**
 * `Mcp-Param-{name}` must be present iff the argument is present and non-null
 * (§Server Behavior for Custom Headers): a header without a body value is a header/body
 * mismatch too, which matters to intermediaries that route on it.
 */
function checkParam(headers: HeaderReader, p: HeaderParam, value: unknown): string | undefined {
  const headerName = `Mcp-Param-${p.name}`;
  const raw = headers.header(`mcp-param-${p.name.toLowerCase()}`);
  const present = value !== undefined && value !== null;
  if (!present) {
    return raw === undefined ? undefined : `Header mismatch: ${headerName} header sent but argument '${p.path.join('.')}' is absent`;
  }
  if (raw === undefined) return `Header mismatch: ${headerName} header is required (argument '${p.path.join('.')}' is present)`;
  const decoded = readHeaderValue(raw);
  if (decoded === undefined) return `Header mismatch: ${headerName} header value is malformed`;
  if (!sameValue(decoded, value)) return `Header mismatch: ${headerName} header does not match argument '${p.path.join('.')}'`;
  return undefined;
}
