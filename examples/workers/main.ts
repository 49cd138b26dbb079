/**
 * The everything server as N worker processes on one machine, sharing one port and one Redis:
 * `REDIS_URL=redis://127.0.0.1:6379 PORT=3901 WORKERS=4 node dist/examples/workers/main.js`
 * (docs/scale-out.md §Several processes on one machine). The primary (primary.ts) forks the
 * workers, replaces one that dies and drains them all on SIGTERM or SIGINT; each worker
 * (worker.ts) serves the everything server on the port `node:cluster` shares among them.
 */
import cluster from 'node:cluster';

if (cluster.isPrimary) {
  const { runPrimary } = await import('./primary.js');
  runPrimary();
} else {
  const { runWorker } = await import('./worker.js');
  await runWorker();
}
