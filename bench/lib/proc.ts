/**
 * Child processes of the benchmark: each server under test runs alone on core 0
 * (`taskset -c 0`), the benchmark itself (the load generator) on core 1. CPU and peak memory
 * are read from /proc, so measuring costs the server nothing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Impl = 'bare' | 'janus' | 'sdk' | JanusVariant;
/** The implementations a run compares by default. */
export const IMPLS: readonly Impl[] = ['bare', 'janus', 'sdk'];
/**
 * Janus with a feature on, to show what it costs (docs/performance.md): an empty middleware
 * chain, OpenTelemetry tracing and metrics with a real SDK, the tasks extension (a task
 * tool registered; scenario 6 then also times a task round trip), or authorization (the `auth`
 * option verifying a bearer JWT on every request; scenarios 1 and 2 send it). Run on request only
 * (`--impls janus,janus-mw,janus-otel,janus-tasks,janus-auth`), and reported as ratios to plain Janus.
 */
export type JanusVariant = 'janus-mw' | 'janus-otel' | 'janus-tasks' | 'janus-auth';
export const VARIANTS: readonly JanusVariant[] = ['janus-mw', 'janus-otel', 'janus-tasks', 'janus-auth'];
export const ALL_IMPLS: readonly Impl[] = [...IMPLS, ...VARIANTS];

const here = dirname(fileURLToPath(import.meta.url));
/** dist/bench/servers/<impl>.js; the Janus variants are janus.js with `--variant`. */
export const serverScript = (impl: Impl): string => join(here, '..', 'servers', `${impl.startsWith('janus') ? 'janus' : impl}.js`);
const variantArgs = (impl: Impl): string[] => (impl.startsWith('janus-') ? ['--variant', impl.slice('janus-'.length)] : []);

export interface Pinning {
  /** Command prefix that pins a child to the server core, or [] when pinning is unavailable. */
  serverPrefix: string[];
  note: string;
  cores: number;
}

function has(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins this process (the load generator) to core 1 and returns how to pin servers to core 0. */
export function setupPinning(): Pinning {
  let cores = 1;
  try {
    cores = Number(execFileSync('nproc', ['--all'], { encoding: 'utf8' }).trim()) || 1;
  } catch {
    /* keep 1 */
  }
  if (cores < 2)
    return {
      serverPrefix: [],
      cores,
      note: 'WARNING: fewer than 2 cores: server and load generator share a core; results are not comparable with the documented ones',
    };
  if (!has('taskset', ['-p', String(process.pid)])) {
    return {
      serverPrefix: [],
      cores,
      note: 'WARNING: taskset not found (util-linux): server and load generator are not pinned; expect noisier results',
    };
  }
  execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  return { serverPrefix: ['taskset', '-c', '0'], cores, note: 'server pinned to core 0 (taskset -c 0), load generator to core 1' };
}

let clkTck = 100;
try {
  clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  /* Linux default */
}

/** User + system CPU seconds of a process (all its threads), from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / clkTck;
}

function statusKb(pid: number, key: string): number {
  const m = new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
  return m ? Number(m[1]) * 1024 : NaN;
}
export const rssBytes = (pid: number): number => statusKb(pid, 'VmRSS');
export const hwmBytes = (pid: number): number => statusKb(pid, 'VmHWM');

/**
 * Resets the peak-RSS mark of a process (`echo 5 > /proc/<pid>/clear_refs`), so VmHWM then
 * reports the peak of one load step. Returns false where the kernel or permissions refuse.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface MemStats {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

export interface ServerOptions {
  transport: 'http' | 'stdio';
  mode?: 'modern' | 'session' | 'both';
  tools?: number;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeFlags?: string[];
  /** Another server script than the implementation's, and arguments after the usual ones (scenario 8). */
  script?: string;
  args?: string[];
  /** Another pinning prefix than `pinning.serverPrefix` (scenario 8: every core but the generator's). */
  prefix?: string[];
}

/** A running server under test. */
export class ServerProcess {
  readonly child: ChildProcess;
  readonly spawnedAt: bigint;
  port = 0;
  path = '/mcp';
  /** Everything the child reported when ready (scenario 8's primary adds its workers' PIDs). */
  readyInfo: Record<string, unknown> = {};
  /** The access token every request must carry (`Authorization: Bearer`), when the server reported one (janus-auth). */
  token: string | undefined;
  #seq = 0;
  #waiting = new Map<number, (m: Record<string, unknown>) => void>();
  #ready: Promise<void>;
  #exited = false;
  #stderr = '';

  constructor(
    readonly impl: Impl,
    readonly options: ServerOptions,
    pinning: Pinning,
  ) {
    const args = [
      ...(options.prefix ?? pinning.serverPrefix),
      process.execPath,
      '--expose-gc',
      ...(options.nodeFlags ?? []),
      options.script ?? serverScript(impl),
      '--transport',
      options.transport,
      '--mode',
      options.mode ?? 'both',
      '--tools',
      String(options.tools ?? 0),
      ...variantArgs(impl),
      ...(options.args ?? []),
    ];
    this.spawnedAt = process.hrtime.bigint();
    this.child = spawn(args[0]!, args.slice(1), { stdio: ['pipe', 'pipe', 'pipe', 'ipc'] });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (s: string) => {
      if (this.#stderr.length < 20_000) this.#stderr += s;
    });
    if (options.transport === 'http') this.child.stdout!.resume();
    this.#ready = new Promise((resolve, reject) => {
      this.#waiting.set(0, (m) => {
        this.readyInfo = m;
        this.port = Number(m.port ?? 0);
        this.path = String(m.path ?? '/mcp');
        this.token = typeof m.token === 'string' ? m.token : undefined;
        resolve();
      });
      this.child.once('exit', (code, signal) => {
        this.#exited = true;
        reject(new Error(`${impl} server exited before it was ready (code ${code}, signal ${signal})\n${this.#stderr}`));
        for (const w of this.#waiting.values()) w({ error: 'exited' });
      });
    });
    this.#ready.catch(() => undefined);
    this.child.on('message', (m: Record<string, unknown>) => {
      const seq = Number(m.seq);
      const w = this.#waiting.get(seq);
      if (w) {
        this.#waiting.delete(seq);
        w(m);
      }
    });
  }

  get pid(): number {
    return this.child.pid!;
  }
  get stderr(): string {
    return this.#stderr;
  }

  ready(timeoutMs = 30_000): Promise<void> {
    return withTimeout(this.#ready, timeoutMs, `${this.impl} server did not become ready`);
  }

  #ask(op: string, timeoutMs = 60_000, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    if (this.#exited) return Promise.reject(new Error(`${this.impl} server has exited\n${this.#stderr}`));
    const seq = ++this.#seq;
    const p = new Promise<Record<string, unknown>>((resolve) => this.#waiting.set(seq, resolve));
    this.child.send({ ...extra, op, seq });
    return withTimeout(p, timeoutMs, `${this.impl} server did not answer "${op}"`);
  }

  /** What the child reports about itself (memory, and what its `stats` control adds). */
  stats(): Promise<Record<string, unknown>> {
    return this.#ask('stats');
  }

  /** Forces full garbage collections in the child, then reports its memory. */
  async gc(): Promise<MemStats> {
    const m = await this.#ask('gc');
    return { rss: Number(m.rss), heapUsed: Number(m.heapUsed), external: Number(m.external), arrayBuffers: Number(m.arrayBuffers) };
  }

  /** Writes a heap snapshot of the child (after full GCs) to `file`. */
  async heapSnapshot(file: string): Promise<string> {
    const m = await this.#ask('heap-snapshot', 300_000, { file });
    return String(m.file);
  }

  /**
   * Has the child publish one tools `list_changed`; returns the child's monotonic time (ns)
   * just before the publish call and when that call returned (same clock as
   * `process.hrtime.bigint()` here: CLOCK_MONOTONIC is system-wide).
   */
  async notify(): Promise<{ t: bigint; returned: bigint } | undefined> {
    const m = await this.#ask('notify');
    return m.error ? undefined : { t: BigInt(String(m.t)), returned: BigInt(String(m.done)) };
  }

  async stop(): Promise<void> {
    if (this.#exited) return;
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    if (this.options.nodeFlags?.some((f) => f.startsWith('--cpu-prof') || f.startsWith('--prof'))) {
      // A profiled child must exit by itself to write its profile.
      this.child.send({ op: 'exit', seq: -1 });
      if (
        await withTimeout(gone, 20_000, 'exit').then(
          () => true,
          () => false,
        )
      )
        return;
    }
    this.child.kill('SIGKILL');
    await withTimeout(gone, 5000, `${this.impl} server did not exit`).catch(() => undefined);
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise<T>((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
    }),
  ]);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
