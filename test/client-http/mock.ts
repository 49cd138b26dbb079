/** Small hand-written node:http servers for the client channel tests (real sockets on 127.0.0.1). */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ChannelHandlers } from '../../src/client/channel.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';

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

export async function mockServer(handler: Handler, path = '/mcp'): Promise<Mock> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
      seen.push(s);
      new Promise((resolve) => resolve(handler(req, res, s))).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: new URL(`http://127.0.0.1:${address.port}${path}`),
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
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

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Resolves when the client side of this request's socket goes away. */
export function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => res.on('close', () => resolve()));
}

export function request(id: number | string, method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0' as const, id, method, params };
}
