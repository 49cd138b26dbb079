/**
 * Progress of a call on stderr: a bar redrawn in place on a terminal, one plain line per
 * notification otherwise (a log file, a pipe), so stdout keeps only the result.
 */
import type { Progress } from '../client/index.js';

export interface ProgressView {
  update(p: Progress): void;
  /** Clears the bar (a terminal) before the result is printed. */
  done(): void;
}

const WIDTH = 30;

export function progressView(stream: NodeJS.WriteStream = process.stderr): ProgressView {
  let drawn = false;
  if (!stream.isTTY) {
    return {
      update: (p) =>
        void stream.write(`progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}\n`),
      done: () => {},
    };
  }
  return {
    update(p) {
      const share = p.total ? Math.min(1, Math.max(0, p.progress / p.total)) : undefined;
      const bar =
        share === undefined
          ? `[${'?'.repeat(WIDTH)}] ${p.progress}`
          : `[${'#'.repeat(Math.round(share * WIDTH)).padEnd(WIDTH, '-')}] ${Math.round(share * 100)}%`;
      const line = `${bar}${p.message ? ` ${p.message}` : ''}`.slice(0, Math.max(20, (stream.columns || 80) - 1));
      stream.write(`\r\x1b[2K${line}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
}
