/**
 * Real Redis topologies for tests, from the redis-server binary on 127.0.0.1 (no persistence,
 * each node in its own temp dir): a sharded Redis Cluster (`startRedisCluster`) and a primary
 * with replicas watched by Sentinels (`startRedisSentinel`). Each can lose its primary for real
 * (SIGKILL) and reports when the topology has promoted a replica by itself, and how long that
 * took. Every wait polls for a condition with a generous bound and names what it last saw.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  makeTempDir,
  type RedisProcess,
  releaseRedisPort,
  removeTempDir,
  runRedisCli,
  spawnRedisProcess,
  waitFor,
} from './redis-process.js';
import { redisCommand, redisReply, type RespReply } from './resp.js';

export { RespError, type RespReply, redisCommand, redisPings, redisReply } from './resp.js';

/** What a node or the topology reports once a primary was killed. */
export interface Failover {
  /** The killed primary's address. */
  readonly killed: string;
  /** The replica that took over, and the ms from the kill until the topology was whole again. */
  readonly promoted: Promise<{ address: string; ms: number }>;
}

/** Options every redis-server here gets: loopback only, nothing on disk, replicas synced at once. */
const COMMON_ARGS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--logfile', '', '--repl-diskless-sync-delay', '0'];

/** How long a topology may take to come up, or to settle after a failover or restart: only a broken one takes this long. */
const SETTLE_TIMEOUT_MS = 60_000;

const ROLE_MASTER = 'master';

/** Sentinel's failover-timeout: long enough for a promotion on a busy machine, short for a retry after a split vote. */
const FAILOVER_TIMEOUT_MS = 3000;

/** How much later than the one before each sentinel suspects a silent primary. */
const SENTINEL_STAGGER_MS = 500;

/** Stops every process (SIGTERM, SIGKILL after a grace) and removes `dir`, even when some stop fails. */
async function teardown(processes: Iterable<RedisProcess>, dir: string): Promise<void> {
  const all = [...processes];
  await Promise.allSettled(all.map((p) => p.stop('SIGTERM', 3000)));
  for (const p of all) releaseRedisPort(p.port);
  await removeTempDir(dir);
}

/** Starts processes in parallel; if any fails, stops those that started and rethrows the first failure. */
async function startAll(starts: readonly (() => Promise<RedisProcess>)[], dir: string): Promise<RedisProcess[]> {
  const results = await Promise.allSettled(starts.map((start) => start()));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    await teardown(
      results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
      dir,
    );
    throw failed.reason;
  }
  return results.map((r) => (r as PromiseFulfilledResult<RedisProcess>).value);
}

/** `field:value` lines (INFO, CLUSTER INFO) as a map. */
function infoFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** A flat [key, value, key, value…] reply (SENTINEL MASTER) as a map. */
function pairs(reply: RespReply): Map<string, string> {
  const fields = new Map<string, string>();
  if (!Array.isArray(reply)) return fields;
  for (let i = 0; i + 1 < reply.length; i += 2) fields.set(String(reply[i]), String(reply[i + 1]));
  return fields;
}

/** ROLE's first element: 'master', 'slave' or 'sentinel'. */
async function roleOf(address: string): Promise<{ role: string; link?: string }> {
  const reply = await redisReply(address, ['ROLE']);
  if (!Array.isArray(reply)) throw new Error(`ROLE on ${address} answered ${JSON.stringify(reply)}`);
  // A replica answers ['slave', masterHost, masterPort, 'connected' | 'connect' | 'sync' | …, offset].
  return reply[0] === 'slave' ? { role: 'slave', link: String(reply[3]) } : { role: String(reply[0]) };
}

// ---------------------------------------------------------------------------------------------
// Redis Cluster

/** One node as a CLUSTER NODES line describes it. */
export interface ClusterNodeView {
  readonly id: string;
  /** '127.0.0.1:port' (the bus port and hostname dropped). */
  readonly address: string;
  /** 'myself', 'master', 'slave', 'fail?', 'fail', 'handshake', 'noaddr', … */
  readonly flags: readonly string[];
  /** The id of the primary a replica follows; null for a primary. */
  readonly primaryId: string | null;
  /** Whether the cluster bus link to it is up. */
  readonly linkConnected: boolean;
  /** Inclusive slot ranges it serves (a primary). */
  readonly slots: readonly (readonly [number, number])[];
}

/** Parses CLUSTER NODES output (slots being migrated or imported, `[…]`, are left out). */
export function parseClusterNodes(text: string): ClusterNodeView[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [id = '', addr = '', flags = '', primary = '-', , , , link = '', ...slots] = line.split(' ');
      return {
        id,
        address: addr.split('@')[0]!.split(',')[0]!,
        flags: flags.split(','),
        primaryId: primary === '-' ? null : primary,
        linkConnected: link === 'connected',
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [from, to] = s.split('-').map(Number);
            return [from!, to ?? from!] as const;
          }),
      };
    });
}

const isPrimary = (n: ClusterNodeView) => n.flags.includes('master');
const isFailing = (n: ClusterNodeView) => n.flags.some((f) => f === 'fail' || f === 'fail?' || f === 'handshake' || f === 'noaddr');

export interface ClusterPrimary {
  readonly address: string;
  /** The redis-server PID, or undefined for a node this handle did not start or has killed. */
  readonly pid: number | undefined;
  readonly slots: readonly (readonly [number, number])[];
}

export interface RedisClusterOptions {
  /** Primaries, each owning an equal share of the 16384 slots (default 3; at least 3). */
  primaries?: number;
  /** Replicas of each primary (default 1). */
  replicasPerPrimary?: number;
  /**
   * cluster-node-timeout (default 1000 ms): a primary silent this long is suspected, and its
   * replica is promoted some time after a majority of primaries agree. Shorter fails over faster
   * but lets a node starved of CPU be taken for dead.
   */
  nodeTimeoutMs?: number;
}

export interface RedisClusterTopology {
  /** Every node this handle started, '127.0.0.1:port', primaries and replicas, killed or not. */
  readonly nodes: readonly string[];
  /** The nodes running now, for a client's root nodes. */
  running(): string[];
  /** The PID of the node at `address` if this handle runs it now. */
  pidOf(address: string): number | undefined;
  /** The primaries as the cluster reports them now (nodes flagged failed left out), by first slot. */
  primaries(): Promise<ClusterPrimary[]>;
  /** The running replicas of the primary at `address`, as the cluster reports them now. */
  replicasOf(address: string): Promise<string[]>;
  /** The node serving `key`'s slot now. */
  primaryFor(key: string): Promise<string>;
  /**
   * SIGKILLs a primary (the one at `address` — also given as a bare string —, else the one
   * serving `key`, else the one with the first slots); `promoted` resolves when one of its replicas is a primary, every running node
   * agrees and reports cluster_state:ok. The cluster fails over by itself (no CLUSTER FAILOVER).
   */
  killPrimary(target?: string | { address?: string; key?: string }): Promise<Failover>;
  /** SIGKILLs any node (a replica too) and waits for its exit; no failover is awaited. */
  killNode(address: string): Promise<void>;
  /**
   * Starts a killed node again on its port with its cluster config: it rejoins (a replaced
   * primary as a replica of its successor). Resolves when it is a connected replica and every
   * running node agrees and reports cluster_state:ok.
   */
  restartNode(address: string): Promise<void>;
  /** Stops every node by PID and removes the temp dir. */
  stop(): Promise<void>;
}

/** Whether every running node reports cluster_state:ok, knows the others healthy and agrees on who follows whom. */
async function clusterSettled(live: readonly string[]): Promise<{ ok: true; value: ClusterNodeView[] } | { ok: false; seen: string }> {
  const states = await Promise.all(live.map(async (a) => infoFields(await redisCommand(a, 'CLUSTER', 'INFO')).get('cluster_state')));
  const notOk = live.filter((_, i) => states[i] !== 'ok');
  if (notOk.length > 0) return { ok: false, seen: `cluster_state not ok on ${notOk.join(', ')}` };
  const views = await Promise.all(live.map(async (a) => parseClusterNodes(await redisCommand(a, 'CLUSTER', 'NODES'))));
  const shape = (view: ClusterNodeView[]) =>
    live
      .map((a) => {
        const n = view.find((v) => v.address === a);
        if (!n) return `${a} unknown`;
        const link = n.flags.includes('myself') || n.linkConnected ? '' : ' link down';
        const failing = isFailing(n) ? ` ${n.flags.join(',')}` : '';
        return `${a} ${isPrimary(n) ? `primary ${n.slots.map((s) => s.join('-')).join(',')}` : `replica of ${n.primaryId}`}${failing}${link}`;
      })
      .join('; ');
  const first = shape(views[0]!);
  for (const [i, view] of views.entries()) {
    const s = shape(view);
    if (/unknown|link down| fail|handshake|noaddr/.test(s)) return { ok: false, seen: `${live[i]} sees: ${s}` };
    if (s !== first) return { ok: false, seen: `${live[0]} sees: ${first} but ${live[i]} sees: ${s}` };
  }
  const replicas = views[0]!.filter((n) => !isPrimary(n) && live.includes(n.address));
  const roles = await Promise.all(replicas.map((n) => roleOf(n.address)));
  const unlinked = replicas.filter((_, i) => roles[i]!.role !== 'slave' || roles[i]!.link !== 'connected');
  if (unlinked.length > 0) return { ok: false, seen: `replication link not up on ${unlinked.map((n) => n.address).join(', ')}` };
  return { ok: true, value: views[0]! };
}

/**
 * Starts a Redis Cluster of `primaries` × (1 + `replicasPerPrimary`) nodes on 127.0.0.1,
 * created with `redis-cli --cluster create`, and resolves once every node reports
 * cluster_state:ok, all agree on the layout and every replica's replication link is up.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisClusterTopology> {
  const primaries = options.primaries ?? 3;
  const replicasPerPrimary = options.replicasPerPrimary ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
  if (primaries < 3)
    throw new Error(`a Redis Cluster needs at least 3 primaries (redis-cli --cluster create refuses fewer); got ${primaries}`);
  const dir = await makeTempDir('janus-redis-cluster-');
  const argsFor = async (port: number) => {
    const nodeDir = join(dir, String(port));
    await mkdir(nodeDir, { recursive: true });
    return [
      '--port',
      String(port),
      ...COMMON_ARGS,
      '--dir',
      nodeDir,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      String(nodeTimeoutMs),
      // Any replica may be promoted however long its link was down: on a busy machine a lagging one is still the best there is.
      '--cluster-replica-validity-factor',
      '0',
    ];
  };
  const count = primaries * (1 + replicasPerPrimary);
  const started = await startAll(
    Array.from({ length: count }, () => () => spawnRedisProcess({ argsFor, withBus: true })),
    dir,
  );
  const processes = new Map(started.map((p) => [p.address, p]));
  const nodes = started.map((p) => p.address);
  const live = () => nodes.filter((a) => !processes.get(a)!.gone());
  const logs = () =>
    [...processes.values()]
      .filter((p) => p.gone())
      .map((p) => `--- ${p.address} (exited) ---\n${p.log()}`)
      .join('\n');
  const settle = (what: string) =>
    waitFor(what, () => clusterSettled(live()), SETTLE_TIMEOUT_MS, 50).catch((error: Error) => {
      const exited = logs();
      throw exited ? new Error(`${error.message}\n${exited}`, { cause: error }) : error;
    });
  try {
    await runRedisCli(
      ['--cluster', 'create', ...nodes, '--cluster-replicas', String(replicasPerPrimary), '--cluster-yes'],
      SETTLE_TIMEOUT_MS,
    );
    await settle(`the new cluster (${nodes.join(', ')}) to settle`);
  } catch (error) {
    await teardown(processes.values(), dir);
    throw error;
  }

  const view = async (): Promise<ClusterNodeView[]> => {
    let last: unknown;
    for (const a of live()) {
      try {
        return parseClusterNodes(await redisCommand(a, 'CLUSTER', 'NODES'));
      } catch (error) {
        last = error;
      }
    }
    throw new Error(`no running cluster node answered CLUSTER NODES`, { cause: last });
  };
  const pidOf = (address: string) => {
    const p = processes.get(address);
    return p && !p.gone() ? p.pid : undefined;
  };
  const currentPrimaries = async () =>
    (await view())
      .filter((n) => isPrimary(n) && !n.flags.includes('fail') && n.slots.length > 0)
      .sort((a, b) => a.slots[0]![0] - b.slots[0]![0]);
  const primaryFor = async (key: string) => {
    const slot = Number(await redisCommand(live()[0]!, 'CLUSTER', 'KEYSLOT', key));
    const owner = (await currentPrimaries()).find((n) => n.slots.some(([from, to]) => from <= slot && slot <= to));
    if (!owner) throw new Error(`no primary serves slot ${slot} (key ${JSON.stringify(key)}) now`);
    return owner.address;
  };
  const killNode = async (address: string) => {
    const p = processes.get(address);
    if (!p) throw new Error(`${address} is not a node of this cluster (${nodes.join(', ')})`);
    await p.stop('SIGKILL');
  };

  return {
    nodes,
    running: live,
    pidOf,
    async primaries() {
      return (await currentPrimaries()).map((n) => ({ address: n.address, pid: pidOf(n.address), slots: n.slots }));
    },
    async replicasOf(address) {
      const all = await view();
      const primary = all.find((n) => n.address === address);
      if (!primary) throw new Error(`the cluster does not know ${address}`);
      return all.filter((n) => n.primaryId === primary.id && !isFailing(n) && pidOf(n.address) !== undefined).map((n) => n.address);
    },
    primaryFor,
    async killPrimary(which = {}) {
      const target = typeof which === 'string' ? { address: which } : which;
      const all = await view();
      const address = target.address ?? (target.key !== undefined ? await primaryFor(target.key) : (await currentPrimaries())[0]?.address);
      const primary = all.find((n) => n.address === address);
      if (!primary || !isPrimary(primary)) throw new Error(`${address} is not a primary of this cluster now`);
      const replicas = all
        .filter((n) => n.primaryId === primary.id && !isFailing(n) && pidOf(n.address) !== undefined)
        .map((n) => n.address);
      if (replicas.length === 0) throw new Error(`primary ${address} has no running replica to promote`);
      const slots = primary.slots.map((s) => s.join('-')).join(',');
      const killedAt = performance.now();
      await killNode(primary.address);
      const promoted = waitFor(
        `a replica of ${address} (${replicas.join(', ')}) to be promoted and the cluster to be ok`,
        async () => {
          const roles = await Promise.all(replicas.map((r) => roleOf(r).catch(() => ({ role: 'unreachable' }))));
          const successor = replicas.find((_, i) => roles[i]!.role === ROLE_MASTER);
          if (!successor) return { ok: false, seen: `no replica of ${address} is a primary yet` };
          const settled = await clusterSettled(live());
          if (!settled.ok) return settled;
          const ms = Math.round(performance.now() - killedAt);
          const owner = settled.value.find((n) => n.address === successor)!;
          const owns = owner.slots.map((s) => s.join('-')).join(',');
          if (owns !== slots) return { ok: false, seen: `${successor} serves ${owns}, not ${slots}` };
          return { ok: true, value: { address: successor, ms } };
        },
        SETTLE_TIMEOUT_MS,
      );
      // A caller that never awaits `promoted` must not crash the process when it rejects.
      promoted.catch(() => undefined);
      return { killed: primary.address, promoted };
    },
    killNode,
    async restartNode(address) {
      const old = processes.get(address);
      if (!old) throw new Error(`${address} is not a node of this cluster (${nodes.join(', ')})`);
      if (!old.gone()) throw new Error(`${address} is still running (pid ${old.pid}); kill it first`);
      processes.set(address, await spawnRedisProcess({ argsFor, withBus: true, port: old.port }));
      await settle(`${address} to rejoin the cluster as a replica`);
      const { role } = await roleOf(address);
      if (role !== 'slave') throw new Error(`${address} rejoined as a ${role}, not a replica`);
    },
    stop: () => teardown(processes.values(), dir),
  };
}

// ---------------------------------------------------------------------------------------------
// Sentinel

export interface RedisSentinelOptions {
  /** Replicas of the primary (default 1). */
  replicas?: number;
  /** Sentinels watching it (default 3); the quorum is a majority of them. */
  sentinels?: number;
  /** The name the sentinels monitor it under (default 'janus'). */
  name?: string;
  /**
   * down-after-milliseconds (default 2000): how long the primary may be silent before the first
   * sentinel suspects it (each further one waits 500 ms more, and a majority must agree). 1000 fails over a second sooner, but on a loaded machine a sentinel then takes
   * a freshly promoted primary for down and fails back.
   */
  downAfterMs?: number;
}

export interface RedisSentinelTopology {
  readonly name: string;
  /** The sentinels, '127.0.0.1:port'. */
  readonly sentinels: readonly string[];
  /** The data nodes this handle started (the first one was the first primary), killed or not. */
  readonly nodes: readonly string[];
  /** The PID of the data node or sentinel at `address` if this handle runs it now. */
  pidOf(address: string): number | undefined;
  /** The primary as most sentinels report it now (SENTINEL get-master-addr-by-name). */
  primary(): Promise<string>;
  /**
   * SIGKILLs the primary; `promoted` resolves when a majority of sentinels report another node
   * as the primary, that node answers ROLE as a master, and every running sentinel has
   * switched to it and sees it healthy (flags 'master' only).
   */
  killPrimary(): Promise<Failover>;
  /**
   * Starts a killed data node again on its port, as a replica of the current primary; resolves
   * when its replication link is up and a majority of sentinels see it as a healthy replica.
   */
  restartNode(address: string): Promise<void>;
  /** Stops every process by PID and removes the temp dir. */
  stop(): Promise<void>;
}

/**
 * Starts a primary with `replicas` replicas (`--replicaof`) and, once they replicate, `sentinels`
 * sentinels (`redis-server --sentinel`) monitoring it as `name`; resolves when every sentinel
 * knows the primary, every replica and every other sentinel.
 */
export async function startRedisSentinel(options: RedisSentinelOptions = {}): Promise<RedisSentinelTopology> {
  const replicaCount = options.replicas ?? 1;
  const sentinelCount = options.sentinels ?? 3;
  const name = options.name ?? 'janus';
  const downAfterMs = options.downAfterMs ?? 2000;
  const quorum = Math.floor(sentinelCount / 2) + 1;
  const dir = await makeTempDir('janus-redis-sentinel-');
  const dataArgs = (replicaOf: string | undefined) => async (port: number) => {
    const nodeDir = join(dir, String(port));
    await mkdir(nodeDir, { recursive: true });
    const [host, primaryPort] = replicaOf ? replicaOf.split(':') : [];
    return ['--port', String(port), ...COMMON_ARGS, '--dir', nodeDir, ...(replicaOf ? ['--replicaof', host!, primaryPort!] : [])];
  };
  const processes = new Map<string, RedisProcess>();
  const sentinelSet = new Set<string>();
  // What exited, and every sentinel's log: the sentinels' +sdown, +odown, +vote-for-leader… lines tell how a failover went.
  const logs = () =>
    [...processes.values()]
      .filter((p) => p.gone() || sentinelSet.has(p.address))
      .map((p) => `--- ${sentinelSet.has(p.address) ? 'sentinel ' : ''}${p.address}${p.gone() ? ' (exited)' : ''} ---\n${p.log()}`)
      .join('\n');
  const withLogs = (error: Error) => {
    const exited = logs();
    return exited ? new Error(`${error.message}\n${exited}`, { cause: error }) : error;
  };

  let sentinels: string[];
  let nodes: string[];
  try {
    const [first] = await startAll([() => spawnRedisProcess({ argsFor: dataArgs(undefined), withBus: false })], dir);
    processes.set(first!.address, first!);
    const replicas = await startAll(
      Array.from({ length: replicaCount }, () => () => spawnRedisProcess({ argsFor: dataArgs(first!.address), withBus: false })),
      dir,
    );
    for (const r of replicas) processes.set(r.address, r);
    nodes = [first!.address, ...replicas.map((r) => r.address)];
    // Sentinels learn the replicas from the primary's INFO: start them once every replica is online there.
    await waitFor(
      `${replicaCount} replica(s) to be online on ${first!.address}`,
      async () => {
        const info = infoFields(await redisCommand(first!.address, 'INFO', 'replication'));
        const online = [...info.entries()].filter(([k, v]) => /^slave\d+$/.test(k) && v.includes('state=online')).length;
        return online === replicaCount ? { ok: true, value: undefined } : { ok: false, seen: `${online} online` };
      },
      SETTLE_TIMEOUT_MS,
    );
    const sentinelArgs = (index: number) => async (port: number) => {
      const sentinelDir = join(dir, `sentinel-${port}`);
      await mkdir(sentinelDir, { recursive: true });
      const config = join(sentinelDir, 'sentinel.conf');
      const [host, primaryPort] = first!.address.split(':');
      // Sentinel rewrites this file as it learns the topology, so it lives in a writable dir of its own.
      await writeFile(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${sentinelDir}`,
          `sentinel monitor ${name} ${host} ${primaryPort} ${quorum}`,
          // Staggered, so the sentinels do not all stand for leader at once and split the vote (a retry costs 2 × failover-timeout).
          `sentinel down-after-milliseconds ${name} ${downAfterMs + index * SENTINEL_STAGGER_MS}`,
          // Sentinels that split their votes retry after twice this: kept short, as a split is likely when all of them see the primary go at once.
          `sentinel failover-timeout ${name} ${FAILOVER_TIMEOUT_MS}`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      return [config, '--sentinel', '--logfile', ''];
    };
    const started = await startAll(
      Array.from({ length: sentinelCount }, (_, i) => () => spawnRedisProcess({ argsFor: sentinelArgs(i), withBus: false })),
      dir,
    );
    for (const s of started) {
      processes.set(s.address, s);
      sentinelSet.add(s.address);
    }
    sentinels = started.map((s) => s.address);
    await waitFor(
      `every sentinel to know ${name}'s primary ${first!.address}, its ${replicaCount} replica(s) and the other ${sentinelCount - 1} sentinel(s)`,
      async () => {
        for (const s of sentinels) {
          const known = await sentinelView(s, name);
          if (known.primary !== first!.address || known.otherSentinels !== sentinelCount - 1 || known.healthyReplicas.length < replicaCount)
            return { ok: false, seen: `${s} knows ${JSON.stringify(known)}` };
        }
        return { ok: true, value: undefined };
      },
      SETTLE_TIMEOUT_MS,
      50,
    );
  } catch (error) {
    // The logs are taken before the teardown, which would show every process as exited.
    const reported = error instanceof Error ? withLogs(error) : error;
    await teardown(processes.values(), dir);
    throw reported;
  }

  const liveSentinels = () => sentinels.filter((s) => !processes.get(s)!.gone());
  /** The primary a majority of the sentinels report, or null while they disagree. */
  const agreedPrimary = async (): Promise<{ address: string | null; seen: string }> => {
    const answers = await Promise.all(
      liveSentinels().map((s) =>
        redisReply(s, ['SENTINEL', 'get-master-addr-by-name', name]).then(
          (r) => (Array.isArray(r) ? `${String(r[0])}:${String(r[1])}` : 'none'),
          () => 'unreachable',
        ),
      ),
    );
    const counts = new Map<string, number>();
    for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
    const [top] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
    const address = top && top[1] >= quorum && top[0] !== 'none' && top[0] !== 'unreachable' ? top[0] : null;
    return { address, seen: `sentinels report ${answers.join(', ')}` };
  };

  const primary = async () => {
    const { address, seen } = await agreedPrimary();
    if (!address) throw new Error(`no majority of sentinels agrees on ${name}'s primary: ${seen}`);
    return address;
  };

  return {
    name,
    sentinels,
    nodes,
    pidOf(address) {
      const p = processes.get(address);
      return p && !p.gone() ? p.pid : undefined;
    },
    primary,
    async killPrimary() {
      const { address: killed, seen } = await agreedPrimary();
      if (!killed) throw new Error(`no majority of sentinels agrees on ${name}'s primary: ${seen}`);
      const p = processes.get(killed);
      if (!p || p.gone()) throw new Error(`the sentinels report ${killed} as ${name}'s primary, but this handle does not run it`);
      const killedAt = performance.now();
      await p.stop('SIGKILL');
      const promoted = waitFor(
        `the sentinels to promote a replica of ${killed}`,
        async () => {
          const agreed = await agreedPrimary();
          if (!agreed.address || agreed.address === killed) return { ok: false, seen: agreed.seen };
          const { role } = await roleOf(agreed.address);
          if (role !== ROLE_MASTER) return { ok: false, seen: `${agreed.seen}; ${agreed.address} answers ROLE ${role}` };
          // Every sentinel must have switched and reach the new primary: one still on its old view or without a link to
          // the new one may take it for down, and right after a failover the others' votes can still count toward that.
          const views = await Promise.all(liveSentinels().map((s) => sentinelView(s, name)));
          const behind = liveSentinels().filter((_, i) => views[i]!.primary !== agreed.address || views[i]!.flags !== ROLE_MASTER);
          if (behind.length > 0) return { ok: false, seen: `${agreed.seen}; not yet switched or seeing it healthy: ${behind.join(', ')}` };
          return { ok: true, value: { address: agreed.address, ms: Math.round(performance.now() - killedAt) } };
        },
        SETTLE_TIMEOUT_MS,
      ).catch((error: Error) => {
        throw withLogs(error);
      });
      promoted.catch(() => undefined);
      return { killed, promoted };
    },
    async restartNode(address) {
      const old = processes.get(address);
      if (!old || sentinels.includes(address)) throw new Error(`${address} is not a data node of this set (${nodes.join(', ')})`);
      if (!old.gone()) throw new Error(`${address} is still running (pid ${old.pid}); kill it first`);
      const current = await primary();
      processes.set(address, await spawnRedisProcess({ argsFor: dataArgs(current), withBus: false, port: old.port }));
      await waitFor(
        `${address} to replicate ${current} and a majority of sentinels to see it healthy`,
        async () => {
          const { role, link } = await roleOf(address);
          if (role !== 'slave' || link !== 'connected') return { ok: false, seen: `${address} is ${role} ${link ?? ''}` };
          const views = await Promise.all(liveSentinels().map((s) => sentinelView(s, name)));
          const seeing = views.filter((v) => v.healthyReplicas.includes(address)).length;
          return seeing >= quorum ? { ok: true, value: undefined } : { ok: false, seen: `${seeing} sentinel(s) see it healthy` };
        },
        SETTLE_TIMEOUT_MS,
        50,
      ).catch((error: Error) => {
        throw withLogs(error);
      });
    },
    stop: () => teardown(processes.values(), dir),
  };
}

/** What one sentinel knows about the set `name`. */
async function sentinelView(
  sentinel: string,
  name: string,
): Promise<{ primary: string; flags: string; otherSentinels: number; healthyReplicas: string[] }> {
  const master = pairs(await redisReply(sentinel, ['SENTINEL', 'MASTER', name]));
  const replicas = await redisReply(sentinel, ['SENTINEL', 'REPLICAS', name]);
  const healthyReplicas = (Array.isArray(replicas) ? replicas : [])
    .map(pairs)
    .filter((r) => r.get('flags') === 'slave' && r.get('master-link-status') === 'ok')
    .map((r) => `${r.get('ip')}:${r.get('port')}`);
  return {
    primary: `${master.get('ip')}:${master.get('port')}`,
    flags: master.get('flags') ?? '',
    otherSentinels: Number(master.get('num-other-sentinels')),
    healthyReplicas,
  };
}
