/**
 * The example server (test/fixtures/everything, `main.js`: `serveHttp` on 127.0.0.1, port 0) in a
 * real child process, and the raw HTTP the fuzz channels speak to it: one POST (or GET) at a
 * time on a keep-alive agent, bodies written whole or chunked at given bytes, JSON and SSE
 * answers read as they come.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import http from 'node:http';
import { SseParser } from '../support/http.js';
import type { AcceptChoice } from './http-headers.js';
import { ANSWER_BOUND_MS } from './runner.js';
import { EXAMPLE_MAIN, unexplainedStderr } from './stdio-channel.js';

/** How a body reaches the socket: with Content-Length in one write, or chunked at these byte offsets. */
export type BodyWrites = { readonly kind: 'whole' } | { readonly kind: 'chunked'; readonly cuts: readonly number[] };

/** How the POSTs of a run are sent: their bodies' writes and their Accept header. */
export interface Delivery {
  readonly writes: BodyWrites;
  readonly accept: AcceptChoice;
}

/** One POST's outcome, read to the end (or to the acknowledgement of a listen stream). */
export interface Reply {
  status: number;
  contentType: string;
  /** `Mcp-Session-Id` of the reply (an `initialize` that opened a session). */
  sessionId?: string;
  messages: unknown[];
  /** The raw body when it was neither JSON nor an event stream. */
  other?: string;
  /** The id of the last SSE event, to resume from (2025-11-25 transports §Resumability and Redelivery). */
  lastEventId?: string;
  timedOut?: boolean;
  error?: string;
}

/** One example server process: its URL, its health (alive, quiet stderr) and raw HTTP to it. */
export class HttpFuzzServer {
  readonly url: URL;
  readonly #child: ChildProcessWithoutNullStreams;
  #stderr = '';
  #stderrReported = 0;
  #exit: string | undefined;
  readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

  private constructor(child: ChildProcessWithoutNullStreams, url: URL, stderr: string) {
    this.#child = child;
    this.url = url;
    this.#stderr = stderr;
    this.#stderrReported = stderr.length;
    child.stderr.on('data', (chunk: string) => (this.#stderr += chunk));
    child.once('exit', (code, signal) => {
      this.#exit = `the server process exited (code ${code}, signal ${signal}); stderr: ${this.#stderr.slice(-2000)}`;
    });
  }

  /** Starts `main.js` on a free port and waits for the URL it prints. */
  static start(): Promise<HttpFuzzServer> {
    const child = spawn(process.execPath, [EXAMPLE_MAIN], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr.setEncoding('utf8');
    return new Promise((resolve, reject) => {
      let text = '';
      const onData = (chunk: string) => {
        text += chunk;
        const m = /listening on (http:\/\/\S+)/.exec(text);
        if (!m) return;
        child.stderr.off('data', onData);
        resolve(new HttpFuzzServer(child, new URL(m[1]!), text));
      };
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`the example server exited (${code}) before listening: ${text}`)));
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Problems since the last call: the process died, or printed something no handler explains. */
  health(): string[] {
    const problems = this.#exit ? [this.#exit] : [];
    const noise = unexplainedStderr(this.#stderr.slice(this.#stderrReported));
    this.#stderrReported = this.#stderr.length;
    for (const n of noise) problems.push(`the server printed on stderr for a client's mistake: ${n.slice(0, 600)}`);
    return problems;
  }

  /** SIGTERM, then waits for the exit (the example drains and exits 0). */
  async stop(): Promise<string[]> {
    this.agent.destroy();
    if (this.#exit !== undefined) return [this.#exit];
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.pid !== undefined && process.kill(this.#child.pid, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    return this.#child.exitCode === 0 ? [] : [`the server did not exit cleanly on SIGTERM: ${this.#exit}`];
  }

  /** DELETE of a legacy session (2025-11-25 transports §Session Management item 5); resolves when answered. */
  deleteSession(sessionId: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const req = http.request(this.url, { method: 'DELETE', agent: this.agent, headers: { 'mcp-session-id': sessionId } });
      req.on('response', (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end();
    });
  }

  /**
   * One POST (or, without a body, a GET); resolves with what came back. `stopAt` sees each SSE
   * message as it arrives; when it says so the stream is closed (a listen stream, once acknowledged).
   */
  post(
    headers: Record<string, string>,
    body: string | undefined,
    writes: BodyWrites,
    stopAt?: (m: unknown) => boolean,
    boundMs = ANSWER_BOUND_MS,
  ): Promise<Reply> {
    return new Promise((resolve) => {
      const bytes = Buffer.from(body ?? '', 'utf8');
      const req = http.request(this.url, {
        method: body === undefined ? 'GET' : 'POST',
        agent: this.agent,
        headers: writes.kind === 'whole' && body !== undefined ? { ...headers, 'content-length': String(bytes.length) } : headers,
      });
      let done = false;
      const finish = (reply: Reply) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(reply);
      };
      const timer = setTimeout(() => {
        finish({ status: 0, contentType: '', messages: [], timedOut: true });
        req.destroy();
      }, boundMs);
      req.on('error', (e) => finish({ status: 0, contentType: '', messages: [], error: e.message }));
      req.on('response', (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        const reply: Reply = { status: res.statusCode ?? 0, contentType, messages: [] };
        const sid = res.headers['mcp-session-id'];
        if (typeof sid === 'string') reply.sessionId = sid;
        res.setEncoding('utf8');
        if (contentType.startsWith('text/event-stream')) {
          const parser = new SseParser();
          res.on('data', (chunk: string) => {
            for (const e of parser.push(chunk)) {
              if (e.id !== undefined) reply.lastEventId = e.id;
              if (e.event !== 'message' || e.data === '') continue;
              let m: unknown;
              try {
                m = JSON.parse(e.data);
              } catch {
                reply.other = e.data;
                continue;
              }
              reply.messages.push(m);
              if (stopAt?.(m)) {
                finish(reply);
                req.destroy(); // 2026-07-28: closing the stream is the cancellation
              }
            }
          });
        } else {
          let text = '';
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            if (text === '') return;
            try {
              reply.messages.push(JSON.parse(text));
            } catch {
              reply.other = text;
            }
          });
        }
        res.on('end', () => finish(reply));
        res.on('close', () => finish(reply));
      });
      if (writes.kind === 'whole' || body === undefined) {
        req.end(body === undefined ? undefined : bytes);
        return;
      }
      const cuts = [...new Set(writes.cuts.map((c) => c % Math.max(bytes.length, 1)))].sort((a, b) => a - b);
      let from = 0;
      for (const cut of [...cuts, bytes.length]) {
        if (cut > from) req.write(bytes.subarray(from, cut));
        from = Math.max(from, cut);
      }
      req.end();
    });
  }
}
