/**
 * The multi-instance tests (multi-instance.ts) again, on a primary with one replica watched by
 * three sentinels, started from redis-server on 127.0.0.1 (test/support/redis-topologies.ts).
 */
import { runMultiInstanceTests } from './multi-instance.js';

await runMultiInstanceTests('sentinel');
