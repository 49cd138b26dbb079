/**
 * HTTP pieces several suites share: the headers of a JSON-RPC POST, a node:http server on
 * 127.0.0.1 that ends its connections when closed (a keep-alive socket a client pool holds
 * must not make `close()` wait for the pool's own timeout), JSON replies, and an incremental
 * SSE parser.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a client POSTs with (2025-03-26+ transports §Sending Messages: both media types accepted). */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

export interface Listening {
  /** `http://127.0.0.1:<port><path>`. */
  readonly url: URL;
  readonly http: Server;
  /** Stops listening and ends every connection, idle or not. */
  close(): Promise<void>;
}

/** A node:http server for `listener` on 127.0.0.1, on a free port. */
export async function listen(listener: RequestListener, path = '/mcp'): Promise<Listening> {
  const http = createServer(listener);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}${path}`),
    http,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

export type BodyHandler = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

/** A listener that reads the whole request body first; a handler that throws answers 500. */
export function readingBody(handler: BodyHandler): RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      new Promise((resolve) => resolve(handler(req, res, Buffer.concat(chunks).toString('utf8')))).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
    });
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export interface SseEvent {
  /** `message` when the event has no `event:` field. */
  readonly event: string;
  readonly data: string;
  readonly id?: string;
  readonly retry?: number;
}

/**
 * Incremental SSE parser (WHATWG HTML §9.2.6 "Interpreting an event stream"). Unlike a browser
 * it also yields events whose data is empty (the 2025-11-25 priming event: an id and `retry`
 * only), so tests can assert them.
 */
export class SseParser {
  #buf = '';
  #data: string[] = [];
  #event = '';
  #id: string | undefined;
  #retry: number | undefined;
  #fields = false;

  push(chunk: string): SseEvent[] {
    this.#buf += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.#buf);
      if (m === null) break;
      const line = this.#buf.slice(0, m.index);
      this.#buf = this.#buf.slice(m.index + m[0].length);
      if (line === '') {
        if (this.#fields) out.push(this.#dispatch());
        continue;
      }
      if (line.startsWith(':')) continue; // a comment (keep-alive)
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      this.#fields = true;
      if (name === 'data') this.#data.push(value);
      else if (name === 'event') this.#event = value;
      else if (name === 'id') this.#id = value;
      else if (name === 'retry' && /^\d+$/.test(value)) this.#retry = Number(value);
    }
    return out;
  }

  #dispatch(): SseEvent {
    const e: { event: string; data: string; id?: string; retry?: number } = {
      event: this.#event || 'message',
      data: this.#data.join('\n'),
    };
    if (this.#id !== undefined) e.id = this.#id;
    if (this.#retry !== undefined) e.retry = this.#retry;
    this.#data = [];
    this.#event = '';
    this.#id = undefined;
    this.#retry = undefined;
    this.#fields = false;
    return e;
  }
}
