/**
 * The multi-instance tests (multi-instance.ts) again, on a Redis Cluster of three primaries and
 * three replicas (sharded publish/subscribe, every script on one slot), started from
 * redis-server on 127.0.0.1 (test/support/redis-topologies.ts).
 */
import { runMultiInstanceTests } from './multi-instance.js';

await runMultiInstanceTests('cluster');
