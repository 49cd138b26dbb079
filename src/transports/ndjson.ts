/**
 * Newline-delimited JSON framing (stdio in every revision: one message per line, no
 * embedded newlines). Bounded line length, so a peer that never sends a newline cannot
 * grow our memory without limit.
 */

export class LineDecoder {
  private buffer = '';
  private discarding = false;
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: string): void {
    let start = 0;
    let nl = chunk.indexOf('\n');
    while (nl !== -1) {
      const piece = chunk.slice(start, nl);
      if (this.discarding) {
        this.discarding = false;
      } else {
        const line = this.buffer.length ? this.buffer + piece : piece;
        this.buffer = '';
        this.emit(line);
      }
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    if (start < chunk.length && !this.discarding) {
      this.buffer += chunk.slice(start);
      if (this.buffer.length > this.maxLineBytes) {
        this.buffer = '';
        this.discarding = true;
        this.onOverflow();
      }
    }
  }

  /** The stream ended: a final line without a newline still counts. */
  end(): void {
    if (this.buffer.length && !this.discarding) this.emit(this.buffer);
    this.buffer = '';
  }

  private emit(line: string): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.trim().length) this.onLine(text);
  }
}
