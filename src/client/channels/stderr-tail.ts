/**
 * The last lines a child process wrote to stderr, kept for error messages: a crash at
 * start-up usually explains itself there. Bounded by lines and characters, so a chatty
 * server costs nothing more than the bound.
 */

// Colour and cursor escapes (CSI sequences) read as noise inside an error message.
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is the character these escapes start with.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

export class StderrTail {
  private readonly lines: string[] = [];
  private chars = 0;
  private partial = '';
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly maxLines = 20,
    private readonly maxChars = 8192,
  ) {}

  push(chunk: Uint8Array | string): void {
    const text = this.partial + (typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
    const parts = text.split('\n');
    this.partial = parts.pop()!.slice(-this.maxChars);
    for (const line of parts) this.keep(line);
  }

  /** The kept lines, oldest first, an unfinished last line included; blank lines at the ends dropped. */
  get(): string[] {
    const out = this.partial ? [...this.lines, this.clean(this.partial)] : [...this.lines];
    let size = out.reduce((n, l) => n + l.length, 0);
    while (out.length > this.maxLines || size > this.maxChars) size -= out.shift()!.length;
    while (out.length && out[0]!.trim() === '') out.shift();
    while (out.length && out[out.length - 1]!.trim() === '') out.pop();
    return out;
  }

  private keep(raw: string): void {
    const line = this.clean(raw).slice(-this.maxChars);
    this.lines.push(line);
    this.chars += line.length;
    while (this.lines.length > this.maxLines || this.chars > this.maxChars) this.chars -= this.lines.shift()!.length;
  }

  private clean(line: string): string {
    return line.replace(ANSI, '').replace(/\r$/, '');
  }
}
