/** The process around a served server: SIGINT/SIGTERM as the end (stdin ended). */
import { PassThrough, type Readable } from 'node:stream';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Resolves at the first SIGINT or SIGTERM. */
export function signalled(): Promise<void> {
  return new Promise((done) => {
    for (const signal of SIGNALS) process.once(signal, () => done());
  });
}

/** stdin, ended at a signal: the end of input is how a stdio session ends (lifecycle.mdx §Shutdown). */
export function stdinEndedOnSignal(): Readable {
  const input = new PassThrough();
  process.stdin.pipe(input);
  void signalled().then(() => {
    process.stdin.unpipe(input);
    process.stdin.destroy();
    input.end();
  });
  return input;
}
