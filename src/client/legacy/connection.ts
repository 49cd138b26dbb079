/**
 * The legacy connection (2024-11-05 … 2025-11-25): an initialized session. Requests go as
 * plain JSON-RPC; a Streamable HTTP session the server forgot (404) is replaced once and
 * the request retried (transports.mdx §Session Management); the log level is set with
 * `logging/setLevel`; listen is emulated with `resources/subscribe`.
 */
import type { JsonRpcNotification } from '../../protocol/jsonrpc.js';
import type { LoggingLevel, SubscriptionFilter } from '../../protocol/types.js';
import { LATEST_LEGACY_VERSION, isLegacyVersion } from '../../protocol/versions.js';
import { unwrap } from '../../jsonrpc/envelope.js';
import { ChannelError } from '../channel.js';
import type { ConnectionContext, EraConnection } from '../connection.js';
import type { ListenStream } from '../listen-stream.js';
import type { CallOptions } from '../peer.js';
import { resultFor, toolsPage, type ResultFor, type ToolsPage } from '../results.js';
import { handshake } from './handshake.js';
import { LegacyListens } from './listen.js';

export class LegacyConnection implements EraConnection {
  private readonly listens: LegacyListens;
  /** Bumped when an expired session is replaced. */
  private sessionGeneration = 0;
  private renewing: Promise<void> | undefined;

  constructor(private readonly context: ConnectionContext) {
    this.listens = new LegacyListens((method, params) => this.request(method, params), context.options);
  }

  /** Right after the handshake: the log level the options ask for. */
  async start(): Promise<void> {
    const level = this.context.logLevel;
    if (level) await this.request('logging/setLevel', { level });
  }

  /** One logical request: through the client's middleware (when there is any) around `send`. */
  request<M extends string>(method: M, params: Record<string, unknown>, options: CallOptions = {}): Promise<ResultFor<M>> {
    const { middleware } = this.context;
    const chain = middleware.chainFor(method);
    if (chain.length === 0) return this.send(method, params, options);
    return middleware.run(chain, method, params, options.signal, (p) => this.send(method, p, options));
  }

  private async send<M extends string>(method: M, params: Record<string, unknown>, options: CallOptions): Promise<ResultFor<M>> {
    const generation = this.sessionGeneration;
    try {
      return await this.call(method, params, options);
    } catch (e) {
      // Streamable HTTP: 404 for our session id means it expired; start a new one and retry once.
      if (!(e instanceof ChannelError && e.status === 404 && this.context.wire.kind === 'http')) throw e;
      await this.renewSession(generation);
      return this.call(method, params, options);
    }
  }

  private async call<M extends string>(method: M, params: Record<string, unknown>, options: CallOptions): Promise<ResultFor<M>> {
    return resultFor(method, unwrap(await this.context.wire.call(method, params, options)));
  }

  /**
   * One new session for every call that found the old one gone (calls racing on the same
   * expiry share it), set up as the first was: log level, resource subscriptions.
   */
  private renewSession(generation: number): Promise<void> {
    if (generation !== this.sessionGeneration) return Promise.resolve(); // already renewed
    this.renewing ??= (async () => {
      try {
        const { version } = this.context.server.known;
        await handshake(this.context, isLegacyVersion(version) ? version : LATEST_LEGACY_VERSION);
        this.sessionGeneration++;
        const level = this.context.logLevel;
        // Not `request`: a 404 here must not wait for the renewal it is part of.
        if (level)
          await this.context.middleware.around('logging/setLevel', { level }, undefined, (p) => this.call('logging/setLevel', p, {}));
        await this.listens.resubscribe();
      } finally {
        this.renewing = undefined;
      }
    })();
    return this.renewing;
  }

  async listTools(params: { cursor?: string }): Promise<ToolsPage> {
    const result = await this.request('tools/list', params);
    return toolsPage(result.tools ?? [], result.nextCursor);
  }

  listen(filter: SubscriptionFilter, signal: AbortSignal | undefined): ListenStream {
    return this.listens.open(filter, signal);
  }

  toStream(n: JsonRpcNotification): boolean {
    return this.listens.toStream(n);
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    await this.request('logging/setLevel', { level });
  }

  /** roots.mdx §Root List Changes: the server lists the roots again when told. */
  async rootsChanged(): Promise<void> {
    await this.context.wire.notify('notifications/roots/list_changed');
  }

  endStreams(): void {
    this.listens.endAll();
  }
}
