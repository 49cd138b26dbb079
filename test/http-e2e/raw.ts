/**
 * Raw HTTP for the e2e tests: one `node:http` request per exchange on its own connection, and
 * an incremental SSE parser (WHATWG HTML §9.2.6 "Interpreting an event stream"). Knows
 * nothing of MCP; support.ts builds the schema-checking peer on it.
 */
import { AssertionError } from 'node:assert';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { truncateJson } from '../support/wire-schema.js';

export type Msg = Record<string, any>;
export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const WAIT_MS = 4000;

export interface SseEvent {
  /** `message` when the event has no `event:` field. */
  readonly event: string;
  readonly data: string;
  readonly id?: string;
  readonly retry?: number;
  /** The parsed JSON-RPC message (message events with data only). */
  message?: Msg;
  /** Why the message broke the wire schema, if it did. */
  violation?: string;
}

/**
 * Incremental SSE parser. Unlike a browser it also yields events whose data is empty (the
 * 2025-11-25 priming event: an id and `retry` only), so tests can assert them.
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
    const e: { event: string; data: string; id?: string; retry?: number } = { event: this.#event || 'message', data: this.#data.join('\n') };
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
      if (Date.now() > end) throw new AssertionError({ message: `no SSE event within ${ms} ms; events so far: ${truncateJson(this.events)}` });
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
      timer = setTimeout(() => reject(new AssertionError({ message: `SSE stream still open after ${ms} ms; events: ${truncateJson(this.events)}` })), ms);
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
