/**
 * The example server (test/fixtures/everything/main.js) as a child process, the way a user runs
 * `npm run fixture:server`: on a free 127.0.0.1 port, with the environment a test gives it, and
 * found by the `listening on <url>` line it writes to stderr.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { EXAMPLE_MAIN } from '../fuzz/stdio-channel.js';

/** A free loopback port: bound, read, released. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves with the exit code once `child` has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

export interface ExampleProcess {
  readonly child: ChildProcess;
  readonly url: URL;
  /** Settles when the process exits (set up before it could). */
  readonly exit: Promise<number | null>;
}

/** Starts the example with `env` (PORT: a free one unless given) and waits for its URL; rejects if it exits first. */
export async function startExample(env: Record<string, string> = {}): Promise<ExampleProcess> {
  const child = spawn(process.execPath, [EXAMPLE_MAIN], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(await freePort()), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exit = exited(child);
  const url = await new Promise<URL>((resolve, reject) => {
    let text = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      text += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(text);
      if (m) resolve(new URL(m[1]!));
    });
    void exit.then(() => reject(new Error(`the example exited before listening: ${text}`)));
  });
  return { child, url, exit };
}

/** SIGTERM, then waits for the exit. */
export async function stopExample(example: ExampleProcess): Promise<void> {
  example.child.kill('SIGTERM');
  await example.exit;
}
