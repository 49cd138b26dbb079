/**
 * The primary of examples/workers: forks `WORKERS` workers (default: one per CPU,
 * `os.availableParallelism()`), which share one listening port through `node:cluster`.
 * - A worker that fails before every worker has listened once ends the start: the others are
 *   stopped and the primary exits 1 (an unreachable Redis or a port in use fails fast, once).
 * - After that, a worker that dies is replaced; a replacement that dies before listening is
 *   tried again after a pause rather than in a tight loop.
 * - SIGTERM or SIGINT is passed on to every worker as SIGTERM, which drains it (shutdown.ts);
 *   the primary exits 0 once all have exited, or 1 if one outlives the drain and is killed.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';

/** A worker drains for at most 10 s (shutdown.ts), then closes; this allows for the close. */
const STOP_DEADLINE_MS = 15_000;
const RETRY_PAUSE_MS = 1000;

export function runPrimary(): void {
  if (!process.env.REDIS_URL) fail('set REDIS_URL (e.g. redis://127.0.0.1:6379): the workers share their state on Redis');
  const count = workerCount(process.env.WORKERS);
  const live = new Set<Worker>();
  const listened = new WeakSet<Worker>();
  let started = 0;
  let stopping = false;
  let exitCode = 0;

  const fork = () => {
    if (!stopping) live.add(cluster.fork());
  };
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const worker of live) worker.process.kill('SIGTERM');
    if (live.size === 0) process.exit(exitCode);
    setTimeout(() => {
      for (const worker of live) {
        console.error(`janus-everything: worker ${worker.process.pid} still running after ${STOP_DEADLINE_MS} ms; killing it`);
        worker.process.kill('SIGKILL');
      }
      exitCode = 1;
    }, STOP_DEADLINE_MS).unref();
  };

  cluster.on('listening', (worker) => {
    if (listened.has(worker)) return;
    listened.add(worker);
    started++;
  });
  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker);
    if (stopping) {
      if (live.size === 0) process.exit(exitCode);
      return;
    }
    const how = `worker ${worker.process.pid} exited (${code ?? signal})`;
    if (started < count && !listened.has(worker)) {
      console.error(`janus-everything: ${how} before listening; stopping`);
      exitCode = 1;
      stop();
    } else if (!listened.has(worker)) {
      console.error(`janus-everything: ${how} before listening; starting another in ${RETRY_PAUSE_MS} ms`);
      setTimeout(fork, RETRY_PAUSE_MS);
    } else {
      console.error(`janus-everything: ${how}; starting another`);
      fork();
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, stop);
  for (let i = 0; i < count; i++) fork();
}

/** `WORKERS`: a positive integer, or one worker per CPU when unset. */
function workerCount(value: string | undefined): number {
  if (value === undefined || value === '') return availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`WORKERS must be a positive integer, not ${JSON.stringify(value)}`);
  return n;
}

function fail(reason: string): never {
  console.error(`janus-everything: ${reason}`);
  process.exit(1);
}
