/**
 * A sharded Redis Cluster: node-redis's cluster client routes each command to the primary of
 * its keys' slot and follows the cluster through resharding and failover. Publish/subscribe
 * is sharded (SPUBLISH, SSUBSCRIBE; Redis 7 and later, Valkey): a channel lives on the shard
 * of its slot, so fan-out traffic is not copied to every node as classic PUBLISH is.
 */
import { createCluster } from 'redis';
import { redactUrl } from '../connect.js';
import { CommandLink, connectWithin, type Listener } from './commands.js';

export interface ClusterLinkOptions {
  /** Nodes to discover the cluster from, as URLs (any one reachable is enough). */
  nodes: readonly string[];
  username?: string;
  password?: string;
  connectTimeoutMs: number;
  failoverWaitMs: number;
  onError: (error: Error) => void;
}

/** How soon after a lost node connection the cluster's slots are read again. */
const TOPOLOGY_REFRESH_MS = 500;
/** Longest wait between two reconnection attempts to one node. */
const MAX_RECONNECT_DELAY_MS = 1000;

function createClusterClient(options: ClusterLinkOptions) {
  return createCluster({
    rootNodes: options.nodes.map((url) => ({ url })),
    // Re-read the slots half a second after a node's connection drops (node-redis waits 5 s by
    // default): the commands waiting out a failover find the promoted replica that much sooner.
    topologyRefreshOnReconnectionAttemptStrategy: TOPOLOGY_REFRESH_MS,
    defaults: {
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
      // While a node is away, its commands fail at once and failover.ts decides whether to wait.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: options.connectTimeoutMs,
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS),
      },
    },
  });
}

type ClusterClient = ReturnType<typeof createClusterClient>;

export class ClusterLink extends CommandLink {
  readonly publishCommand = 'SPUBLISH';
  readonly #client: ClusterClient;
  #closing: Promise<void> | undefined;

  private constructor(client: ClusterClient, where: string, failoverWaitMs: number) {
    super(where, (timeout) => client.withCommandOptions({ timeout }), failoverWaitMs);
    this.#client = client;
  }

  /** Discovers the cluster from its nodes, or rejects within `connectTimeoutMs` naming them. */
  static async connect(options: ClusterLinkOptions): Promise<ClusterLink> {
    const where = `Redis Cluster ${options.nodes.map(redactUrl).join(', ')}`;
    const client = createClusterClient(options);
    await connectWithin(client, {
      where,
      timeoutMs: options.connectTimeoutMs,
      readyEvent: 'node-ready',
      check: 'check that the nodes run with cluster-enabled yes, their hosts and ports, and the credentials',
      onError: options.onError,
      drop: () => client.destroy(),
    });
    return new ClusterLink(client, where, options.failoverWaitMs);
  }

  get listening(): boolean {
    return this.#client.isReady;
  }

  override async del(keys: string[], timeoutMs: number): Promise<void> {
    // Keys of different slots cannot go in one DEL on a cluster: one each, routed by its own slot.
    await Promise.all(keys.map((key) => this.run(timeoutMs, (c) => c.del(key))));
  }

  async publish(channel: string, message: string, timeoutMs: number): Promise<void> {
    await this.run(timeoutMs, () => this.#client.withCommandOptions({ timeout: timeoutMs }).sPublish(channel, message));
  }

  async subscribe(channels: readonly string[], listener: Listener): Promise<void> {
    // One SSUBSCRIBE per channel: the channels of one call must share a slot.
    await Promise.all(channels.map((channel) => this.#client.sSubscribe(channel, listener)));
  }

  async unsubscribe(channels: readonly string[], listener: Listener): Promise<void> {
    await Promise.all(channels.map((channel) => this.#client.sUnsubscribe(channel, listener)));
  }

  close(): Promise<void> {
    return (this.#closing ??= this.#client.isOpen ? this.#client.close() : Promise.resolve());
  }
}
