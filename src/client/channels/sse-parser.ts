/**
 * An incremental `text/event-stream` parser, following the HTML Living Standard
 * §9.2.6 "Interpreting an event stream": lines end in CRLF, LF or CR (a CRLF may be split
 * across chunks); lines starting with `:` are comments; a field without a colon has an
 * empty value; one leading space after the colon is dropped; `data` lines join with LF;
 * an `id` containing NUL is ignored; `retry` counts only when it is all ASCII digits; a
 * blank line dispatches; an event cut off by the end of the stream is discarded.
 * UTF-8 sequences split across chunks are decoded correctly and a leading BOM is dropped.
 */

export interface SseEvent {
  /** The event type: `message` when the stream named none. */
  readonly type: string;
  /** The data lines joined with LF (may be empty, e.g. for a priming event). */
  readonly data: string;
  /** The stream's last event id after this event (the cursor for `Last-Event-ID`). */
  readonly lastEventId: string;
}

export class SseParser {
  private decoder = new TextDecoder('utf-8');
  private buffer = '';
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

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  push(chunk: Uint8Array | string): void {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    this.drain(false);
  }

  /** The stream ended: finish the last line; an undispatched event is discarded. */
  end(): void {
    this.buffer += this.decoder.decode();
    this.drain(true);
    this.discardPending();
  }

  /**
   * Starts over for a new connection of the same logical stream: partial lines and
   * undispatched fields are dropped; `lastEventId` and `retry` survive (they are the cursor).
   */
  reset(): void {
    this.decoder = new TextDecoder('utf-8');
    this.discardPending();
  }

  private discardPending(): void {
    this.buffer = '';
    this.data = '';
    this.hasData = false;
    this.eventType = '';
    this.sawField = false;
    this.idBuffer = this.lastEventId;
  }

  private drain(final: boolean): void {
    const buf = this.buffer;
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      if (c === 13 && i === buf.length - 1 && !final) break; // the LF of a CRLF may be in the next chunk
      this.line(buf.slice(start, i));
      if (c === 13 && buf.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    this.buffer = buf.slice(start);
  }

  private line(line: string): void {
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
