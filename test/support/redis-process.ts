/**
 * redis-server (and redis-cli) child processes for tests that build Redis topologies on
 * 127.0.0.1: ports picked so a node's cluster bus port (port + 10000) is free too, a spawn that
 * retries on another port when one was taken meanwhile, the tail of each process's log kept for
 * error messages, and stopping by PID (SIGTERM, then SIGKILL after a grace).
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { delay } from './wait.js';
import { redisPings } from './resp.js';

const INSTALL_HINT = 'install it with `apt install redis-server` (it brings redis-cli too)';

/** A cluster node's bus listens on its port + 10000 (Redis' fixed offset unless cluster-port is set). */
export const BUS_PORT_OFFSET = 10_000;

/** How much of a process's log is kept for error messages. */
const LOG_TAIL_CHARS = 4000;

/**
 * Ports handed out by this process and not yet known to be bound, so parallel spawns never pick
 * the same one. Kept below the ephemeral range (32768+) that outgoing connections and
 * `listen(0)` use, bus ports included.
 */
const reserved = new Set<number>();
const PORT_LOW = 12_000;
const PORT_HIGH = 22_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A loopback port that is free now, with its bus port (port + 10000) free too when `withBus`. */
export async function freeRedisPort(withBus: boolean): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_LOW + Math.floor(Math.random() * (PORT_HIGH - PORT_LOW));
    const bus = port + BUS_PORT_OFFSET;
    if (reserved.has(port) || reserved.has(bus)) continue;
    reserved.add(port);
    if (withBus) reserved.add(bus);
    if ((await bindable(port)) && (!withBus || (await bindable(bus)))) return port;
    reserved.delete(port);
    reserved.delete(bus);
  }
  throw new Error(`no free loopback port pair (port and port + ${BUS_PORT_OFFSET}) found between ${PORT_LOW} and ${PORT_HIGH}`);
}

/** Gives a port back to the pool once the process on it has exited for good. */
export function releaseRedisPort(port: number): void {
  reserved.delete(port);
  reserved.delete(port + BUS_PORT_OFFSET);
}

/** One redis-server process (a data node or a sentinel). */
export interface RedisProcess {
  readonly port: number;
  readonly address: string;
  readonly pid: number;
  /** Resolves once the process has exited. */
  readonly exited: Promise<void>;
  gone(): boolean;
  /** The last few KB of what it wrote (its log goes to stdout, startup errors to stderr). */
  log(): string;
  /** Sends `signal` and waits for the exit; a process still running after `graceMs` gets SIGKILL. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

/**
 * Every redis-server this process started and that still runs, and the temp dirs not yet
 * removed: killed by PID and removed when the process exits, so a test that fails before its
 * `stop()` leaves nothing behind.
 */
const running = new Set<number>();
const tempDirs = new Set<string>();
let reaperInstalled = false;
function installReaper(): void {
  if (reaperInstalled) return;
  reaperInstalled = true;
  process.once('exit', () => {
    for (const pid of running) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
}
function track(pid: number, exited: Promise<void>): void {
  running.add(pid);
  void exited.then(() => running.delete(pid));
  installReaper();
}

/** A fresh temp dir for one topology, removed at exit if `removeTempDir` was not called. */
export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.add(dir);
  installReaper();
  return dir;
}

export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** Spawns `redis-server args` and resolves when it answers PING on `port`; rejects with its log if it exits first. */
async function spawnOnce(port: number, args: readonly string[], readyTimeoutMs: number): Promise<RedisProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) => {
      spawnError = e.code === 'ENOENT' ? new Error(`redis-server is not on PATH: ${INSTALL_HINT}`) : e;
      resolve();
    });
    child.once('close', () => resolve());
  });
  if (child.pid !== undefined) track(child.pid, exited);
  const gone = () => spawnError !== undefined || child.exitCode !== null || child.signalCode !== null;
  const address = `127.0.0.1:${port}`;
  const proc: RedisProcess = {
    port,
    address,
    get pid() {
      return child.pid ?? -1;
    },
    exited,
    gone,
    log: () => tail,
    async stop(signal = 'SIGTERM', graceMs = 5000) {
      if (gone()) return exited;
      process.kill(child.pid!, signal);
      const timer = setTimeout(() => gone() || process.kill(child.pid!, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  const deadline = performance.now() + readyTimeoutMs;
  for (;;) {
    if (gone()) {
      await exited;
      if (spawnError) throw spawnError;
      throw new Error(`redis-server on ${address} exited (${child.exitCode ?? child.signalCode}) before answering PING:\n${tail}`);
    }
    if (await redisPings(address)) return proc;
    if (performance.now() > deadline) {
      await proc.stop('SIGKILL');
      throw new Error(`redis-server on ${address} did not answer PING within ${readyTimeoutMs} ms; its log:\n${tail}`);
    }
    await delay(20);
  }
}

/**
 * Spawns redis-server with the arguments `argsFor(port)` builds (a sentinel writes its config
 * file there) on a free port, trying another port when the chosen one was taken meanwhile.
 */
export async function spawnRedisProcess(options: {
  argsFor: (port: number) => Promise<string[]> | string[];
  /** Whether port + 10000 must be free too (a cluster node's bus). */
  withBus: boolean;
  /** A fixed port (a restarted node keeps its own); no retry on another. */
  port?: number;
  readyTimeoutMs?: number;
}): Promise<RedisProcess> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 20_000;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freeRedisPort(options.withBus));
    try {
      return await spawnOnce(port, await options.argsFor(port), readyTimeoutMs);
    } catch (error) {
      if (options.port === undefined) releaseRedisPort(port);
      const clash = error instanceof Error && /in use/i.test(error.message);
      if (!clash || options.port !== undefined || attempt >= 5) throw error;
    }
  }
}

/** Runs redis-cli with `args` and resolves with its output; rejects with that output if it fails or outlives `timeoutMs`. */
export function runRedisCli(args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-cli', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(e.code === 'ENOENT' ? new Error(`redis-cli is not on PATH: ${INSTALL_HINT}`) : e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else if (signal === 'SIGKILL')
        reject(new Error(`redis-cli ${args.join(' ')} did not finish within ${timeoutMs} ms; it wrote:\n${output}`));
      else reject(new Error(`redis-cli ${args.join(' ')} failed (${code ?? signal}):\n${output}`));
    });
  });
}

/**
 * Polls `check` (every `everyMs`) until it returns `{ ok: true }`; each answer's `seen` says
 * what it saw, and the last one is in the error when `timeoutMs` passes. A check that throws
 * counts as not yet (a node may be restarting); its message is what was seen.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<{ ok: true; value: T } | { ok: false; seen: string }>,
  timeoutMs: number,
  everyMs = 25,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let seen = 'nothing yet';
  for (;;) {
    try {
      const result = await check();
      if (result.ok) return result.value;
      seen = result.seen;
    } catch (error) {
      seen = error instanceof Error ? error.message : String(error);
    }
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen}`);
    await delay(everyMs);
  }
}
