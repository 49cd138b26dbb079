/**
 * The multi-instance tests, run again on another topology by on-cluster.test.ts and
 * on-sentinel.test.ts: fan-out once per change, MRTR rounds across instances with replays
 * refused everywhere, handshake-era sessions served by any instance (from copies; expiry ends
 * one once; pings where the GET stream is) and behind a round-robin balancer with real SDK
 * clients, the example server and node:cluster workers configured from the environment, tasks
 * read and cancelled through any instance and taken over when theirs is SIGKILLed. The files
 * share one topology (support.ts), each under its own prefix.
 */
import type { TopologyName } from './support.js';

const FILES = [
  './fan-out.test.js',
  './mrtr.test.js',
  './load-balancer.test.js',
  './example-server.test.js',
  './workers.test.js',
  './sessions.test.js',
  './sessions-lifetime.test.js',
  './tasks.test.js',
  './task-failover.test.js',
];

/** Registers every multi-instance test of this folder, to run on `topology`. */
export async function runMultiInstanceTests(topology: TopologyName): Promise<void> {
  // Read when each file starts its Redis: set before any of them is loaded.
  process.env.JANUS_REDIS_TOPOLOGY = topology;
  for (const file of FILES) await import(file);
}
