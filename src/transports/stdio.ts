/**
 * stdio transport: newline-delimited JSON over a readable and a writable stream. On the
 * server side these are the process's stdin and stdout, and nothing but protocol
 * messages is ever written to stdout.
 */
import type { Readable, Writable } from 'node:stream';
import { JanusError } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import { LineDecoder } from './ndjson.js';
import { excerpt, NotJsonLineError } from './not-json.js';
import { guardStdout, STDOUT_NOTICE, type StdoutGuard } from './stdout-guard.js';
import { SENT, type Transport, type TransportHandlers } from './transport.js';

/**
 * How a {@link StdioTransport} reads and writes: its streams (default stdin and stdout) and its
 * bounds.
 */
export interface StdioTransportOptions {
  /** Where messages are read from (default `process.stdin`). */
  input?: Readable;
  /** Where messages are written to (default `process.stdout`). */
  output?: Writable;
  /** Longest accepted line (default 16 MiB). */
  maxLineBytes?: number;
  /**
   * How long a response waits after a progress notification written just before it, so that
   * the client reads the two in separate chunks (default 50 ms; 0 turns the wait off). The
   * official TypeScript SDK (v1 and v2) handles the responses of a chunk at once and its
   * notifications a microtask later: a response read together with its request's last
   * progress ends the request first, and that progress is then dropped as unknown. The wait
   * must outlast the time the client may go unscheduled on a busy machine: with 10 ms the SDK
   * still lost a progress notification now and then while this project's test suite ran four
   * files on two cores (Linux's scheduling period there is 12 ms or more).
   */
  progressGapMs?: number;
  /**
   * The most this side holds for a peer that does not read its output, in bytes of text
   * (default 256 KiB). Past it, notifications are dropped (and the transport's `onOverflow`
   * said once) until the output drains; answers and requests are never dropped.
   */
  maxBufferedBytes?: number;
  /**
   * Stops reading input while the output is full, so a peer that does not read its answers
   * sends no new requests that would need more (default false; `serveStdio` sets it). Only one
   * side of a pipe may do this: two peers that both stop reading wait for each other forever.
   */
  pauseInputWhileBlocked?: boolean;
  /**
   * While the transport runs on `process.stdout` (the default output), what else writes there
   * (`console.log`, `console.info`, `console.debug`, `console.dir`, `console.table`, a stray
   * `process.stdout.write`) goes to stderr, and one line on stderr says so the first time:
   * a client would take it for a message and fail. The transport's own messages go to the real
   * stdout; stdout is restored when the transport closes. Default true; `false` leaves stdout
   * alone. Other outputs are never touched.
   */
  protectStdout?: boolean;
}

/**
 * A {@link Transport} of newline-delimited JSON over a readable and a writable stream, by default
 * this process's stdin and stdout. `serveStdio` serves a server on one; a client spawns a server
 * with `connect({ command })`.
 */
export class StdioTransport implements Transport {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxLineBytes: number;
  private handlers: TransportHandlers | undefined;
  private closed = false;
  private closeSignalled = false;
  private pending = '';
  private flushQueued = false;
  /** Whether the last input chunk held several messages. */
  private burst = false;
  private readonly progressGapMs: number;
  /** performance.now() of the last progress notification written or queued; 0 before any. */
  private lastProgressAt = 0;
  /** Responses held behind a progress notification, in release order (see progressGapMs). */
  private readonly held: Array<{ at: number; text: string }> = [];
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * While the output's buffer is full, what is sent or written waits here, in order, until
   * 'drain'; then it goes out as if sent then (the progress gap counts from when a progress
   * notification leaves, not from when it was queued). Undefined while the output takes writes.
   */
  private waiting: Array<{ text: string; message?: JsonRpcMessage | JsonRpcMessage[] }> | undefined;
  /** The bytes in `waiting`, and the bound past which notifications are dropped. */
  private waitingBytes = 0;
  private readonly maxBufferedBytes: number;
  private readonly pauseInput: boolean;
  private readonly protectStdout: boolean;
  /** While running on a protected process.stdout: writes to the real stdout. */
  private guard: StdoutGuard | undefined;
  /** Notifications dropped since the output was last full; `onOverflow` is said with the first. */
  private dropped = 0;
  // biome-ignore lint/suspicious/noExplicitAny: Node's EventEmitter listener type.
  private readonly listeners: Array<[Readable | Writable, string, (...args: any[]) => void]> = [];

  constructor(options: StdioTransportOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.maxLineBytes = options.maxLineBytes ?? 16 * 1024 * 1024;
    this.progressGapMs = options.progressGapMs ?? 50;
    const max = options.maxBufferedBytes ?? 256 * 1024;
    if (typeof max !== 'number' || !(max >= 0)) throw new TypeError(`maxBufferedBytes must be a number of 0 or more, not ${String(max)}`);
    this.maxBufferedBytes = max;
    this.pauseInput = options.pauseInputWhileBlocked === true;
    this.protectStdout = options.protectStdout !== false;
  }

  /**
   * Starts reading the input, one message per line. Throws a `JanusError` (`'CONNECTION'`) if
   * already started.
   */
  async start(handlers: TransportHandlers): Promise<void> {
    if (this.handlers) throw new JanusError('CONNECTION', 'stdio transport already started');
    this.handlers = handlers;
    const decoder = new LineDecoder(
      this.maxLineBytes,
      (line) => {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (e) {
          handlers.onParseError?.(new NotJsonLineError(excerpt(line), { cause: e }));
          return;
        }
        handlers.onMessage(value);
      },
      () => handlers.onParseError?.(new Error(`line longer than ${this.maxLineBytes} bytes`)),
    );
    // Bytes, not text: the line limit counts bytes (a stream given an encoding still works).
    this.on(this.input, 'data', (data: Buffer | string) => {
      const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      // A chunk of several messages is a burst: coalesce its answers into one write. A lone
      // message (a sequential peer) is answered with an immediate write instead.
      this.burst = chunk.indexOf(0x0a) !== chunk.length - 1;
      decoder.push(chunk);
    });
    // EOF means the peer is done sending; replies to what it already sent may still go out.
    this.on(this.input, 'end', () => {
      decoder.end();
      this.signalClose();
    });
    this.on(this.input, 'error', (e: Error) => handlers.onError?.(e));
    this.on(this.output, 'error', (e: Error) => {
      handlers.onError?.(e);
      void this.close();
    });
    if (this.protectStdout && this.output === process.stdout)
      this.guard = guardStdout(`${STDOUT_NOTICE}; serveStdio({ protectStdout: false }) turns this off`);
    this.input.resume();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Node's EventEmitter listener type.
  private on(target: Readable | Writable, event: string, fn: (...args: any[]) => void): void {
    target.on(event, fn);
    this.listeners.push([target, event, fn]);
  }

  /** Writes at once, or queues in order: returns SENT, or a rejected promise when the message cannot go out. */
  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.closed) return Promise.reject(new JanusError('TRANSPORT_CLOSED', 'stdio transport is closed'));
    let line: string;
    try {
      line = `${JSON.stringify(message)}\n`;
    } catch (e) {
      return Promise.reject(e); // not JSON (a BigInt, a cycle): the caller answers for it
    }
    if (this.full()) this.wait(line, message);
    else this.route(message, line);
    return SENT;
  }

  /**
   * Queues a line while the output is full. Input is paused meanwhile, so answers and requests
   * are bounded by what was already read; a notification past `maxBufferedBytes` is dropped.
   */
  private wait(text: string, message?: JsonRpcMessage | JsonRpcMessage[]): void {
    if (this.waitingBytes > this.maxBufferedBytes && message !== undefined && isNotification(message)) {
      if (this.dropped++ === 0) this.handlers?.onOverflow?.();
      return;
    }
    this.waiting!.push(message === undefined ? { text } : { text, message });
    this.waitingBytes += text.length;
  }

  /** Where a line goes: held behind a progress notification, written now, or coalesced with its turn's others. */
  private route(message: JsonRpcMessage | JsonRpcMessage[], line: string): void {
    if (this.lastProgressAt !== 0 && this.holdBehindProgress(message, line)) return;
    if (this.progressGapMs > 0 && carriesProgress(message)) {
      // Written now, not coalesced: the gap is measured from the moment it left.
      this.flush();
      if (this.full()) {
        this.wait(line, message); // it has not left: it is routed again on 'drain'
        return;
      }
      this.write(line);
      this.lastProgressAt = performance.now();
    } else if (!this.burst && !this.flushQueued) {
      this.write(line);
    } else {
      // Messages produced in one turn of the event loop (say, the answers to one input chunk)
      // go out in one write: a write per message is a syscall per message.
      this.pending += line;
      if (!this.flushQueued) {
        this.flushQueued = true;
        setImmediate(this.flush);
      }
    }
  }

  private readonly flush = (): void => {
    this.flushQueued = false;
    const chunk = this.pending;
    if (!chunk) return;
    this.pending = '';
    this.write(chunk);
  };

  /** Holds a response that follows a progress notification by less than progressGapMs. */
  private holdBehindProgress(message: JsonRpcMessage | JsonRpcMessage[], line: string): boolean {
    if (Array.isArray(message) || 'method' in message) return false;
    const at = this.lastProgressAt + this.progressGapMs;
    const now = performance.now();
    if (at <= now) {
      this.lastProgressAt = 0; // the gap has passed: later responses skip this check
      return false;
    }
    const last = this.held.at(-1);
    if (last !== undefined && last.at === at) last.text += line;
    else this.held.push({ at, text: line });
    this.holdTimer ??= setTimeout(this.release, at - now);
    return true;
  }

  /** Writes the held responses whose gap has passed (Node timers may fire up to 1 ms early). */
  private readonly release = (): void => {
    this.holdTimer = undefined;
    if (this.full()) return; // released after 'drain' (drained)
    const now = performance.now() + 1;
    let text = '';
    while (this.held.length > 0 && this.held[0]!.at <= now) text += this.held.shift()!.text;
    if (text) this.write(text);
    const next = this.held[0];
    if (next !== undefined && this.holdTimer === undefined) this.holdTimer = setTimeout(this.release, Math.max(1, next.at - now));
  };

  private write(chunk: string): void {
    // Writes are ordered by the stream; holding them while it is full is the backpressure.
    if (this.full()) {
      this.wait(chunk);
      return;
    }
    if (this.guard === undefined ? this.output.write(chunk) : this.guard.write(chunk)) return;
    // Lines coalesced for this turn were sent before anything that comes now.
    this.waiting = this.pending ? [{ text: this.pending }] : [];
    this.waitingBytes = this.pending.length;
    this.pending = '';
    this.output.on('drain', this.drained);
    this.output.on('close', this.drained);
    // No new requests while the peer does not read their answers.
    if (this.pauseInput) this.input.pause();
  }

  private full(): boolean {
    return this.waiting !== undefined;
  }

  /** The output takes writes again: what waited goes out in order, until it is full again. */
  private readonly drained = (): void => {
    this.output.off('drain', this.drained);
    this.output.off('close', this.drained);
    const queued = this.waiting ?? [];
    this.waiting = undefined;
    this.waitingBytes = 0;
    this.dropped = 0;
    let i = 0;
    while (i < queued.length && !this.full()) {
      const { text, message } = queued[i++]!;
      if (message === undefined) this.write(text);
      else this.route(message, text);
    }
    // Full again: the rest waits behind what the replay itself queued.
    if (i < queued.length) {
      for (const q of queued.slice(i)) {
        this.waiting!.push(q);
        this.waitingBytes += q.text.length;
      }
      return;
    }
    if (this.held.length > 0 && this.holdTimer === undefined) this.release();
    if (this.pauseInput && !this.full() && !this.closed) this.input.resume();
  };

  private signalClose(): void {
    if (this.closeSignalled) return;
    this.closeSignalled = true;
    this.handlers?.onClose?.();
  }

  /**
   * Writes what is still held, stops reading and calls `onClose`; does nothing once closed. The
   * streams themselves are left open.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    const held = this.held.splice(0).map((h) => h.text);
    if (held.length > 0) this.write(held.join(''));
    this.closed = true;
    // Written with the real write still, if stdout drains later.
    this.guard?.release();
    for (const [target, event, fn] of this.listeners) target.off(event, fn);
    this.listeners.length = 0;
    this.input.pause();
    this.signalClose();
  }
}

/** A notification (a method and no id): what a peer that does not read may lose. */
function isNotification(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  return !Array.isArray(message) && 'method' in message && !('id' in message);
}

/** A notification that reports progress on a request (basic/utilities/progress.mdx: `params.progressToken`). */
function carriesProgress(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  if (Array.isArray(message) || !('method' in message) || 'id' in message) return false;
  const params = message.params;
  return typeof params === 'object' && params !== null && 'progressToken' in params;
}
