/**
 * Newline-delimited JSON framing (stdio in every revision: one message per line, no
 * embedded newlines). Bounded line length, counted in bytes as they arrive, so a peer that
 * never sends a newline cannot grow our memory without limit, and a line is refused whole
 * however the input is cut into chunks.
 *
 * It works on bytes: a UTF-8 multi-byte sequence never contains the byte 0x0A, so splitting
 * there is safe, and a character cut between two chunks is decoded once its line is whole.
 */

const NEWLINE = 0x0a;
const CR = 0x0d;

export class LineDecoder {
  /** The start of the current line, from earlier chunks. */
  private parts: Buffer[] = [];
  private partsBytes = 0;
  /** Inside a line already found too long: everything up to its newline is dropped. */
  private discarding = false;
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE);
    while (nl !== -1) {
      if (this.discarding) {
        this.discarding = false;
      } else if (this.lineBytes(chunk, start, nl) > this.maxLineBytes) {
        this.drop();
      } else if (this.parts.length === 0) {
        this.emit(chunk, start, nl);
      } else {
        this.parts.push(chunk.subarray(start, nl));
        const line = Buffer.concat(this.parts, this.partsBytes + (nl - start));
        this.reset();
        this.emit(line, 0, line.length);
      }
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start >= chunk.length || this.discarding) return;
    const rest = chunk.length - start;
    // One byte of slack: a `\r` that ends the line with the `\n` still to come is not content.
    if (this.partsBytes + rest > this.maxLineBytes + 1) {
      this.drop();
      this.discarding = true;
      return;
    }
    this.parts.push(chunk.subarray(start));
    this.partsBytes += rest;
  }

  /** The stream ended: a final line without a newline still counts. */
  end(): void {
    if (this.parts.length > 0 && !this.discarding) {
      // The line ends where the input does.
      const line = Buffer.concat(this.parts, this.partsBytes);
      if (this.lineBytes(line, line.length, line.length) > this.maxLineBytes) this.drop();
      else this.emit(line, 0, line.length);
    }
    this.reset();
    this.discarding = false;
  }

  /** The length of the line that ends at `nl`, its `\r\n` not counted. */
  private lineBytes(chunk: Buffer, start: number, nl: number): number {
    const bytes = this.partsBytes + (nl - start);
    const last = nl > start ? chunk[nl - 1] : this.parts.at(-1)?.at(-1);
    return last === CR ? bytes - 1 : bytes;
  }

  /** A line over the limit: reported once, its bytes released. */
  private drop(): void {
    this.reset();
    this.onOverflow();
  }

  private reset(): void {
    this.parts = [];
    this.partsBytes = 0;
  }

  private emit(bytes: Buffer, from: number, to: number): void {
    const end = to > from && bytes[to - 1] === CR ? to - 1 : to;
    const text = bytes.toString('utf8', from, end);
    if (text.trim().length) this.onLine(text);
  }
}
