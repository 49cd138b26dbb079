/**
 * The multi-instance tests again, on a primary with one replica watched by three sentinels, started from redis-server on 127.0.0.1 (test/support/redis-topologies.ts):
 * fan-out once per change, MRTR rounds across instances with replays refused everywhere,
 * handshake-era sessions served by any instance (from copies; expiry ends one once; pings where
 * the GET stream is) and behind a round-robin balancer with real SDK
 * clients, the example server and node:cluster workers configured from the environment, tasks
 * read and cancelled through any instance and taken over when theirs is SIGKILLed. The
 * files share one sentinel, each under its own prefix.
 */
process.env.JANUS_REDIS_TOPOLOGY = 'sentinel';

await import('./fan-out.test.js');
await import('./mrtr.test.js');
await import('./load-balancer.test.js');
await import('./example-server.test.js');
await import('./workers.test.js');
await import('./sessions.test.js');
await import('./sessions-lifetime.test.js');
await import('./tasks.test.js');
await import('./task-failover.test.js');
