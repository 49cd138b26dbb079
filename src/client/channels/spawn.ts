/**
 * Spawns a stdio server as a child process. Closing follows the stdio lifecycle
 * (basic/transports/stdio.mdx): close its stdin, wait, then SIGTERM, then SIGKILL; only
 * the child we started, by its PID.
 *
 * stdio.mdx lets the client capture, forward or ignore the server's stderr. We always pipe
 * it: the last lines are kept (StderrTail) so that a server that fails to start, crashes or
 * exits explains itself in the error (ProcessChannelError); with `stderr: 'inherit'` (the
 * default) every chunk is also forwarded to this process's stderr as it comes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { StdioTransport } from '../../transports/stdio.js';
import type { SpawnOptions } from '../options.js';
import { MessageChannel } from './message.js';
import { ProcessChannelError } from './process-error.js';
import { StderrTail } from './stderr-tail.js';

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/** Whether `p` settles within `ms` (the timer is cleared either way). */
function within(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
  return Promise.race([p.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** The command line as a user would type it (arguments with spaces or quotes quoted). */
function commandLine(options: SpawnOptions): string {
  return [options.command, ...(options.args ?? [])].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/** `maxMessageBytes`: the longest line taken from the child (default: StdioTransport's, 16 MiB). */
export function spawnChannel(
  options: SpawnOptions,
  limits: { maxMessageBytes?: number } = {},
): { channel: MessageChannel; child: ChildProcess } {
  const child = spawn(options.command, options.args ?? [], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const tail = new StderrTail();
  const forward = (options.stderr ?? 'inherit') === 'inherit';
  child.stderr!.on('data', (chunk: Buffer) => {
    tail.push(chunk);
    if (forward) process.stderr.write(chunk);
  });
  // An 'error' (e.g. ENOENT) must not crash the process; the channel reports it when it closes.
  let spawnError: (Error & { code?: string }) | undefined;
  const gone = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.on('error', (e: Error & { code?: string }) => {
      if (child.pid !== undefined) return; // a failed kill(), not a failed start
      spawnError ??= e;
      resolve();
    });
  });
  const stderrClosed = new Promise<void>((resolve) => child.stderr!.once('close', () => resolve()));

  const transport = new StdioTransport({ input: child.stdout!, output: child.stdin!, maxLineBytes: limits.maxMessageBytes });
  child.on('exit', () => void transport.close());

  /** Why the server went away: waits (briefly) for the exit status and the last of stderr. */
  const closeReason = async (waitingFor: string[]): Promise<Error> => {
    const exited = await within(gone, 2000);
    await within(stderrClosed, 250);
    return new ProcessChannelError({
      command: commandLine(options),
      cwd: options.cwd,
      spawnError,
      cwdMissing: spawnError?.code === 'ENOENT' && options.cwd !== undefined && !existsSync(options.cwd),
      exitCode: child.exitCode,
      signal: child.signalCode,
      running: !exited,
      stderr: tail.get(),
      waitingFor,
    });
  };

  const channel = new MessageChannel(transport, 'stdio', {
    closeReason,
    onClosed: async () => {
      child.stdin?.end();
      if (await waitExit(child, 2000)) return;
      child.kill('SIGTERM');
      if (await waitExit(child, 2000)) return;
      child.kill('SIGKILL');
      await waitExit(child, 1000);
    },
  });
  return { channel, child };
}
