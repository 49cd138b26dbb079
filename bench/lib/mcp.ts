/**
 * The MCP messages the benchmark sends, rendered once per shape, and the checks of the
 * answers. Modern requests are complete 2026-07-28 requests (basic/index.mdx §Per-request
 * protocol fields; streamable-http.mdx §Request Metadata):
 * `_meta` protocol version, client capabilities and client info in the body, and the
 * mirrored `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers.
 */
import type { HttpResponse } from './http.js';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
export const ECHO_TEXT = 'hello-bench';
const CLIENT_INFO = { name: 'janus-bench', version: '1.0.0' };

export function modernMeta(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  };
}

export type Id = number | string;

/** JSON of a request; `id` goes in by string splicing so the hot loop renders cheaply. */
export function rpc(id: Id, method: string, params?: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
}
export function notification(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
}

export function echoParams(era: 'modern' | 'legacy'): Record<string, unknown> {
  const p: Record<string, unknown> = { name: 'echo', arguments: { text: ECHO_TEXT } };
  if (era === 'modern') p._meta = modernMeta();
  return p;
}

export function initializeParams(): Record<string, unknown> {
  return { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO };
}

/** Header lines of one POST to the MCP endpoint (without Content-Length); with `token`, `Authorization: Bearer` last. */
export function postHead(port: number, path: string, extra: Record<string, string>, token?: string): string {
  let h = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n`;
  for (const [k, v] of Object.entries(extra)) h += `${k}: ${v}\r\n`;
  if (token !== undefined) h += `Authorization: Bearer ${token}\r\n`;
  return h;
}

export function modernHeaders(method: string, name?: string): Record<string, string> {
  const h: Record<string, string> = { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method };
  if (name !== undefined) h['Mcp-Name'] = name;
  return h;
}

export function sessionHeaders(sessionId: string): Record<string, string> {
  return { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': LEGACY };
}

export function withBody(head: string, body: string): string {
  return `${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/**
 * A renderer for one request shape with a fresh numeric id each call: the body is split
 * around a placeholder id once, so each request costs two string concatenations.
 */
export function requestRenderer(head: string, method: string, params: Record<string, unknown> | undefined): (id: number) => string {
  const marker = 987654321;
  const body = rpc(marker, method, params);
  const at = body.indexOf(String(marker));
  const before = body.slice(0, at);
  const after = body.slice(at + String(marker).length);
  const fixed = Buffer.byteLength(before) + Buffer.byteLength(after);
  return (id: number) => {
    const s = String(id);
    return `${head}Content-Length: ${fixed + s.length}\r\n\r\n${before}${s}${after}`;
  };
}

/** The JSON-RPC messages of a response body: one JSON document, or the `data:` of SSE events. */
/**
 * The messages of a raw HTTP/1.1 response read off a socket (a listen stream): the head cut
 * off, and the chunked-encoding size lines (hex digits alone on a line) dropped before SSE is read.
 */
export function streamMessagesOf(chunks: readonly Buffer[]): { sse: string; msgs: Array<Record<string, any>> } {
  const text = Buffer.concat(chunks).toString('utf8');
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  const sse = body
    .split('\r\n')
    .filter((l) => !/^[0-9a-fA-F]+$/.test(l))
    .join('\n');
  return { sse, msgs: messagesOf({ body: sse }) };
}

export function messagesOf(res: HttpResponse | { body: Buffer | string }): Array<Record<string, any>> {
  const text = typeof res.body === 'string' ? res.body : res.body.toString('utf8');
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    const v = JSON.parse(t);
    return Array.isArray(v) ? v : [v];
  }
  const out: Array<Record<string, any>> = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data.trim() !== '') out.push(JSON.parse(data));
  }
  return out;
}

export class WrongAnswer extends Error {
  override name = 'WrongAnswer';
}

/** The response to request `id` in a body, or a WrongAnswer. */
export function responseTo(res: HttpResponse | { body: Buffer | string }, id: Id, what: string): Record<string, any> {
  let msgs: Array<Record<string, any>>;
  try {
    msgs = messagesOf(res);
  } catch (e) {
    throw new WrongAnswer(`${what}: unreadable body (${(e as Error).message}): ${String(res.body).slice(0, 300)}`);
  }
  const m = msgs.find((x) => x.id === id && ('result' in x || 'error' in x));
  if (!m) throw new WrongAnswer(`${what}: no response with id ${JSON.stringify(id)} in ${String(res.body).slice(0, 300)}`);
  if (m.error) throw new WrongAnswer(`${what}: error ${JSON.stringify(m.error)}`);
  return m.result as Record<string, any>;
}

/** Checks an echo answer: exactly one text item with the sent text, not an error. */
export function checkEcho(result: Record<string, any>, what: string, era: 'modern' | 'legacy'): void {
  const c = result?.content;
  const ok =
    Array.isArray(c) &&
    c.length === 1 &&
    c[0]?.type === 'text' &&
    c[0]?.text === ECHO_TEXT &&
    result.isError !== true &&
    (era === 'legacy' || result.resultType === undefined || result.resultType === 'complete');
  if (!ok) throw new WrongAnswer(`${what}: wrong echo answer ${JSON.stringify(result).slice(0, 300)}`);
}

const MARK = Buffer.from(`"text":"${ECHO_TEXT}"`);
const ERR = Buffer.from('"error"');
const IS_ERR = Buffer.from('"isError":true');

/** The cheap per-response check of the load loop: 200, the echoed text, no error. */
export function quickEchoCheck(res: HttpResponse): boolean {
  return res.status === 200 && res.body.indexOf(MARK) >= 0 && res.body.indexOf(ERR) < 0 && res.body.indexOf(IS_ERR) < 0;
}
