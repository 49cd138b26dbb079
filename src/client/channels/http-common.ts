/** Pieces shared by the two HTTP channels (Streamable HTTP and the 2024-11-05 HTTP+SSE). */
import { JanusError } from '../../protocol/errors.js';
import { classify, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import type { Meta } from '../../protocol/types.js';
import { isModernVersion } from '../../protocol/versions.js';
import { ChannelError } from '../channel.js';
import { DEFAULT_MAX_MESSAGE_BYTES, tooLarge } from '../limits.js';
import type { SseParser } from './sse-parser.js';

export type FetchLike = typeof fetch;

/** A failed HTTP exchange: the status and body as `ChannelError` has them, plus the reply's headers (e.g. `WWW-Authenticate` on 401/403). */
export class HttpChannelError extends ChannelError {
  constructor(
    message: string,
    status: number | undefined,
    body: string | undefined,
    readonly headers?: Headers,
    options?: { cause?: unknown },
  ) {
    super(message, status, body, options);
    this.name = 'HttpChannelError';
  }
}

const statuses = new WeakMap<object, number>();

/**
 * The HTTP status of the reply a response came in, when it came over HTTP. Era detection
 * needs it: a 404 carrying -32601 is a modern server, a 200 carrying -32601 is not
 * (2026-07-28 streamable-http.mdx §Backward Compatibility).
 */
export function httpStatusOf(response: JsonRpcResponse): number | undefined {
  return statuses.get(response);
}

export function recordStatus(response: JsonRpcResponse, status: number): JsonRpcResponse {
  statuses.set(response, status);
  return response;
}

/** The media type of a reply, lower-cased, without parameters. */
export function mediaType(res: Response): string {
  return (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Reads at most `max` bytes of a body as text (the rest is let go); a broken body reads as ''. */
export async function readText(res: Response, max = DEFAULT_MAX_MESSAGE_BYTES): Promise<string> {
  try {
    return (await readUpTo(res, max)).text;
  } catch {
    return '';
  }
}

/**
 * Reads a reply's body as text, failing with a "too large" HttpChannelError past `max`
 * bytes (`what` names the reply). A Content-Length within the bound is trusted when there
 * is no Content-Encoding (whose decoded size it does not give): the body is read in one go.
 */
export async function readBounded(res: Response, max: number, what: string): Promise<string> {
  const length = res.headers.get('content-length');
  if (length !== null && !res.headers.has('content-encoding') && Number(length) <= max) return res.text();
  const { text, over } = await readUpTo(res, max);
  if (over) throw new HttpChannelError(tooLarge(what, max), res.status, undefined, res.headers);
  return text;
}

/** Reads up to `max` bytes of a body; `over` when there was more (the rest is cancelled unread). */
async function readUpTo(res: Response, max: number): Promise<{ text: string; over: boolean }> {
  if (!res.body) return { text: '', over: false };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      parts.push(decoder.decode(value.subarray(0, value.byteLength - (size - max))));
      reader.cancel().catch(() => {});
      return { text: parts.join(''), over: true };
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return { text: parts.join(''), over: false };
}

/** Releases a body we will not read (no socket left dangling). */
export function discard(res: Response): void {
  if (res.body && !res.bodyUsed) res.body.cancel().catch(() => {});
}

/** Every JSON-RPC message in a decoded body (a single message or a 2025-03-26 batch). */
export function messagesIn(value: unknown): JsonRpcMessage[] {
  const out: JsonRpcMessage[] = [];
  for (const v of Array.isArray(value) ? value : [value]) {
    const c = classify(v);
    if (c.kind !== 'invalid') out.push(c.message);
  }
  return out;
}

export function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return undefined;
  }
}

/**
 * The JSON-RPC error response in a failed reply's body, if it answers `id` (or carries no
 * id, as for parse errors and the 400s of header validation). Modern servers put their
 * -32020/-32021/-32022 and -32601 errors on 400/404 replies; the caller needs the code.
 */
export function errorBodyFor(text: string, id: RequestId): JsonRpcResponse | undefined {
  const m = messagesIn(parseJson(text));
  if (m.length !== 1) return undefined;
  const r = m[0]!;
  if (!('error' in r)) return undefined;
  return r.id === undefined || r.id === null || r.id === id ? r : undefined;
}

/** The rejection for a request whose caller aborted it. */
export function abortError(method: string, signal: AbortSignal | undefined): JanusError {
  return new JanusError('ABORTED', `${method} aborted`, { cause: signal?.reason });
}

export function isAbort(e: unknown): boolean {
  return e instanceof Error && (e.name === 'AbortError' || e.name === 'TimeoutError');
}

/** Control characters (C0, DEL, C1) and bidirectional formatting marks: nothing a one-line message should carry. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to strip
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The longest excerpt of a server's own explanation put in an error message (the whole body stays on `body`). */
const MAX_REASON = 200;

/**
 * The server's own explanation in a failed reply's body, fit for a one-line message: a
 * JSON-RPC error's message (or another JSON error's `message`, `error_description` or `error`
 * string), an HTML page's title, else the first non-empty line of the text. Control and
 * bidirectional-formatting characters become spaces; at most 200 characters.
 */
export function serverReason(body: string | undefined): string | undefined {
  const text = body?.trim();
  if (!text) return undefined;
  let reason = jsonReason(parseJson(text));
  if (reason === undefined && /^<(!doctype|html)/i.test(text)) {
    reason = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1] ?? '';
  }
  reason ??= text.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  const clean = reason.replace(UNPRINTABLE, ' ').replace(/\s+/g, ' ').trim();
  if (!clean) return undefined;
  return clean.length > MAX_REASON ? `${clean.slice(0, MAX_REASON - 1)}…` : clean;
}

function jsonReason(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const o = value as { error?: unknown; message?: unknown; error_description?: unknown };
  if (typeof o.error === 'object' && o.error !== null) {
    const message = (o.error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  for (const v of [o.error_description, o.message, o.error]) if (typeof v === 'string') return v;
  return undefined;
}

/**
 * The message for a non-2xx reply: what was sent, where, the status, and what the server said
 * about it, e.g. `POST tools/list to http://10.0.0.5:3000/mcp failed with HTTP 403 Forbidden:
 * Host header '10.0.0.5:3000' not allowed …`.
 */
export function httpFailureMessage(
  what: string,
  url: URL,
  status: number,
  statusText: string | undefined,
  body: string | undefined,
): string {
  const reason = serverReason(body);
  const text = statusText && statusText !== reason ? ` ${statusText}` : '';
  return `${what} to ${url.href} failed with HTTP ${status}${text}${reason ? `: ${reason}` : ''}`;
}

/** The error for a non-2xx reply: `httpFailureMessage`, with the status, the body and the headers on the error. */
export function httpFailure(what: string, url: URL, res: Response, body: string): HttpChannelError {
  return new HttpChannelError(httpFailureMessage(what, url, res.status, res.statusText, body), res.status, body, res.headers);
}

/** The error for a non-2xx reply that carries no JSON-RPC answer (its body read up to `max` bytes). */
export async function statusError(what: string, url: URL, res: Response, max?: number): Promise<HttpChannelError> {
  return httpFailure(what, url, res, await readText(res, max));
}

/**
 * Feeds an SSE body to the parser until it ends, breaks, or `stop()` says the reader is no
 * longer wanted (then the body is cancelled). Resolves with the error when it broke.
 */
export async function pumpEvents(
  body: ReadableStream<Uint8Array> | null,
  parser: SseParser,
  stop: () => boolean,
): Promise<{ error?: unknown }> {
  if (!body) {
    parser.end();
    return {};
  }
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        parser.end();
        return {};
      }
      parser.push(value);
      if (stop()) {
        await reader.cancel().catch(() => {});
        return {};
      }
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    return { error };
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first (the timer is cleared either way). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `new Headers(base)` then `extra` over it (header names are case-insensitive). */
export function mergeHeaders(...sources: (Record<string, string> | undefined)[]): Headers {
  const h = new Headers();
  for (const s of sources) for (const [k, v] of Object.entries(s ?? {})) h.set(k, v);
  return h;
}

/** An error's message for a ChannelError's text. */
export function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The error codes along a fetch failure's causes (undici puts the socket's error on `cause`, at times an AggregateError of several). */
function causeCodes(e: unknown): { codes: string[]; innermost: string } {
  const codes: string[] = [];
  let innermost = describe(e);
  const visit = (x: unknown, depth: number): void => {
    if (!x || typeof x !== 'object' || depth > 5) return;
    const { code, cause, errors, message } = x as { code?: unknown; cause?: unknown; errors?: unknown; message?: unknown };
    if (typeof code === 'string') codes.push(code);
    if (typeof message === 'string' && message) innermost = message;
    if (Array.isArray(errors)) for (const inner of errors) visit(inner, depth + 1);
    visit(cause, depth + 1);
  };
  visit(e, 0);
  return { codes, innermost };
}

/**
 * The error for a fetch that failed before any reply came: the cause in plain words
 * (connection refused, host not found, ...), the URL, and what to check. The fetch error
 * is the `cause`.
 */
export function fetchError(what: string, url: URL, e: unknown): ChannelError {
  const { codes, innermost } = causeCodes(e);
  const code = (...wanted: string[]) => codes.find((c) => wanted.includes(c));
  const host = url.hostname;
  const where = `${host}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  const fail = (why: string) => new ChannelError(`could not connect to ${url.href}: ${why}`, undefined, undefined, { cause: e });
  let c: string | undefined;
  if ((c = code('ECONNREFUSED'))) {
    return fail(
      `connection refused (nothing is listening on ${where}). Check that the server is running, and that the host and port in the URL are right.`,
    );
  }
  if ((c = code('ENOTFOUND', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA'))) {
    return fail(`host not found (${host} does not resolve: ${c}). Check the host name in the URL.`);
  }
  if ((c = code('EAI_AGAIN'))) {
    return fail(`could not look up ${host} (EAI_AGAIN, a temporary DNS failure). Check the network connection and DNS, then try again.`);
  }
  if ((c = code('ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT'))) {
    return fail(`the connection to ${where} timed out (${c}). Check the host and port, and any firewall or proxy in between.`);
  }
  if ((c = code('EHOSTUNREACH', 'ENETUNREACH'))) {
    return fail(`${host} is unreachable (${c}). Check the network connection and the host in the URL.`);
  }
  if ((c = codes.find((x) => /CERT|SSL|TLS|EPROTO|SELF_SIGNED|UNABLE_TO_VERIFY/.test(x)))) {
    return fail(
      `the TLS handshake failed (${c}: ${innermost}). Check the server's certificate, and whether it speaks https or plain http.`,
    );
  }
  if ((c = code('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'))) {
    return new ChannelError(
      `${what} to ${url.href} failed: the server closed the connection without answering (${c}). Check that the URL (http or https, host, port, path) points to the server's MCP endpoint.`,
      undefined,
      undefined,
      { cause: e },
    );
  }
  const detail = innermost !== describe(e) ? `: ${innermost}` : '';
  return new ChannelError(`${what} to ${url.href} failed: ${describe(e)}${detail}`, undefined, undefined, { cause: e });
}

/** Reads at most `max` characters of a body (enough to say what came back), then lets the rest go. */
export async function readPrefix(res: Response, max = 16_384): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < max) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A broken body says what it said so far.
  } finally {
    reader.cancel().catch(() => {});
  }
  return text.slice(0, max);
}

/** A short description of a body that is not MCP's: an HTML page's title, or its first words. */
function whatCameBack(type: string, body: string): string {
  const text = body.trim();
  if (!text) return 'an empty body';
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, ' ').trim();
  if (type === 'text/html' || /^<(!doctype|html)/i.test(text))
    return title ? `an HTML page titled ${JSON.stringify(title)}` : 'an HTML page';
  const flat = text.replace(/\s+/g, ' ');
  return JSON.stringify(flat.length > 120 ? `${flat.slice(0, 120)}…` : flat);
}

const CHECK_URL =
  "Check the URL: it must be the server's MCP endpoint (often ending in /mcp, or /sse for 2024-11-05 servers), not a web page or another API.";

/** A successful reply that is not JSON-RPC (a web page, another API): the URL is not an MCP endpoint. */
export function notMcpReply(what: string, url: URL, res: Response, body: string): HttpChannelError {
  const type = mediaType(res) || 'without a content type';
  return new HttpChannelError(
    `${url.href} is not an MCP endpoint: it answered ${what} with HTTP ${res.status} ${type}, ${whatCameBack(type, body)}, ` +
      `where an MCP server answers with JSON-RPC (application/json or text/event-stream). ${CHECK_URL}`,
    res.status,
    body,
    res.headers,
  );
}

/** Every step of the connection was refused as if nothing were there (404, 405, 501): not an MCP endpoint, in any revision. */
export function notAnEndpoint(url: URL, answers: ReadonlyArray<{ what: string; status: number }>, last: ChannelError): HttpChannelError {
  const list = answers.map((a) => `${a.what} with HTTP ${a.status}`);
  const said = list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : list[0];
  const reason = serverReason(last.body);
  return new HttpChannelError(
    `${url.href} is not an MCP endpoint: it answered ${said}${reason ? ` (${JSON.stringify(reason)})` : ''}. ${CHECK_URL} Check also that the MCP server is the one running at this address.`,
    last.status,
    last.body,
    last instanceof HttpChannelError ? last.headers : undefined,
    { cause: last },
  );
}

/** A stateless-era request (its version is in `_meta`): it belongs to no session, and its stream is never resumed (2026-07-28 streamable-http.mdx §Receiving Messages). */
export function isModernRequest(request: JsonRpcRequest): boolean {
  const params: { _meta?: Meta } | undefined = request.params;
  return isModernVersion(params?._meta?.[META.protocolVersion]);
}
