/**
 * The client's wire: the channel and the JSON-RPC peer over it. Everything above sends
 * through here and never holds the channel itself, so that era detection can swap it once
 * (Streamable HTTP → the 2024-11-05 HTTP+SSE fallback, 2025-11-25 transports.mdx §Backwards
 * Compatibility) under everyone's feet.
 */
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { LegacyVersion } from '../protocol/versions.js';
import type { ClientChannel, SendOptions } from './channel.js';
import { ClientPeer, type CallOptions, type PeerHooks, type PeerSettings } from './peer.js';

export class ClientWire {
  private peer: ClientPeer;
  private readonly activity = new Set<() => void>();
  private readonly closeListeners = new Set<(error?: Error) => void>();
  /** The channel being replaced (era fallback): its close is not the connection's end. */
  private swapping = false;

  constructor(
    private channel: ClientChannel,
    private readonly hooks: PeerHooks,
    private readonly settings: PeerSettings,
  ) {
    this.peer = new ClientPeer(channel, hooks, settings);
  }

  get kind(): ClientChannel['kind'] {
    return this.channel.kind;
  }

  /** The channel's URL when it has one (the HTTP channels): where the HTTP+SSE fallback connects. */
  get url(): URL | undefined {
    const channel = this.channel;
    return 'url' in channel && channel.url instanceof URL ? channel.url : undefined;
  }

  /** The legacy Streamable HTTP session id, when the channel has one. */
  get sessionId(): string | undefined {
    const channel = this.channel;
    return 'sessionId' in channel && typeof channel.sessionId === 'string' ? channel.sessionId : undefined;
  }

  async start(): Promise<void> {
    await this.channel.start({
      onMessage: (m) => this.peer.receive(m),
      // Calls in flight fail through the channel and listen streams re-issue on their own; the listeners hear of it.
      onClose: (error) => {
        if (this.swapping) return;
        for (const l of this.closeListeners) l(error);
      },
      onActivity: () => {
        for (const l of this.activity) l();
      },
      onWarning: (message) => this.hooks.onWarning(message),
    });
  }

  /** Replaces the channel (era fallback): the old one is closed, the new one started. */
  async swap(channel: ClientChannel): Promise<void> {
    this.swapping = true;
    await this.channel
      .close()
      .catch(() => {})
      .finally(() => (this.swapping = false));
    this.channel = channel;
    this.peer = new ClientPeer(channel, this.hooks, this.settings);
    await this.start();
  }

  /** Calls `listener` when the channel ends (with the reason it gives); returns its remover. */
  onClose(listener: (error?: Error) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Calls `listener` on every message from the server, responses included (message channels: stdio, in-memory); returns its remover. */
  onActivity(listener: () => void): () => void {
    this.activity.add(listener);
    return () => this.activity.delete(listener);
  }

  /** A request, resolving with its raw response (an error response too): see `ClientPeer.call`. */
  call(method: string, params: Record<string, unknown>, options?: CallOptions, send?: SendOptions, id?: number): Promise<JsonRpcResponse> {
    return this.peer.call(method, params, options, send, id);
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.peer.notify(method, params);
  }

  newId(): number {
    return this.peer.newId();
  }

  /** Legacy HTTP: the negotiated version, for the MCP-Protocol-Version header. */
  setLegacyVersion(version: LegacyVersion): void {
    this.channel.setLegacyVersion?.(version);
  }

  /** Legacy HTTP: the standalone GET stream, where the server offers one. */
  openEventStream(): void {
    this.channel.openEventStream?.();
  }

  close(): Promise<void> {
    return this.channel.close();
  }
}
