/** Pieces shared by the two HTTP channels (Streamable HTTP and the 2024-11-05 HTTP+SSE). */
import { JanusError } from '../../protocol/errors.js';
import { classify, type JsonRpcMessage, type JsonRpcResponse, type RequestId } from '../../protocol/jsonrpc.js';
import { ChannelError } from '../channel.js';
import type { SseParser } from './sse-parser.js';

export type FetchLike = typeof fetch;

/** A failed HTTP exchange: the status and body as `ChannelError` has them, plus the reply's headers (e.g. `WWW-Authenticate` on 401/403). */
export class HttpChannelError extends ChannelError {
  constructor(message: string, status: number | undefined, body: string | undefined, readonly headers?: Headers, options?: { cause?: unknown }) {
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

/** Reads a body as text; a broken body reads as ''. */
export async function readText(res: Response): Promise<string> {
  try {
    return await res.text();
  } catch {
    return '';
  }
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
    return JSON.parse(text) as unknown;
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

/** The error for a non-2xx reply that carries no JSON-RPC answer. */
export async function statusError(what: string, res: Response): Promise<HttpChannelError> {
  const body = await readText(res);
  return new HttpChannelError(`${what} failed with HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, res.status, body, res.headers);
}

/**
 * Feeds an SSE body to the parser until it ends, breaks, or `stop()` says the reader is no
 * longer wanted (then the body is cancelled). Resolves with the error when it broke.
 */
export async function pumpEvents(body: ReadableStream<Uint8Array> | null, parser: SseParser, stop: () => boolean): Promise<{ error?: unknown }> {
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
