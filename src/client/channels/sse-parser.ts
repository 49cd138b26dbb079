/**
 * An incremental `text/event-stream` parser, following the HTML Living Standard
 * §9.2.6 "Interpreting an event stream": lines end in CRLF, LF or CR (a CRLF may be split
 * across chunks); lines starting with `:` are comments; a field without a colon has an
 * empty value; one leading space after the colon is dropped; `data` lines join with LF;
 * an `id` containing NUL is ignored; `retry` counts only when it is all ASCII digits; a
 * blank line dispatches; an event cut off by the end of the stream is discarded.
 * UTF-8 sequences split across chunks are decoded correctly and a leading BOM is dropped.
 *
 * Linear in the stream's length: lines are found in the bytes (CR and LF never occur inside
 * a UTF-8 sequence), each byte is looked at once, and a line that spans chunks is joined once,
 * when it ends. One event may hold at most `maxEventBytes` (its field lines, plus the line
 * being read): a larger one is skipped up to its blank line and reported to `onOversize`, so
 * a server cannot grow the client's memory without limit.
 */

import { DEFAULT_MAX_MESSAGE_BYTES } from '../limits.js';

export interface SseEvent {
  /** The event type: `message` when the stream named none. */
  readonly type: string;
  /** The data lines joined with LF (may be empty, e.g. for a priming event). */
  readonly data: string;
  /** The stream's last event id after this event (the cursor for `Last-Event-ID`). */
  readonly lastEventId: string;
}

const LF = 10;
const CR = 13;
const BOM = '\uFEFF';
/** For string chunks (tests, and runtimes that hand text): stateless, so one serves every parser. */
const encoder = new TextEncoder();

export class SseParser {
  /** Decodes whole lines; the BOM is dropped by hand, at the start of a connection only. */
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  /** The bytes of the line being read, when it spans chunks. */
  private pieces: Uint8Array[] = [];
  private lineBytes = 0;
  /** The bytes of the current event's field lines. */
  private eventBytes = 0;
  /** The last chunk ended in CR: an LF opening the next one ends nothing. */
  private skipLF = false;
  private firstLine = true;
  /** Skipping an oversized event up to its blank line. */
  private discarding = false;
  private data = '';
  private hasData = false;
  private eventType = '';
  private idBuffer = '';
  private sawField = false;
  /** The last dispatched event id ('' when none): what a reconnect sends as `Last-Event-ID`. */
  lastEventId = '';
  /** The reconnection time the server asked for with `retry:`, in ms. */
  retry: number | undefined;
  /** How many non-empty blocks were dispatched (data events and id-only blocks alike). */
  dispatched = 0;

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    readonly maxEventBytes = DEFAULT_MAX_MESSAGE_BYTES,
    private readonly onOversize: (maxEventBytes: number) => void = () => {},
  ) {}

  push(chunk: Uint8Array | string): void {
    this.scan(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
  }

  /** The stream ended: an unfinished line or event is discarded. */
  end(): void {
    this.discardPending();
  }

  /**
   * Starts over for a new connection of the same logical stream: partial lines and
   * undispatched fields are dropped; `lastEventId` and `retry` survive (they are the cursor).
   */
  reset(): void {
    this.discardPending();
  }

  private discardPending(): void {
    this.pieces = [];
    this.lineBytes = 0;
    this.eventBytes = 0;
    this.skipLF = false;
    this.firstLine = true;
    this.discarding = false;
    this.data = '';
    this.hasData = false;
    this.eventType = '';
    this.sawField = false;
    this.idBuffer = this.lastEventId;
  }

  private scan(bytes: Uint8Array): void {
    const n = bytes.length;
    if (n === 0) return;
    let start = 0;
    if (this.skipLF) {
      this.skipLF = false;
      if (bytes[0] === LF) start = 1;
    }
    // The next LF and CR at or after `start`, each searched for again only once passed: linear.
    let lf = find(bytes, LF, start);
    let cr = find(bytes, CR, start);
    for (;;) {
      const end = Math.min(lf, cr);
      if (end === n) break;
      this.endLine(bytes, start, end);
      start = end + 1;
      if (end === cr) {
        if (start === n) this.skipLF = true;
        else if (bytes[start] === LF) start++;
      }
      if (lf < start) lf = find(bytes, LF, start);
      if (cr < start) cr = find(bytes, CR, start);
    }
    if (start === n) return;
    this.lineBytes += n - start;
    if (this.discarding) return;
    this.pieces.push(bytes.subarray(start));
    if (this.eventBytes + this.lineBytes > this.maxEventBytes) this.oversize();
  }

  private endLine(bytes: Uint8Array, start: number, end: number): void {
    const size = this.lineBytes + (end - start);
    this.lineBytes = 0;
    if (this.discarding) {
      // The blank line that ends the oversized event: what follows is a new one.
      if (size === 0) this.discarding = false;
      return;
    }
    if (this.eventBytes + size > this.maxEventBytes) {
      this.oversize();
      return;
    }
    let text = size === 0 ? '' : this.decoder.decode(this.join(bytes, start, end, size));
    if (this.firstLine) {
      this.firstLine = false;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    this.line(text, size);
  }

  /** The line's bytes: a view of the chunk, or its pieces joined (once) when it spanned chunks. */
  private join(bytes: Uint8Array, start: number, end: number, size: number): Uint8Array {
    const tail = bytes.subarray(start, end);
    if (this.pieces.length === 0) return tail;
    const line = new Uint8Array(size);
    let at = 0;
    for (const p of this.pieces) {
      line.set(p, at);
      at += p.length;
    }
    line.set(tail, at);
    this.pieces = [];
    return line;
  }

  /** Drops the event read so far and skips the rest of it (up to its blank line). */
  private oversize(): void {
    this.pieces = [];
    this.discarding = true;
    this.eventBytes = 0;
    this.data = '';
    this.hasData = false;
    this.eventType = '';
    this.sawField = false;
    this.idBuffer = this.lastEventId;
    this.onOversize(this.maxEventBytes);
  }

  private line(line: string, size: number): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    this.sawField = true;
    this.eventBytes += size;
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data += this.hasData ? `\n${value}` : value;
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break;
    }
  }

  private dispatch(): void {
    this.lastEventId = this.idBuffer;
    this.eventBytes = 0;
    if (!this.sawField) return;
    this.sawField = false;
    this.dispatched++;
    const { hasData, data } = this;
    const type = this.eventType || 'message';
    this.data = '';
    this.hasData = false;
    this.eventType = '';
    if (hasData) this.onEvent({ type, data, lastEventId: this.lastEventId });
  }
}

/** The index of `byte` in `bytes` from `from`, or `bytes.length` when there is none. */
function find(bytes: Uint8Array, byte: number, from: number): number {
  const i = bytes.indexOf(byte, from);
  return i === -1 ? bytes.length : i;
}
