/**
 * A test peer over a real child process speaking newline-delimited JSON on stdin/stdout
 * (docs/<rev>/basic/transports.mdx §stdio). Every stdout line must be one JSON-RPC
 * message: anything else ("nothing but protocol on stdout") is a violation that makes
 * `close()` fail. stderr is kept for diagnostics. The child is ended by closing its stdin,
 * as a client does, and killed by its PID if it does not exit in time.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fixture } from './common.js';
import { TestPeer, type PeerOptions } from './peer.js';

/** The everything fixture served on stdio. */
export const EVERYTHING_STDIO = fixture('everything-stdio.js');

export interface SpawnOptions extends PeerOptions {
  /** Arguments for node: a script path and its arguments (default: the everything fixture). */
  args?: string[];
  env?: Record<string, string>;
  /** How long `close()` waits for the child to exit after stdin closes (ms, default 3000). */
  exitTimeoutMs?: number;
}

export class StdioPeer extends TestPeer {
  readonly child: ChildProcessWithoutNullStreams;
  stderr = '';
  /** Set once the child exited: its code (or null) and signal. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private buffer = '';
  private readonly exitTimeoutMs: number;

  constructor(options: SpawnOptions = {}) {
    super(options);
    this.exitTimeoutMs = options.exitTimeoutMs ?? 3000;
    this.child = spawn(process.execPath, options.args ?? [EVERYTHING_STDIO], {
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onData(chunk));
    this.child.stdout.on('end', () => {
      if (this.buffer.length) this.violation(`stdout ended inside a line (no newline): ${JSON.stringify(this.buffer.slice(0, 200))}`);
      this.buffer = '';
      this.failAll(new Error(`server stdout closed; stderr: ${this.stderr.slice(0, 2000)}`));
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    // A write after the child died must not crash the test run.
    this.child.stdin.on('error', () => {});
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        this.violation(`nothing but protocol on stdout: non-JSON line ${JSON.stringify(line.slice(0, 200))}`);
        continue;
      }
      if (value === null || typeof value !== 'object') {
        this.violation(`nothing but protocol on stdout: ${JSON.stringify(line.slice(0, 200))} is not a JSON-RPC message`);
        continue;
      }
      this.receive(value);
    }
  }

  protected write(value: unknown): void {
    this.child.stdin.write(`${JSON.stringify(value)}\n`);
  }

  /** Writes one raw line (not necessarily JSON). */
  writeLine(text: string): void {
    this.child.stdin.write(`${text}\n`);
  }

  /** Closes stdin and waits for the child to exit; kills it by PID when it does not. */
  async end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (!this.exit) {
      this.child.stdin.end();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = await Promise.race([
        this.exited.then(() => false),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(true), this.exitTimeoutMs))),
      ]);
      clearTimeout(timer);
      if (timedOut && this.child.pid !== undefined && !this.exit) {
        this.violation(`server did not exit within ${this.exitTimeoutMs} ms after stdin closed`);
        process.kill(this.child.pid, 'SIGKILL');
      }
    }
    return this.exited;
  }

  async close(): Promise<void> {
    await this.end();
    this.assertClean();
  }
}
