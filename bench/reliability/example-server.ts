/**
 * The example server (test/fixtures/everything/main.js) as the reliability scripts run it: over HTTP
 * on a port of our choosing or over stdio, in its own process, with its memory read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/test/fixtures/everything/main.js, from dist/bench/reliability/. */
export const EXAMPLE_MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'everything', 'main.js');

export const SIMPLE_TEXT = 'This is a simple text response for testing.';
export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
export const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'janus-reliability', version: '1.0.0' },
};

export interface HttpChild {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly port: number;
  readonly url: URL;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A free TCP port on 127.0.0.1 (bound and released, so a restarted server can take it again). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Starts `main.js` over HTTP on `port` (0: any) and waits until it listens. */
export function startHttp(port = 0, env: Record<string, string> = {}): Promise<HttpChild> {
  const child = spawn(process.execPath, [EXAMPLE_MAIN], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (text += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(text);
      if (!m) return;
      child.stderr!.off('data', check);
      const url = new URL(m[1]!);
      resolve({ child, pid: child.pid!, port: Number(url.port), url, stderr: () => text, exited });
    };
    child.stderr!.on('data', check);
    void exited.then(({ code, signal }) => reject(new Error(`the example server exited (${code ?? signal}) before listening: ${text}`)));
  });
}

/** Resident set size of a process in bytes (Linux /proc), or undefined when it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat, or undefined. */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime in clock ticks (USER_HZ 100)
  } catch {
    return undefined;
  }
}

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** `--name value` from argv. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
