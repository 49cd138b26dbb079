/**
 * Keeps a stdio server's stdout for protocol messages. Anything else that writes to
 * `process.stdout` (`console.log`, `console.info`, `console.debug`, `console.dir`,
 * `console.table`, a stray `process.stdout.write`) is sent to stderr instead, with one line
 * saying so the first time: a client reading a log line as a message fails (transports.mdx
 * §stdio: the server MUST NOT write anything to stdout that is not a valid MCP message).
 *
 * `process.stdout.write` is replaced on the stream object itself; the transport writes with the
 * method it had before, captured here, so protocol output pays nothing for the guard. Guards
 * nest (the command line guards before it imports the user's module, `serveStdio` again): the
 * first one's notice is the one said, and stdout is restored when the last one is released.
 */

type Write = typeof process.stdout.write;

export const STDOUT_NOTICE = 'janus-mcp: console.log/stdout writes go to stderr: stdout carries the MCP protocol';

interface Installed {
  readonly stream: NodeJS.WriteStream;
  /** The write stdout had before: protocol output goes through it. */
  readonly original: Write;
  /** Whether `original` was the stream's own property (else it came from its prototype). */
  readonly own: boolean;
  readonly patched: Write;
  readonly notice: string;
  noticed: boolean;
  holders: number;
}

let installed: Installed | undefined;

export interface StdoutGuard {
  /** Writes to the real stdout, as `process.stdout.write` did before the guard. */
  write(chunk: string): boolean;
  /** Ends this guard; stdout is restored when no other holds one. Idempotent. */
  release(): void;
}

/** Sends what else writes to stdout to stderr until released; `notice` is said once, at the first such write. */
export function guardStdout(notice: string = STDOUT_NOTICE): StdoutGuard {
  const stream = process.stdout;
  let guard = installed;
  if (guard === undefined || guard.stream !== stream) {
    const original = stream.write;
    // A function, not an arrow: it is called as a method of stdout.
    const patched: Write = function redirectToStderr(...args: unknown[]): boolean {
      const current = installed;
      if (current !== undefined && !current.noticed) {
        current.noticed = true;
        process.stderr.write(`${current.notice}\n`);
      }
      return Reflect.apply(process.stderr.write, process.stderr, args) as boolean;
    };
    guard = { stream, original, own: Object.hasOwn(stream, 'write'), patched, notice, noticed: false, holders: 0 };
    stream.write = patched;
    installed = guard;
  }
  const held = guard;
  held.holders++;
  let released = false;
  return {
    write: (chunk) => held.original.call(held.stream, chunk),
    release() {
      if (released) return;
      released = true;
      if (--held.holders > 0) return;
      if (installed === held) installed = undefined;
      // Replaced again since (another library's patch over ours): theirs stays.
      if (held.stream.write !== held.patched) return;
      if (held.own) held.stream.write = held.original;
      else Reflect.deleteProperty(held.stream, 'write');
    },
  };
}
