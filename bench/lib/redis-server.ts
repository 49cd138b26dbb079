/**
 * A `redis-server` of the benchmark's own (scenario 8): on a free 127.0.0.1 port, without
 * persistence, pinned with the servers under test, stopped by its PID.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { sleep } from './proc.js';

export interface RedisServer {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s. */
  stop(): Promise<void>;
}

/** Whether `redis-server` is on PATH. */
export function hasRedisServer(): boolean {
  const r = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  return r.error === undefined && r.status === 0;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const a = probe.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(reply.startsWith('+PONG')));
  });
}

/** Starts redis-server (behind `prefix`, e.g. `taskset -c 0`) and waits until it answers PING. */
export async function startRedisServer(prefix: string[]): Promise<RedisServer> {
  const port = await freePort();
  const cmd = [...prefix, 'redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn(cmd[0]!, cmd.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    if (stderr.length < 5000) stderr += s;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', () => undefined);
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  // If the benchmark ends without reaching stop() (an uncaught error, Ctrl-C), Redis goes too.
  const onExit = (): void => {
    if (!gone()) child.kill('SIGKILL');
  };
  process.once('exit', onExit);
  const stop = async (): Promise<void> => {
    process.removeListener('exit', onExit);
    if (gone()) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  const deadline = Date.now() + 10_000;
  while (!(await pings(port))) {
    if (gone() || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server on port ${port} did not answer PING\n${stderr}`);
    }
    await sleep(50);
  }
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid!, stop };
}
