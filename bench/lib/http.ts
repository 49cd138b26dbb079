/**
 * A small HTTP/1.1 client over raw sockets, built to be cheaper than the servers it drives:
 * requests are pre-rendered strings, responses are framed by Content-Length or chunked
 * encoding without copying headers into objects unless asked. One request in flight per
 * connection (no pipelining), keep-alive, Nagle off: what an MCP client's agent does.
 */
import { connect, type Socket } from 'node:net';

export interface HttpResponse {
  status: number;
  /** Lower-case header names; only filled when the connection captures headers. */
  headers: Record<string, string>;
  body: Buffer;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

type BodyMode = { kind: 'length'; n: number } | { kind: 'chunked'; parts: Buffer[] } | { kind: 'close'; parts: Buffer[] };

export class HttpConnection {
  readonly socket: Socket;
  /** Called with each complete response (or with an error). */
  onResponse: (err: Error | undefined, res: HttpResponse | undefined) => void = () => undefined;
  captureHeaders = false;
  #pending: Buffer | undefined;
  #status = 0;
  #headers: Record<string, string> = {};
  #mode: BodyMode | undefined;
  #connected: Promise<void>;
  #closed = false;

  constructor(port: number, host = '127.0.0.1') {
    this.socket = connect({ port, host, noDelay: true });
    this.#connected = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
    this.#connected.catch(() => undefined);
    this.socket.on('data', (chunk: Buffer) => this.#data(chunk));
    this.socket.on('error', (e) => this.#fail(e));
    this.socket.on('close', () => {
      if (this.#mode?.kind === 'close') {
        const body = Buffer.concat(this.#mode.parts);
        this.#mode = undefined;
        this.onResponse(undefined, { status: this.#status, headers: this.#headers, body });
      } else if (!this.#closed) {
        this.#fail(new Error('connection closed by the server'));
      }
      this.#closed = true;
    });
  }

  connected(): Promise<void> {
    return this.#connected;
  }

  send(request: string): void {
    this.socket.write(request);
  }

  /** One request, awaited (setup and checks; the load loop uses `onResponse` directly). */
  request(request: string): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      this.onResponse = (err, res) => (err ? reject(err) : resolve(res!));
      this.send(request);
    });
  }

  close(): void {
    this.#closed = true;
    this.socket.destroy();
  }

  #fail(e: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onResponse(e, undefined);
  }

  #data(chunk: Buffer): void {
    let buf = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    this.#pending = undefined;
    for (;;) {
      if (this.#mode === undefined) {
        const end = buf.indexOf(CRLFCRLF);
        if (end < 0) break;
        const head = buf.toString('latin1', 0, end);
        this.#status = Number(head.slice(9, 12));
        const lower = head.toLowerCase();
        this.#headers = {};
        if (this.captureHeaders) {
          for (const line of head.split('\r\n').slice(1)) {
            const c = line.indexOf(':');
            if (c > 0) this.#headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
          }
        }
        buf = buf.subarray(end + 4);
        const cl = lower.indexOf('\r\ncontent-length:');
        if (cl >= 0) {
          const eol = lower.indexOf('\r\n', cl + 2);
          this.#mode = { kind: 'length', n: Number(lower.slice(cl + 17, eol < 0 ? undefined : eol).trim()) };
        } else if (lower.includes('\r\ntransfer-encoding: chunked')) {
          this.#mode = { kind: 'chunked', parts: [] };
        } else if (this.#status === 204 || this.#status === 304 || (this.#status >= 100 && this.#status < 200)) {
          this.#mode = { kind: 'length', n: 0 };
        } else {
          this.#mode = { kind: 'close', parts: [] };
        }
      }
      const mode = this.#mode;
      if (mode.kind === 'length') {
        if (buf.length < mode.n) break;
        const body = buf.subarray(0, mode.n);
        buf = buf.subarray(mode.n);
        this.#mode = undefined;
        this.onResponse(undefined, { status: this.#status, headers: this.#headers, body });
        continue;
      }
      if (mode.kind === 'close') {
        mode.parts.push(buf);
        buf = Buffer.alloc(0);
        break;
      }
      // chunked
      const eol = buf.indexOf(CRLF);
      if (eol < 0) break;
      const size = parseInt(buf.toString('latin1', 0, eol), 16);
      if (size === 0) {
        if (buf.length < eol + 4) break; // last chunk + final CRLF (no trailers)
        buf = buf.subarray(eol + 4);
        this.#mode = undefined;
        this.onResponse(undefined, { status: this.#status, headers: this.#headers, body: Buffer.concat(mode.parts) });
        continue;
      }
      if (buf.length < eol + 2 + size + 2) break;
      mode.parts.push(buf.subarray(eol + 2, eol + 2 + size));
      buf = buf.subarray(eol + 2 + size + 2);
    }
    if (buf.length > 0) this.#pending = Buffer.from(buf);
  }
}

export async function openConnection(port: number): Promise<HttpConnection> {
  const c = new HttpConnection(port);
  await c.connected();
  return c;
}

export interface LoadOptions {
  connections: HttpConnection[];
  /** Renders the next request for connection `c` (a fresh JSON-RPC id each time). */
  next: (c: number) => string;
  /** True when a response is the right answer. */
  check: (res: HttpResponse) => boolean;
  warmupMs: number;
  durationMs: number;
  /**
   * Send no more than this many requests (warm-up included): the window then ends when the
   * last of them is answered, or at `durationMs`, whichever comes first (scenario 9).
   */
  maxRequests?: number;
  onMeasureStart?: () => void;
  onMeasureEnd?: () => void;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  /** Latencies in ms of the requests completed in the measured window. */
  latencies: Float64Array;
  errors: number;
  firstError?: string;
  /** CPU share (0..1 of one core) this process (the load generator) used in the window. */
  generatorCpu: number;
}

/**
 * Closed-loop load: every connection sends its next request as soon as the previous answer
 * arrives. Requests answered during warm-up are not counted; the window is `durationMs`.
 */
export function runLoad(o: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve) => {
    let phase: 'warm' | 'measure' | 'stop' = 'warm';
    let lat = new Float64Array(1 << 16);
    let n = 0;
    let errors = 0;
    let firstError: string | undefined;
    let t0 = 0;
    let t1 = 0;
    let inflight = 0;
    let cpu0 = process.cpuUsage();
    let genCpu = 0;
    let sent = 0;
    const limit = o.maxRequests ?? Number.POSITIVE_INFINITY;
    let warmTimer: NodeJS.Timeout | undefined;
    let endTimer: NodeJS.Timeout | undefined;
    const end = (): void => {
      clearTimeout(warmTimer);
      clearTimeout(endTimer);
      t1 = performance.now();
      const used = process.cpuUsage(cpu0);
      genCpu = (used.user + used.system) / 1000 / (t1 - t0);
      phase = 'stop';
      o.onMeasureEnd?.();
      if (inflight === 0) finish();
    };
    const sentAt = new Float64Array(o.connections.length);
    const finish = (): void => {
      for (const c of o.connections) c.onResponse = () => undefined;
      resolve({ requests: n, seconds: (t1 - t0) / 1000, latencies: lat.subarray(0, n), errors, firstError, generatorCpu: genCpu });
    };
    o.connections.forEach((conn, i) => {
      conn.onResponse = (err, res) => {
        const now = performance.now();
        inflight--;
        if (err || !res || !o.check(res)) {
          errors++;
          firstError ??= err ? err.message : `status ${res?.status}: ${res?.body.toString('utf8').slice(0, 500)}`;
        } else if (phase === 'measure') {
          if (n === lat.length) {
            const bigger = new Float64Array(lat.length * 2);
            bigger.set(lat);
            lat = bigger;
          }
          lat[n++] = now - sentAt[i]!;
        }
        if (phase === 'stop' || err) {
          if (inflight === 0) finish();
          return;
        }
        if (sent >= limit) {
          if (inflight === 0) {
            if (phase === 'warm') start();
            end();
          }
          return;
        }
        sent++;
        inflight++;
        sentAt[i] = performance.now();
        conn.send(o.next(i));
      };
    });
    const start = (): void => {
      o.onMeasureStart?.();
      phase = 'measure';
      cpu0 = process.cpuUsage();
      t0 = performance.now();
    };
    warmTimer = setTimeout(() => {
      start();
      endTimer = setTimeout(end, o.durationMs);
    }, o.warmupMs);
    o.connections.forEach((conn, i) => {
      if (sent >= limit) return;
      sent++;
      inflight++;
      sentAt[i] = performance.now();
      conn.send(o.next(i));
    });
  });
}
