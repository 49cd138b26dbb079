/**
 * Spawns a stdio server as a child process. Closing follows the stdio lifecycle
 * (basic/transports/stdio.mdx): close its stdin, wait, then SIGTERM, then SIGKILL; only
 * the child we started, by its PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { StdioTransport } from '../../transports/stdio.js';
import type { SpawnOptions } from '../options.js';
import { MessageChannel } from './message.js';

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => (child.off('exit', onExit), resolve(false)), ms);
    const onExit = () => (clearTimeout(timer), resolve(true));
    child.once('exit', onExit);
  });
}

export function spawnChannel(options: SpawnOptions): { channel: MessageChannel; child: ChildProcess } {
  const child = spawn(options.command, options.args ?? [], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', options.stderr ?? 'inherit'],
  });
  // An 'error' (e.g. ENOENT) must not crash the process; the channel reports the close.
  child.on('error', () => {});
  const transport = new StdioTransport({ input: child.stdout!, output: child.stdin! });
  child.on('exit', () => void transport.close());
  const channel = new MessageChannel(transport, 'stdio', async () => {
    child.stdin?.end();
    if (await waitExit(child, 2000)) return;
    child.kill('SIGTERM');
    if (await waitExit(child, 2000)) return;
    child.kill('SIGKILL');
    await waitExit(child, 1000);
  });
  return { channel, child };
}
