/**
 * Resource subscriptions carried upstream: while some downstream client is subscribed to a URI
 * (a handshake-era `resources/subscribe`, or a 2026-07-28 `subscriptions/listen` stream's
 * `resourceSubscriptions`), the proxy holds one upstream subscription to it (`client.listen`,
 * both eras) and passes its `notifications/resources/updated` on with `server.resourceUpdated`.
 */
import type { Client } from '../client/index.js';
import type { Server, SessionHandle } from '../server/index.js';
import type { Upstream } from './upstream.js';

interface Held {
  holders: number;
  stop: AbortController;
}

export class UpstreamSubscriptions {
  private readonly held = new Map<string, Held>();
  /** Legacy sessions' subscriptions, released when the session ends without unsubscribing. */
  private readonly bySession = new Map<string, Set<string>>();

  constructor(
    private readonly server: Server,
    private readonly upstream: () => Upstream,
    private readonly hidden: (uri: string) => boolean,
    private readonly reportError: (e: unknown) => void,
  ) {}

  acquire(uri: string): void {
    if (this.hidden(uri)) return;
    const held = this.held.get(uri);
    if (held) {
      held.holders++;
      return;
    }
    const stop = new AbortController();
    this.held.set(uri, { holders: 1, stop });
    void this.watch(uri, this.upstream().client, stop.signal);
  }

  release(uri: string): void {
    const held = this.held.get(uri);
    if (!held || --held.holders > 0) return;
    held.stop.abort();
    this.held.delete(uri);
  }

  private async watch(uri: string, client: Client, signal: AbortSignal): Promise<void> {
    try {
      for await (const n of client.listen({ resourceSubscriptions: [uri] }, { signal })) {
        const params = n.params as { uri?: unknown } | undefined;
        if (n.method === 'notifications/resources/updated' && params?.uri === uri) this.server.resourceUpdated(uri);
      }
    } catch (e) {
      if (!signal.aborted) this.reportError(e);
    }
  }

  /** After a reconnection: the same URIs, held on the new client. */
  renew(client: Client): void {
    for (const [uri, held] of this.held) {
      held.stop.abort();
      held.stop = new AbortController();
      void this.watch(uri, client, held.stop.signal);
    }
  }

  /** The downstream hooks: legacy subscribe/unsubscribe and session ends, modern listen streams. */
  install(server: Server): void {
    server.use('resources/subscribe', async (ctx, next) => {
      const result = await next();
      const uri = ctx.params.uri;
      const session = ctx.sessionId;
      if (typeof uri === 'string' && session !== undefined) {
        const uris = this.bySession.get(session) ?? new Set<string>();
        this.bySession.set(session, uris);
        if (!uris.has(uri)) {
          uris.add(uri);
          this.acquire(uri);
        }
      }
      return result;
    });
    server.use('resources/unsubscribe', async (ctx, next) => {
      const result = await next();
      const uri = ctx.params.uri;
      const uris = ctx.sessionId === undefined ? undefined : this.bySession.get(ctx.sessionId);
      if (typeof uri === 'string' && uris?.delete(uri)) this.release(uri);
      return result;
    });
    server.onSession({
      onClosed: (session: SessionHandle) => {
        for (const uri of this.bySession.get(session.id) ?? []) this.release(uri);
        this.bySession.delete(session.id);
      },
    });
    server.use('subscriptions/listen', async (ctx, next) => {
      const asked = (ctx.params as { notifications?: { resourceSubscriptions?: unknown } }).notifications?.resourceSubscriptions;
      const uris = Array.isArray(asked) ? [...new Set(asked.filter((u): u is string => typeof u === 'string'))] : [];
      for (const uri of uris) this.acquire(uri);
      try {
        return await next();
      } finally {
        for (const uri of uris) this.release(uri);
      }
    });
  }

  close(): void {
    for (const held of this.held.values()) held.stop.abort();
    this.held.clear();
  }
}
