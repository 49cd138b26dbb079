/**
 * Node adapter: the MCP endpoint directly on `IncomingMessage`/`ServerResponse`, with no
 * Request/Response conversion. Listeners are module-level functions that find their exchange
 * through a symbol, so a request allocates one exchange object and no closures (the body
 * promise aside). Only type imports from `node:` here; `serveHttp` loads `node:http` lazily,
 * so importing this module stays harmless on non-Node runtimes.
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { BodyResult, DisconnectListener, HeaderMap, HttpExchange } from './exchange.js';
import type { AuthInfo, Server } from '../../server/index.js';
import type { ServerCore } from '../../spi/index.js';
import { resolveCore } from './core-access.js';
import { HttpHandler } from './handler.js';
import type { HttpHandlerOptions } from './handler-options.js';
import { notFoundBody } from './not-found.js';
import { resolveOptions } from './options.js';
import { builtinModule } from '../../protocol/builtin.js';
import { extend } from '../../protocol/extend.js';

const kExchange = Symbol('janus-mcp.exchange');
type Tagged<T> = T & { [kExchange]?: NodeExchange };

const TOO_LARGE: BodyResult = { kind: 'too-large' };
const TIMEOUT: BodyResult = { kind: 'timeout' };
const ABORTED: BodyResult = { kind: 'aborted' };

function isLoopbackAddress(a: string | undefined): boolean {
  return a !== undefined && (a.startsWith('127.') || a === '::1' || a.startsWith('::ffff:127.'));
}

/** The listening port when the server socket is bound to loopback, cached per server. */
const loopbackPorts = new WeakMap<object, number | undefined>();
function loopbackPortOf(req: IncomingMessage): number | undefined {
  const socket = req.socket as IncomingMessage['socket'] & { server?: HttpServer };
  const server = socket.server;
  if (server !== undefined && loopbackPorts.has(server)) return loopbackPorts.get(server);
  const addr = server?.address();
  const port =
    typeof addr === 'object' && addr !== null
      ? isLoopbackAddress(addr.address)
        ? addr.port
        : undefined
      : isLoopbackAddress(socket.localAddress)
        ? socket.localPort
        : undefined;
  if (server !== undefined) loopbackPorts.set(server, port);
  return port;
}

function onResponseClose(this: Tagged<ServerResponse>): void {
  this[kExchange]?.lost();
}
function onBodyData(this: Tagged<IncomingMessage>, chunk: Buffer): void {
  this[kExchange]?.bodyData(chunk);
}
function onBodyEnd(this: Tagged<IncomingMessage>): void {
  this[kExchange]?.bodyDone(true);
}
function onBodyClose(this: Tagged<IncomingMessage>): void {
  this[kExchange]?.bodyDone(false);
}
function flushHead(ex: NodeExchange): void {
  ex.flushHead();
}
function endTick(ex: NodeExchange, socket: Socket): void {
  ex.endTick(socket);
}
function endResTick(ex: NodeExchange): void {
  ex.endResTick();
}

/** What a stream holds when its socket has just said it is full: nothing yet. */
const EMPTY = Buffer.alloc(0);

/** Node's own `OutgoingMessage#write`, looked up with the first stream (node:http is not imported eagerly). */
let nodeWrite: unknown;

/**
 * Whether a stream's later events may be written to its socket as HTTP/1.1 chunks, skipping
 * `res.write`'s four buffered writes and its cork per call: a fan-out to 10,000 listen streams
 * spends most of its JavaScript there. Only for Node's own chunked response, its head written,
 * with `write` not replaced (compression middleware wraps it: its bytes must go through it).
 * While a response holds its socket, the socket is its alone (a pipelined request's response
 * waits without one).
 */
function writesDirectly(res: ServerResponse): boolean {
  nodeWrite ??= builtinModule<typeof import('node:http')>('node:http')?.OutgoingMessage.prototype.write;
  return (
    res.write === nodeWrite &&
    (res as { chunkedEncoding?: boolean }).chunkedEncoding === true &&
    res.headersSent &&
    res.getHeader('content-encoding') === undefined
  );
}

class NodeExchange implements HttpExchange {
  readonly method: string;
  readonly pathname: string;
  readonly #clientAddress: ClientAddress | undefined;
  readonly #search: string;
  readonly #req: Tagged<IncomingMessage>;
  readonly #res: Tagged<ServerResponse>;
  listener: DisconnectListener | undefined;
  auth: AuthInfo | undefined = undefined;
  #ended = false;
  #gone = false;
  /** A stream's head was set but not yet written (startStream). */
  #headPending = false;
  /** Later events of this stream go to the socket as HTTP/1.1 chunks (writesDirectly). */
  #direct = false;
  /** An event went to the socket in this tick; #corked: the socket was corked for those after it. */
  #tick = false;
  #corked = false;
  /** An event went through `res.write` in this tick. */
  #resTick = false;
  /** The most a stream may hold for a reader that does not drain (`maxStreamBufferBytes`). */
  readonly #maxHeld: number;
  /**
   * While the socket is full: what waits for its 'drain', in order, as bytes (undefined while it
   * takes writes). Bytes rather than the strings written: the strings die young, so a fan-out to
   * streams that do not drain does not fill the young generation with survivors (V8 then grows
   * it, and the process's memory with it).
   */
  #held: Buffer | undefined;
  #heldBytes = 0;
  // body reading state
  #chunks: Buffer[] = [];
  #size = 0;
  #limit = 0;
  #resolveBody: ((r: BodyResult) => void) | undefined;

  get publicPathname(): string {
    const req = this.#req;
    const original = 'originalUrl' in req ? req.originalUrl : undefined;
    if (typeof original !== 'string') return this.pathname;
    const q = original.indexOf('?');
    return q < 0 ? original : original.slice(0, q);
  }

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    search: string,
    clientAddress: ClientAddress | undefined,
    maxHeld: number,
  ) {
    this.method = (req.method ?? 'GET').toUpperCase();
    this.#maxHeld = maxHeld;
    this.#clientAddress = clientAddress;
    this.pathname = pathname;
    this.#search = search;
    this.#req = req;
    this.#res = res;
    this.#req[kExchange] = this;
    this.#res[kExchange] = this;
    res.on('close', onResponseClose);
  }

  query(name: string): string | null {
    return this.#search === '' ? null : new URLSearchParams(this.#search).get(name);
  }

  header(name: string): string | undefined {
    const v = this.#req.headers[name];
    if (v === undefined) {
      // HTTP/2 carries the host in the :authority pseudo-header.
      const authority = name === 'host' ? this.#req.headers[':authority'] : undefined;
      return typeof authority === 'string' ? authority : undefined;
    }
    return Array.isArray(v) ? v.join(', ') : v;
  }

  get loopbackPort(): number | undefined {
    return loopbackPortOf(this.#req);
  }

  get secure(): boolean {
    return (this.#req.socket as { encrypted?: boolean }).encrypted === true;
  }

  /** `clientAddress(req)` when given; else the socket's peer, except loopback peers (this machine, or a local proxy speaking for everyone). */
  get clientAddress(): string | undefined {
    if (this.#clientAddress !== undefined) return this.#clientAddress(this.#req);
    const a = this.#req.socket.remoteAddress;
    return isLoopbackAddress(a) ? undefined : a;
  }

  get open(): boolean {
    return !this.#ended && !this.#gone;
  }

  readBody(limit: number): Promise<BodyResult> {
    const req = this.#req;
    if (req.readableEnded) {
      // A body parser ran before us: use its result rather than parsing again.
      const parsed = 'body' in req ? req.body : undefined;
      return Promise.resolve(parsed === undefined ? { kind: 'ok', text: '' } : { kind: 'parsed', value: parsed });
    }
    const declared = Number(req.headers['content-length']);
    if (declared > limit) return Promise.resolve(this.#refuseBody());
    this.#limit = limit;
    return new Promise<BodyResult>((resolve) => {
      this.#resolveBody = resolve;
      // `on`, not `once`: no wrapper per listener; a settled body ignores later events.
      req.on('data', onBodyData);
      req.on('end', onBodyEnd);
      req.on('close', onBodyClose);
      req.on('error', onBodyClose);
    });
  }

  /** @internal */
  bodyData(chunk: Buffer): void {
    if (this.#resolveBody === undefined) return; // refused or aborted: keep nothing
    this.#size += chunk.length;
    if (this.#size > this.#limit) {
      this.#finishBody(this.#refuseBody());
      return;
    }
    this.#chunks.push(chunk);
  }

  /** @internal */
  bodyDone(complete: boolean): void {
    if (this.#resolveBody === undefined) return;
    if (!complete || !this.#req.complete) {
      this.#finishBody(ABORTED);
      return;
    }
    const c = this.#chunks;
    const text = c.length === 1 ? c[0]!.toString('utf8') : Buffer.concat(c, this.#size).toString('utf8');
    this.#finishBody({ kind: 'ok', text });
  }

  #finishBody(r: BodyResult): void {
    const resolve = this.#resolveBody;
    if (resolve === undefined) return;
    this.#resolveBody = undefined;
    this.#chunks = [];
    // The listeners stay: they are shared functions that find nothing left to do, and this
    // request object is dropped with the exchange (removing four listeners per request costs more).
    resolve(r);
  }

  /** Stop reading and close the connection after the 413, rather than swallowing the rest. */
  #refuseBody(): BodyResult {
    this.#req.pause();
    if (!this.#res.headersSent) this.#res.setHeader('connection', 'close');
    return TOO_LARGE;
  }

  expireBody(): void {
    if (this.#resolveBody === undefined) return;
    this.#req.pause();
    if (!this.#res.headersSent) this.#res.setHeader('connection', 'close');
    this.#finishBody(TIMEOUT);
  }

  respond(status: number, headers: HeaderMap, body?: string): void {
    if (!this.open) return;
    this.#ended = true;
    const res = this.#res;
    // One header object for writeHead: setHeader would validate and store the length separately.
    res.writeHead(status, body === undefined ? headers : extend(headers, { 'content-length': String(Buffer.byteLength(body)) }));
    res.end(body);
  }

  startStream(status: number, headers: HeaderMap): void {
    if (!this.open) return;
    this.#res.writeHead(status, headers);
    // The head goes out with the first event when one is written in this turn (a listen
    // stream's acknowledgement, a priming event): one write instead of two. Otherwise it is
    // flushed on the next tick, so the client still learns at once that the stream is open.
    this.#headPending = true;
    process.nextTick(flushHead, this);
  }

  /** @internal */
  flushHead(): void {
    if (!this.#headPending) return;
    this.#headPending = false;
    if (this.open) this.#res.flushHeaders();
  }

  write(chunk: string): void {
    if (!this.open || chunk === '') return; // an empty chunk would end a chunked body
    if (this.#held !== undefined) {
      this.#hold(chunk);
      return;
    }
    const socket = this.#direct ? this.#res.socket : null;
    if (socket?.writable) {
      // Full since an earlier turn: this turn waits. (Within a turn the writes are corked, so
      // the buffer fills by design before any of it is offered to the connection.)
      if (!this.#tick && socket.writableNeedDrain) this.#waitForDrain(socket, chunk);
      else this.#writeChunk(socket, chunk);
      return;
    }
    this.#headPending = false;
    const res = this.#res;
    // As above: Node corks the connection for a turn too, so only an earlier turn's fullness counts.
    if (!this.#resTick && res.writableNeedDrain) {
      this.#waitForDrain(res, chunk);
      return;
    }
    if (!this.#resTick) {
      this.#resTick = true;
      process.nextTick(endResTick, this);
    }
    res.write(chunk);
    this.#direct = writesDirectly(res);
  }

  /** @internal */
  endResTick(): void {
    this.#resTick = false;
  }

  /**
   * The socket said it is full: what comes next waits here for its 'drain' instead of piling
   * up in Node's buffers, and a reader that stops reading for good costs at most `#maxHeld`.
   */
  #waitForDrain(emitter: Socket | ServerResponse, first?: string): void {
    this.#held = EMPTY;
    this.#heldBytes = 0;
    emitter.once('drain', () => this.#drained());
    if (first !== undefined) this.#hold(first);
  }

  #hold(chunk: string): void {
    const bytes = this.#heldBytes + Buffer.byteLength(chunk);
    if (bytes > this.#maxHeld) {
      // The reader does not drain: the stream ends as a dropped connection does (its client
      // resumes with Last-Event-ID where an event store keeps the events, or lists again).
      this.#held = undefined;
      this.lost();
      this.#res.destroy();
      return;
    }
    let held = this.#held!;
    if (held.length < bytes) {
      const grown = Buffer.allocUnsafe(Math.min(Math.max(bytes, 2 * held.length, 16 * 1024), this.#maxHeld));
      held.copy(grown, 0, 0, this.#heldBytes);
      this.#held = held = grown;
    }
    held.write(chunk, this.#heldBytes);
    this.#heldBytes = bytes;
  }

  /** What waited goes out in one write (Node's own: it frames bytes), which may find the socket full again. */
  #drained(): void {
    const held = this.#takeHeld();
    if (held !== undefined && this.open) this.#res.write(held);
  }

  /** The bytes waiting for 'drain', no longer held here; undefined when none. */
  #takeHeld(): Buffer | undefined {
    const held = this.#held;
    this.#held = undefined;
    return held === undefined || this.#heldBytes === 0 ? undefined : held.subarray(0, this.#heldBytes);
  }

  /**
   * One HTTP/1.1 chunk, framed as `res.write` would frame it, in one string. The first of a
   * tick is written at once (a fan-out reaches the first streams while it still runs); later
   * ones in the same tick are corked and leave together after it.
   */
  #writeChunk(socket: Socket, chunk: string): void {
    if (!this.#tick) {
      this.#tick = true;
      process.nextTick(endTick, this, socket);
    } else if (!socket.writableCorked) {
      socket.cork();
      this.#corked = true;
    }
    socket.write(`${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`);
  }

  /** @internal */
  endTick(socket: Socket): void {
    this.#tick = false;
    if (this.#corked) {
      this.#corked = false;
      socket.uncork();
    }
  }

  end(): void {
    if (this.#ended) return;
    const held = this.#takeHeld();
    // What waited for 'drain' goes before the end, into Node's buffer (bounded by #maxHeld).
    if (held !== undefined && !this.#gone) this.#res.write(held);
    this.#ended = true;
    if (!this.#gone) this.#res.end();
  }

  /** @internal The response closed: if we had not ended it, the client went away. */
  lost(): void {
    if (this.#ended || this.#gone) return;
    this.#gone = true;
    this.#finishBody(ABORTED);
    this.listener?.onDisconnect(this);
  }
}

/** The client address of a request, for `maxSessionsPerClient`; undefined leaves the request uncounted. */
export type ClientAddress = (req: IncomingMessage) => string | undefined;

/**
 * How a Node handler serves the endpoint: the HTTP handler's options, plus how to tell a request's
 * client address.
 */
export interface NodeHandlerOptions extends HttpHandlerOptions {
  /**
   * The client address of a request, for `maxSessionsPerClient`. Default: the socket's peer
   * address, with loopback peers uncounted. Behind a reverse proxy, read the address the proxy
   * forwards (and that you trust), e.g. `(req) => req.headers['x-real-ip']?.toString()`.
   */
  clientAddress?: ClientAddress;
}

/**
 * A Node request listener for the MCP endpoint, usable as Connect-style middleware (Express):
 * requests to other paths go to `next()`, or get 404 without it. `close()` ends its sessions and
 * streams.
 */
export type NodeHandler = ((req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void) & {
  /** Ends all sessions and open streams of this handler. */
  close(): Promise<void>;
};

/**
 * A Node request listener / Connect-style middleware serving the MCP endpoint. Requests to
 * other paths go to `next()` when given, else 404.
 */
export function createNodeHandler(server: Server | ServerCore, options?: NodeHandlerOptions): NodeHandler {
  const core = resolveCore(server);
  const resolved = resolveOptions(options);
  const handler = new HttpHandler(core, resolved, options);
  const clientAddress = options?.clientAddress;
  const maxHeld = resolved.maxStreamBufferBytes;
  const fn = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    if (!handler.matches(pathname)) {
      if (next !== undefined) next();
      else res.writeHead(404, { 'content-type': 'application/json' }).end(notFoundBody(pathname, resolved.path));
      return;
    }
    void handler.handle(new NodeExchange(req, res, pathname, q < 0 ? '' : url.slice(q + 1), clientAddress, maxHeld), true);
  };
  return Object.assign(fn, { close: () => handler.close() });
}
