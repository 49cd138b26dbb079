/**
 * Web-standard adapter: `(request: Request) => Promise<Response>` for Bun, Deno, Cloudflare
 * Workers and anything else with the Fetch API. Web APIs only, here and in every import.
 */
import type { BodyResult, DisconnectListener, HeaderMap, HttpExchange } from './exchange.js';
import type { AuthInfo, Server } from '../../server/index.js';
import type { ServerCore } from '../../spi/index.js';
import { resolveCore } from './core-access.js';
import { HttpHandler } from './handler.js';
import type { HttpHandlerOptions } from './handler-options.js';
import { notFoundBody } from './not-found.js';
import { resolveOptions } from './options.js';

const TOO_LARGE: BodyResult = { kind: 'too-large' };
const TIMEOUT: BodyResult = { kind: 'timeout' };
const ABORTED: BodyResult = { kind: 'aborted' };
const encoder = new TextEncoder();
const byteLength = (chunk: Uint8Array) => chunk.byteLength;

/**
 * Turns of the event loop, counted by one shared timer while streams write: a stream's queue is
 * judged at its first write of a turn, on what earlier turns left in it, so that a burst written
 * within one turn (before the runtime could take any of it) is not taken for a stalled reader.
 */
let turn = 0;
let turnScheduled = false;
function nextTurn(): void {
  turn++;
  turnScheduled = false;
}
function currentTurn(): number {
  if (!turnScheduled) {
    turnScheduled = true;
    setTimeout(nextTurn, 0);
  }
  return turn;
}
const INTERNAL_ERROR_BODY = JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' } });

/**
 * One request. It is its own abort listener (`handleEvent`) and its own stream source
 * (`start`/`cancel`), so no closures are made beyond the response promise.
 */
class FetchExchange implements HttpExchange {
  readonly method: string;
  readonly pathname: string;
  readonly loopbackPort = undefined;
  readonly clientAddress: string | undefined;
  readonly response: Promise<Response>;
  listener: DisconnectListener | undefined;
  auth: AuthInfo | undefined = undefined;
  readonly #request: Request;
  readonly #url: URL;
  /** The body reader while `readBody` runs, so that `expireBody` can cancel it. */
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #expired = false;
  #resolve!: (r: Response) => void;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #state: 'new' | 'streaming' | 'done' = 'new';
  #gone = false;
  /** The most a stream may hold for a reader that does not drain (`maxStreamBufferBytes`). */
  readonly #maxHeld: number;
  /** The turn of this stream's last write (`currentTurn`). */
  #turn = -1;

  get publicPathname(): string {
    return this.pathname;
  }

  get secure(): boolean {
    return this.#url.protocol === 'https:';
  }

  constructor(request: Request, url: URL, clientAddress: string | undefined, maxHeld: number) {
    this.method = request.method.toUpperCase();
    this.#maxHeld = maxHeld;
    this.clientAddress = clientAddress;
    this.pathname = url.pathname;
    this.#request = request;
    this.#url = url;
    this.response = new Promise<Response>((resolve) => {
      this.#resolve = resolve;
    });
    request.signal?.addEventListener('abort', this, { once: true });
  }

  query(name: string): string | null {
    return this.#url.searchParams.get(name);
  }

  /** A `Request` built by hand may lack Host; the runtime's URL then says which host was asked for. */
  header(name: string): string | undefined {
    const v = this.#request.headers.get(name);
    if (v !== null) return v;
    return name === 'host' ? this.#url.host : undefined;
  }

  get open(): boolean {
    return this.#state !== 'done' && !this.#gone;
  }

  async readBody(limit: number): Promise<BodyResult> {
    if (Number(this.#request.headers.get('content-length')) > limit) return TOO_LARGE;
    const body = this.#request.body;
    if (body === null) return { kind: 'ok', text: '' };
    const reader = body.getReader();
    this.#reader = reader;
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (this.#expired) return TIMEOUT;
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          void reader.cancel().catch(() => undefined);
          return TOO_LARGE;
        }
        chunks.push(value);
      }
    } catch {
      return this.#expired ? TIMEOUT : ABORTED;
    } finally {
      this.#reader = undefined;
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.byteLength;
    }
    return { kind: 'ok', text: new TextDecoder().decode(all) };
  }

  expireBody(): void {
    const reader = this.#reader;
    if (reader === undefined) return;
    this.#expired = true;
    void reader.cancel().catch(() => undefined);
  }

  respond(status: number, headers: HeaderMap, body?: string): void {
    if (!this.open) return;
    this.#state = 'done';
    this.#resolve(new Response(body ?? null, { status, headers }));
  }

  startStream(status: number, headers: HeaderMap): void {
    if (!this.open) return;
    this.#state = 'streaming';
    // Counted in bytes: the runtime takes chunks as its socket drains, so what it has not taken
    // is what waits for a client that does not read (`desiredSize` below zero: past the bound).
    const strategy: QueuingStrategy<Uint8Array> = { highWaterMark: this.#maxHeld, size: byteLength };
    this.#resolve(new Response(new ReadableStream<Uint8Array>(this, strategy), { status, headers }));
  }

  write(chunk: string): void {
    if (this.#state !== 'streaming' || this.#gone) return;
    const controller = this.#controller;
    if (controller === undefined) return;
    const now = currentTurn();
    if (now !== this.#turn) {
      this.#turn = now;
      if (controller.desiredSize !== null && controller.desiredSize < 0) {
        // Earlier turns left more than the bound untaken: the reader does not drain. The stream
        // ends as a dropped connection does (its client resumes with Last-Event-ID where an
        // event store keeps the events, or lists again).
        this.#lost();
        controller.error(new Error(`the client did not read this event stream (over ${this.#maxHeld} bytes waiting)`));
        return;
      }
    }
    try {
      controller.enqueue(encoder.encode(chunk));
    } catch {
      this.#lost();
    }
  }

  end(): void {
    if (this.#state === 'done') return;
    const streaming = this.#state === 'streaming';
    this.#state = 'done';
    if (streaming && !this.#gone) {
      try {
        this.#controller?.close();
      } catch {
        // already closed by the consumer
      }
    }
  }

  /** Resolves the response if the handler never did (a bug guard: a fetch must not hang). */
  settle(): void {
    if (this.#state === 'new') this.respond(500, { 'content-type': 'application/json' }, INTERNAL_ERROR_BODY);
  }

  // ReadableStream underlying source
  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
  }

  cancel(): void {
    this.#lost();
  }

  // EventListener of request.signal: the client went away (Deno, Bun, Workers).
  handleEvent(): void {
    this.#lost();
  }

  #lost(): void {
    if (this.#gone || this.#state === 'done') return;
    this.#gone = true;
    this.listener?.onDisconnect(this);
  }
}

/**
 * How a fetch handler serves the endpoint: the HTTP handler's options, plus how to tell a
 * request's client address.
 */
export interface FetchHandlerOptions extends HttpHandlerOptions {
  /**
   * The client address of a request, for `maxSessionsPerClient`; a fetch handler sees no
   * socket, so without it no client is counted. E.g. Cloudflare Workers:
   * `(request) => request.headers.get('cf-connecting-ip') ?? undefined`.
   */
  clientAddress?: (request: Request) => string | undefined;
}

/**
 * A web-standard MCP endpoint: takes a `Request` and resolves with its `Response`. Mount it in
 * Bun, Deno, Cloudflare Workers, Hono or any Fetch API server; `close()` ends its sessions and
 * streams.
 */
export type FetchHandler = ((request: Request) => Promise<Response>) & {
  /** Ends all sessions and open streams of this handler. */
  close(): Promise<void>;
};

/**
 * A web-standard handler for the MCP endpoint. DNS-rebinding protection is on as everywhere:
 * Host (or, when the `Request` has none, its URL's host) must be a loopback name until
 * `allowedHosts` names the hosts this handler is deployed under.
 */
export function createFetchHandler(server: Server | ServerCore, options?: FetchHandlerOptions): FetchHandler {
  const core = resolveCore(server);
  const resolved = resolveOptions(options);
  const handler = new HttpHandler(core, resolved, options);
  const clientAddress = options?.clientAddress;
  const maxHeld = resolved.maxStreamBufferBytes;
  const fn = (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (!handler.matches(url.pathname)) {
      return Promise.resolve(
        new Response(notFoundBody(url.pathname, resolved.path), { status: 404, headers: { 'content-type': 'application/json' } }),
      );
    }
    const ex = new FetchExchange(request, url, clientAddress?.(request), maxHeld);
    void handler.handle(ex).then(() => ex.settle());
    return ex.response;
  };
  return Object.assign(fn, { close: () => handler.close() });
}
