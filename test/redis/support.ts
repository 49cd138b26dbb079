/**
 * Scale-out tests on a real Redis: each test file starts its own `redis-server` child on a
 * free 127.0.0.1 port (no persistence) and stops it by PID; instances of one server definition
 * are each put on it with `redisCluster` and served with `serveHttp` on their own port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import type { Server } from '../../src/server/index.js';
import { redisCluster, type RedisCluster, type RedisClusterOptions, type RedisTopology } from '../../src/redis/index.js';
import {
  startRedisCluster,
  startRedisSentinel,
  type RedisClusterTopology,
  type RedisSentinelTopology,
} from '../support/redis-topologies.js';
import type { ServeHttpOptions } from '../../src/transports/http/index.js';
import { serve, type Served } from '../http-e2e/support.js';
import { freePort } from '../support/example-process.js';
import { until } from '../support/wait.js';

export { freePort };

/** Whether a Redis server answers PING on `port`. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(reply.startsWith('+PONG')));
  });
}

export interface RedisServer {
  readonly url: string;
  /** What `redisCluster()` takes to reach it: `{ url }`, `{ cluster }` or `{ sentinel }`. */
  readonly target: RedisTopology;
  /** The environment the example server reads it from (`REDIS_URL`, `REDIS_CLUSTER_NODES`, …). */
  readonly env: Record<string, string>;
  /** The running redis-server's PID (a new one after `restart()`). */
  readonly pid: number;
  stop(): Promise<void>;
  /** Kills redis-server at once (SIGKILL), as a crash would, and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts a fresh, empty redis-server on the same port (clients reconnect to the same URL). */
  restart(): Promise<void>;
  /**
   * Stops redis-server (SIGSTOP) without closing anything: connections stay open and commands
   * get no answer, as with a hung server or a network that drops packets (a killed one refuses at once).
   */
  freeze(): void;
  /** Lets a frozen redis-server run again (SIGCONT); it answers what it was sent meanwhile. */
  thaw(): void;
}

interface RedisChild {
  readonly pid: number;
  readonly exited: Promise<Error>;
  gone(): boolean;
}

/** Spawns `redis-server` on `port` and waits until it answers PING. */
async function spawnRedis(port: number): Promise<RedisChild> {
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<Error>((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) =>
      resolve(
        e.code === 'ENOENT'
          ? new Error('redis-server is not on PATH: these tests need a real Redis; install it with `apt install redis-server`')
          : e,
      ),
    );
    child.once('exit', (code, signal) => resolve(new Error(`redis-server exited (${code ?? signal}) before answering PING`)));
  });
  const ready = until(() => pings(port), `redis-server on port ${port} to answer PING`, 10_000);
  const first = await Promise.race([ready.then(() => undefined), exited]);
  if (first instanceof Error) throw first;
  return { pid: child.pid!, exited, gone: () => child.exitCode !== null || child.signalCode !== null };
}

/**
 * Which Redis the multi-instance tests run on: one `redis-server` by default; a Redis Cluster
 * (three primaries, three replicas) or a Sentinel set (a primary, a replica, three sentinels)
 * when `JANUS_REDIS_TOPOLOGY` says so (on-cluster.test.ts and on-sentinel.test.ts set it and run
 * those tests again). Read when a test starts its Redis, so a file can set it first.
 */
export type TopologyName = 'single' | 'cluster' | 'sentinel';

export function topologyName(): TopologyName {
  const name = process.env.JANUS_REDIS_TOPOLOGY ?? 'single';
  if (name !== 'single' && name !== 'cluster' && name !== 'sentinel')
    throw new Error(`JANUS_REDIS_TOPOLOGY=${name}: single, cluster or sentinel`);
  return name;
}

/** One topology per process, shared by the test files it runs (each under its own prefix), stopped when the last lets go. */
let shared: { topology: Promise<ReplicatedRedis>; users: number } | undefined;

/**
 * Starts the Redis the tests run on (topologyName()) and waits until it serves: one
 * `redis-server` on a free port, or the shared cluster or Sentinel set. `url`, `pid` and the
 * fault methods exist on one Redis only.
 */
export async function startRedis(): Promise<RedisServer> {
  const name = topologyName();
  if (name === 'single') return startSingleRedis();
  shared ??= { topology: name === 'cluster' ? startClusterTarget() : startSentinelTarget(), users: 0 };
  shared.users++;
  const own = shared;
  const topology = await own.topology;
  const unsupported = (what: string) => () => {
    throw new Error(`${what} is for one redis-server; this test runs on a ${name}`);
  };
  return {
    get url(): string {
      return unsupported('url')();
    },
    get pid(): number {
      return unsupported('pid')();
    },
    target: topology.target,
    env: topology.env,
    stop: async () => {
      if (--own.users === 0) {
        if (shared === own) shared = undefined;
        await topology.stop();
      }
    },
    kill: unsupported('kill()'),
    restart: unsupported('restart()'),
    freeze: unsupported('freeze()'),
    thaw: unsupported('thaw()'),
  };
}

/** A cluster or Sentinel set, as the instances connect to it. */
export interface ReplicatedRedis {
  readonly target: RedisTopology;
  /** The environment the example server reads it from. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

async function startClusterTarget(): Promise<ReplicatedRedis & { cluster: RedisClusterTopology }> {
  const cluster = await startRedisCluster();
  const nodes = cluster.running();
  return { cluster, target: { cluster: { nodes } }, env: { REDIS_CLUSTER_NODES: nodes.join(',') }, stop: () => cluster.stop() };
}

async function startSentinelTarget(): Promise<ReplicatedRedis & { sentinel: RedisSentinelTopology }> {
  const sentinel = await startRedisSentinel();
  const sentinels = [...sentinel.sentinels];
  return {
    sentinel,
    target: { sentinel: { sentinels, name: sentinel.name } },
    env: { REDIS_SENTINELS: sentinels.join(','), REDIS_SENTINEL_NAME: sentinel.name },
    stop: () => sentinel.stop(),
  };
}

/** A Redis Cluster of its own (three primaries, three replicas), for a test that kills a node. */
export const startCluster = startClusterTarget;
/** A Sentinel set of its own (a primary, a replica, three sentinels), for a test that kills the primary. */
export const startSentinel = startSentinelTarget;

/** Starts `redis-server` on a free port and waits until it answers PING. */
async function startSingleRedis(): Promise<RedisServer> {
  const port = await freePort();
  let current = await spawnRedis(port);
  const end = async (signal: NodeJS.Signals) => {
    if (current.gone()) return;
    process.kill(current.pid, signal);
    await current.exited;
  };
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    target: { url },
    env: { REDIS_URL: url },
    get pid() {
      return current.pid;
    },
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    async restart() {
      await end('SIGTERM');
      current = await spawnRedis(port);
    },
    freeze: () => void (current.gone() || process.kill(current.pid, 'SIGSTOP')),
    thaw: () => void (current.gone() || process.kill(current.pid, 'SIGCONT')),
  };
}

/** A fresh key and channel prefix, so tests sharing one Redis share nothing else. */
export const uniquePrefix = (): string => `janus-test-${randomUUID()}:`;

export interface Instance {
  readonly served: Served;
  readonly cluster: RedisCluster;
}

/**
 * `n` instances of one server definition (`define` builds it around the cluster it is given, and its index),
 * all on one Redis (a URL, or any topology) under `prefix` (with `options`, e.g. `onError`), each served
 * on its own 127.0.0.1 port (with `http`, e.g. `sessionIdleMs`).
 */
export async function startInstances(
  n: number,
  where: string | RedisTopology,
  prefix: string,
  define: (cluster: RedisCluster, index: number) => Server,
  options: Omit<RedisClusterOptions, 'url' | 'cluster' | 'sentinel' | 'prefix'> = {},
  http: ServeHttpOptions = {},
): Promise<{ instances: Instance[]; close(): Promise<void> }> {
  const instances: Instance[] = [];
  // Everything is closed even when a server reports errors (its close throws them), so a failed test ends instead of hanging on open connections.
  const close = async () => {
    const failures: unknown[] = [];
    for (const { served, cluster } of instances.splice(0)) {
      await served.close().catch((e: unknown) => failures.push(e));
      await cluster.close().catch((e: unknown) => failures.push(e));
    }
    if (failures.length > 0) throw failures[0];
  };
  try {
    for (let i = 0; i < n; i++) {
      const cluster = await redisCluster({ ...options, ...(typeof where === 'string' ? { url: where } : where), prefix });
      try {
        instances.push({ served: await serve(define(cluster, i), http), cluster });
      } catch (error) {
        await cluster.close();
        throw error;
      }
    }
    await settled(instances.map((i) => i.cluster));
  } catch (error) {
    await close();
    throw error;
  }
  return { instances, close };
}

/**
 * Waits until every instance has heard every other's events so far: registering a
 * definition's tools publishes `list_changed`, which must not reach a stream a test opens
 * afterwards. Each instance publishes a barrier; Redis keeps one publisher's messages in
 * order, so an instance that has heard all barriers has heard everything published before them.
 */
async function settled(clusters: readonly RedisCluster[]): Promise<void> {
  const barriers = clusters.map(() => `barrier://${randomUUID()}`);
  const heard = clusters.map(() => new Set<string>());
  const unsubscribe = clusters.map((cluster, i) =>
    cluster.backplane.subscribe((event) => {
      if (event.type === 'resource_updated' && barriers.includes(event.uri)) heard[i]!.add(event.uri);
    }),
  );
  try {
    for (const [i, cluster] of clusters.entries()) cluster.backplane.publish({ type: 'resource_updated', uri: barriers[i]! });
    await until(() => heard.every((h) => h.size === barriers.length), 'every instance heard every barrier');
  } finally {
    for (const off of unsubscribe) off();
  }
}
