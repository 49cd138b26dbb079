/** Small hand-written node:http servers for the client channel tests (real sockets on 127.0.0.1). */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { ChannelHandlers } from '../../src/client/channel.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';
import { listen, readingBody } from '../support/http.js';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => unknown;

export interface Mock {
  url: URL;
  seen: Seen[];
  close(): Promise<void>;
}

/** A server that records every request (`seen`, body read) before `handler` answers it. */
export async function mockServer(handler: Handler, path = '/mcp'): Promise<Mock> {
  const seen: Seen[] = [];
  const server = await listen(
    readingBody((req, res, body) => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: performance.now() };
      seen.push(s);
      return handler(req, res, s);
    }),
    path,
  );
  return { url: server.url, seen, close: server.close };
}

export function sseHead(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
}

export interface Frame {
  id?: string;
  event?: string;
  retry?: number;
  data?: unknown;
}

/** One SSE event; `data` that is not a string is JSON-encoded. */
export function frame(f: Frame): string {
  let s = '';
  if (f.event !== undefined) s += `event: ${f.event}\n`;
  if (f.id !== undefined) s += `id: ${f.id}\n`;
  if (f.retry !== undefined) s += `retry: ${f.retry}\n`;
  if (f.data !== undefined) {
    const text = typeof f.data === 'string' ? f.data : JSON.stringify(f.data);
    for (const line of text.split('\n')) s += `data: ${line}\n`;
  }
  return `${s}\n`;
}

/** Records what a channel hands to its client. */
export class Recorder implements ChannelHandlers {
  readonly messages: JsonRpcMessage[] = [];
  readonly closes: (Error | undefined)[] = [];
  private waiters: (() => void)[] = [];

  onMessage(message: JsonRpcMessage): void {
    this.messages.push(message);
    this.wake();
  }

  onClose(error?: Error): void {
    this.closes.push(error);
    this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves once `predicate()` holds (checked after every delivery), or fails after `ms`. */
  async until(predicate: () => boolean, ms = 3000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for the channel');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 50));
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
  }
}

/** Resolves when the client side of this request's socket goes away. */
export function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => res.on('close', () => resolve()));
}

export function request(id: number | string, method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0' as const, id, method, params };
}
