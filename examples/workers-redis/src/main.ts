/**
 * workers-redis: `REDIS_URL=redis://127.0.0.1:6379 PORT=3000 WORKERS=4 node dist/main.js`.
 * The primary process (primary.ts) forks the workers; each worker (worker.ts) serves the MCP
 * server on the one port that node:cluster shares among them, with its state on Redis.
 */
import cluster from 'node:cluster';

if (cluster.isPrimary) {
  const { runPrimary } = await import('./primary.js');
  runPrimary();
} else {
  const { runWorker } = await import('./worker.js');
  await runWorker();
}
