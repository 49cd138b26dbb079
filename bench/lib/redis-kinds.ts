/**
 * Scenario 8's Redis of each kind, started once for the whole run and stopped by PID at its end:
 * one redis-server (redis-server.ts), a Redis Cluster of 3 primaries and 3 replicas, and a
 * primary with one replica watched by 3 sentinels (the test suite's topologies, from the same
 * redis-server binary). Each reports the PIDs of its processes by role, so that the scenario
 * can add up the Redis CPU of a kind (replicas apply every write too, and sentinels ping) and
 * tell the busiest primary (on a cluster, the shard that holds a hash tag's keys).
 */
import { execFileSync } from 'node:child_process';
import { startRedisCluster, startRedisSentinel } from '../../test/support/redis-topologies.js';
import { REDIS_PRIMARIES, type RedisKind } from './context.js';
import { cpuSeconds } from './proc.js';
import { startRedisServer } from './redis-server.js';

/** The PIDs of one kind's processes, by role. */
export interface RedisPids {
  primaries: number[];
  replicas: number[];
  sentinels: number[];
}

export interface RedisOfKind {
  kind: RedisKind;
  /** What the Janus bench server (janus.ts, janus-cluster.ts) is given to connect to it. */
  serverArgs: string[];
  pids: RedisPids;
  stop(): Promise<void>;
}

/** CPU seconds of every process of a kind, by PID (read from /proc/<pid>/stat). */
export function redisCpu(pids: RedisPids): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of [...pids.primaries, ...pids.replicas, ...pids.sentinels]) out.set(pid, cpuSeconds(pid));
  return out;
}

/** Per role, the CPU seconds spent between two readings; `busiestPrimary` is the most any one primary spent. */
export interface RedisCpuSpent {
  all: number;
  primaries: number;
  replicas: number;
  sentinels: number;
  busiestPrimary: number;
}

export function redisCpuSpent(pids: RedisPids, before: Map<number, number>, after: Map<number, number>): RedisCpuSpent {
  const d = (pid: number): number => (after.get(pid) ?? 0) - (before.get(pid) ?? 0);
  const sum = (list: number[]): number => list.reduce((s, pid) => s + d(pid), 0);
  const primaries = sum(pids.primaries);
  const replicas = sum(pids.replicas);
  const sentinels = sum(pids.sentinels);
  return {
    all: primaries + replicas + sentinels,
    primaries,
    replicas,
    sentinels,
    busiestPrimary: Math.max(0, ...pids.primaries.map(d)),
  };
}

/**
 * Pins every thread of the given processes to `cpuList` (taskset's list, e.g. `0`), as the
 * servers under test are: the topologies start redis-server without a prefix.
 */
function pin(cpuList: string | undefined, pids: number[]): void {
  if (!cpuList) return;
  for (const pid of pids) execFileSync('taskset', ['-a', '-cp', cpuList, String(pid)], { stdio: 'ignore' });
}

/**
 * Starts one Redis of `kind`, behind `prefix` (e.g. `taskset -c 0`; its CPU list pins the
 * topologies' processes after they start). Failover is not measured here: the node timeout and
 * the sentinels' down-after are long, so that a node starved of CPU on a busy machine is not
 * taken for dead in the middle of a run.
 */
export async function startRedisOfKind(kind: RedisKind, prefix: string[]): Promise<RedisOfKind> {
  const cpuList = prefix[0] === 'taskset' ? prefix[prefix.length - 1] : undefined;
  if (kind === 'single') {
    const redis = await startRedisServer(prefix);
    return {
      kind,
      serverArgs: ['--redis', redis.url],
      pids: { primaries: [redis.pid], replicas: [], sentinels: [] },
      stop: () => redis.stop(),
    };
  }
  if (kind === 'cluster') {
    const cluster = await startRedisCluster({ primaries: REDIS_PRIMARIES.cluster, replicasPerPrimary: 1, nodeTimeoutMs: 15_000 });
    try {
      const primaries = (await cluster.primaries()).map((p) => p.address);
      const pidOf = (a: string): number => {
        const pid = cluster.pidOf(a);
        if (pid === undefined) throw new Error(`the Redis Cluster's node ${a} is not running`);
        return pid;
      };
      const pids = {
        primaries: primaries.map(pidOf),
        replicas: cluster.nodes.filter((a) => !primaries.includes(a)).map(pidOf),
        sentinels: [],
      };
      pin(cpuList, [...pids.primaries, ...pids.replicas]);
      return { kind, serverArgs: ['--redis-cluster', cluster.running().join(',')], pids, stop: () => cluster.stop() };
    } catch (e) {
      await cluster.stop();
      throw e;
    }
  }
  const set = await startRedisSentinel({ replicas: 1, sentinels: 3, name: 'janus-bench', downAfterMs: 30_000 });
  try {
    const primary = await set.primary();
    const pidOf = (a: string): number => {
      const pid = set.pidOf(a);
      if (pid === undefined) throw new Error(`the Sentinel set's process ${a} is not running`);
      return pid;
    };
    const pids = {
      primaries: [pidOf(primary)],
      replicas: set.nodes.filter((a) => a !== primary).map(pidOf),
      sentinels: set.sentinels.map(pidOf),
    };
    pin(cpuList, [...pids.primaries, ...pids.replicas, ...pids.sentinels]);
    return {
      kind,
      serverArgs: ['--redis-sentinels', set.sentinels.join(','), '--redis-sentinel-name', set.name],
      pids,
      stop: () => set.stop(),
    };
  } catch (e) {
    await set.stop();
    throw e;
  }
}
