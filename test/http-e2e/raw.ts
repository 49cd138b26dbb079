/**
 * Raw HTTP for the e2e tests: one `node:http` request per exchange on its own connection, its
 * SSE events parsed as they arrive (test/support/http.ts). Knows nothing of MCP; support.ts
 * builds the schema-checking peer on it.
 */
import { AssertionError } from 'node:assert';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Msg } from '../support/common.js';
import { SseParser, type SseEvent as ParsedEvent } from '../support/http.js';
import { truncateJson } from '../support/wire-schema.js';

export const WAIT_MS = 4000;

/** An SSE event as the checking peer keeps it. */
export interface SseEvent extends ParsedEvent {
  /** The parsed JSON-RPC message (message events with data only). */
  message?: Msg;
  /** Why the message broke the wire schema, if it did. */
  violation?: string;
}

export interface RawInit {
  method?: string;
  headers?: Record<string, string | undefined>;
  body?: string;
}

/** One HTTP exchange on its own connection (`agent: false`), body read eagerly. */
export class RawReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly isSse: boolean;
  /** Resolves when the response ended or the connection closed. */
  readonly ended: Promise<void>;
  readonly events: SseEvent[] = [];
  #text = '';
  #done = false;
  #read = 0;
  #wake: (() => void) | undefined;
  readonly #req: http.ClientRequest;
  readonly #res: IncomingMessage;
  readonly #parser = new SseParser();

  constructor(req: http.ClientRequest, res: IncomingMessage, onEvent: (e: SseEvent) => void) {
    this.#req = req;
    this.#res = res;
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    this.isSse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (!this.isSse) return void (this.#text += chunk);
      for (const e of this.#parser.push(chunk)) {
        onEvent(e);
        this.events.push(e);
      }
      this.#poke();
    });
    this.ended = new Promise((resolve) => {
      const finish = () => {
        this.#done = true;
        this.#poke();
        resolve();
      };
      res.once('end', finish);
      res.once('close', finish);
      res.once('error', finish);
    });
  }

  get done(): boolean {
    return this.#done;
  }

  /** The whole body of a non-SSE response. */
  async text(): Promise<string> {
    await this.ended;
    return this.#text;
  }

  /** The next unread event; rejects on timeout or when the stream ended first. */
  async next(ms = WAIT_MS): Promise<SseEvent> {
    const end = Date.now() + ms;
    while (this.#read >= this.events.length) {
      if (this.#done) throw new AssertionError({ message: `SSE stream ended; events so far: ${truncateJson(this.events)}` });
      if (Date.now() > end)
        throw new AssertionError({ message: `no SSE event within ${ms} ms; events so far: ${truncateJson(this.events)}` });
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, end - Date.now()));
        this.#wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
    return this.events[this.#read++]!;
  }

  /** The unread events once the stream has ended. */
  async rest(ms = WAIT_MS): Promise<SseEvent[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new AssertionError({ message: `SSE stream still open after ${ms} ms; events: ${truncateJson(this.events)}` })),
        ms,
      );
    });
    try {
      await Promise.race([this.ended, timeout]);
    } finally {
      clearTimeout(timer);
    }
    const out = this.events.slice(this.#read);
    this.#read = this.events.length;
    return out;
  }

  /** The client goes away: the connection is destroyed mid-response. */
  abort(): void {
    this.#req.destroy();
    this.#res.destroy();
  }

  #poke(): void {
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  }
}

/** Sends one request; `onEvent` sees every SSE event as it is parsed. */
export function raw(url: URL | string, init: RawInit = {}, onEvent: (e: SseEvent) => void = () => {}): Promise<RawReply> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(init.headers ?? {})) if (v !== undefined) headers[k] = v;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers, agent: false });
    req.once('error', reject);
    req.once('response', (res) => {
      req.on('error', () => {}); // a reset after the response started shows as the stream's end
      resolve(new RawReply(req, res, onEvent));
    });
    req.end(init.body);
  });
}
