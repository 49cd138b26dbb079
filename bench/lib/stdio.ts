/** A line-oriented client of a stdio server child (newline-delimited JSON-RPC). */
import type { ChildProcess } from 'node:child_process';

export class StdioClient {
  /** Called with each line the server writes. */
  onLine: (line: string) => void = () => undefined;
  #pending = '';
  #waiters = new Map<number | string, (msg: Record<string, any>) => void>();

  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      let text = this.#pending + chunk;
      let nl: number;
      let start = 0;
      while ((nl = text.indexOf('\n', start)) >= 0) {
        const line = text.slice(start, nl);
        start = nl + 1;
        if (line !== '') this.onLine(line);
      }
      this.#pending = text.slice(start);
      text = '';
    });
    this.onLine = (line) => this.#dispatch(line);
  }

  /** Routes responses to `request` waiters (the default line handler). */
  #dispatch(line: string): void {
    let msg: Record<string, any>;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const w = this.#waiters.get(msg.id);
    if (w && ('result' in msg || 'error' in msg)) {
      this.#waiters.delete(msg.id);
      w(msg);
    }
  }

  useDefaultHandler(): void {
    this.onLine = (line) => this.#dispatch(line);
  }

  write(text: string): void {
    this.child.stdin!.write(text);
  }

  request(id: number | string, body: string): Promise<Record<string, any>> {
    return new Promise((resolve) => {
      this.#waiters.set(id, resolve);
      this.write(`${body}\n`);
    });
  }
}
