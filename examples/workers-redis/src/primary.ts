/**
 * The primary process: forks `WORKERS` workers, which share one listening port through
 * node:cluster (the primary accepts connections and hands each to the next worker in turn).
 * - A worker that fails before every worker has listened once stops the start: the others are
 *   stopped and the primary exits 1, so an unreachable Redis or a port in use fails fast.
 * - After that, a worker that dies is replaced (after a pause if it dies again before listening).
 * - SIGTERM or SIGINT is passed on to every worker, which drains (worker.ts); the primary exits
 *   0 once all have exited, or 1 if one had to be killed after the drain's deadline.
 */
import cluster, { type Worker } from 'node:cluster';
import { readConfig } from './config.js';

const RETRY_PAUSE_MS = 1000;

export function runPrimary(): void {
  const config = readConfig();
  const stopDeadlineMs = config.drainMs + 5000; // the drain, and the closing after it
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
        console.error(`workers-redis: worker ${worker.process.pid} still running after ${stopDeadlineMs} ms; killing it`);
        worker.process.kill('SIGKILL');
      }
      exitCode = 1;
    }, stopDeadlineMs).unref();
  };

  cluster.on('listening', (worker, address) => {
    if (listened.has(worker)) return;
    listened.add(worker);
    if (++started === config.workers)
      console.error(`workers-redis: ${config.workers} workers listening on http://${config.host}:${address.port}/mcp`);
  });
  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker);
    if (stopping) {
      if (live.size === 0) process.exit(exitCode);
      return;
    }
    const how = `worker ${worker.process.pid} exited (${code ?? signal})`;
    if (started < config.workers && !listened.has(worker)) {
      console.error(`workers-redis: ${how} before listening; stopping`);
      exitCode = 1;
      stop();
    } else if (!listened.has(worker)) {
      console.error(`workers-redis: ${how} before listening; starting another in ${RETRY_PAUSE_MS} ms`);
      setTimeout(fork, RETRY_PAUSE_MS);
    } else {
      console.error(`workers-redis: ${how}; starting another`);
      fork();
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, stop);
  for (let i = 0; i < config.workers; i++) fork();
}
