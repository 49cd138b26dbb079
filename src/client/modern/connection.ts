/**
 * The modern connection (2026-07-28): no session, every request self-contained
 * (exchange.ts), results kept by the response cache as their hints allow
 * (server/utilities/caching.mdx), `server/discover` on demand, listen streams of
 * `subscriptions/listen`. Before the verdict it is also the probe: server/discover is a
 * modern request.
 */
import type { JsonRpcNotification } from '../../protocol/jsonrpc.js';
import type { DiscoverResult, SubscriptionFilter, Tool } from '../../protocol/types.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import { readHeaderParams } from '../../protocol/x-mcp-header.js';
import type { ConnectionContext, EraConnection } from '../connection.js';
import type { ListenStream } from '../listen-stream.js';
import type { CallOptions } from '../peer.js';
import { resultFor, toolsPage, type ResultFor, type ToolsPage } from '../results.js';
import { verdictFromDiscover } from './discover.js';
import type { RequestParams } from './envelope.js';
import { ModernExchange } from './exchange.js';
import { ModernListens, type ListenSend } from './listen.js';

export class ModernConnection implements EraConnection {
  private readonly exchange: ModernExchange;
  private readonly listens: ModernListens;

  constructor(private readonly context: ConnectionContext) {
    this.exchange = new ModernExchange(context, () => this.listTools({}));
    // Each listen request (a dropped stream's re-issue too) goes through the middleware.
    const listen: ListenSend = (params, options, id) =>
      context.middleware.around('subscriptions/listen', params, options.signal, (p) =>
        this.exchange.send('subscriptions/listen', p, options, undefined, id),
      );
    this.listens = new ModernListens(listen, () => context.wire.newId(), context.options);
  }

  /** A request past the cache (the probe), through the middleware: see `ModernExchange.send`. */
  async send<M extends string>(method: M, params: RequestParams, options?: CallOptions, version?: ProtocolVersion): Promise<ResultFor<M>> {
    const result = await this.context.middleware.around(method, params, options?.signal, (p) =>
      this.exchange.send(method, p, options, version),
    );
    return resultFor(method, result);
  }

  /**
   * One logical request: the middleware (when there is any) around the cache and the
   * exchange, so that a cached answer goes through the same chain as a fresh one.
   */
  request<M extends string>(method: M, params: RequestParams, options: CallOptions = {}): Promise<ResultFor<M>> {
    const { middleware } = this.context;
    const chain = middleware.chainFor(method);
    if (chain.length === 0) return this.fetch(method, params, options);
    return middleware.run(chain, method, params, options.signal, (p) => this.fetch(method, p, options));
  }

  private async fetch<M extends string>(method: M, params: RequestParams, options: CallOptions): Promise<ResultFor<M>> {
    const { cache } = this.context;
    const cached = cache?.get(method, params);
    if (cached) return resultFor(method, cached);
    const result = await this.exchange.send(method, params, options);
    cache?.put(method, params, result);
    return resultFor(method, result);
  }

  /** On the HTTP wire, tools with invalid x-mcp-header annotations are dropped (tools.mdx §x-mcp-header). */
  async listTools(params: { cursor?: string }): Promise<ToolsPage> {
    const result = await this.request('tools/list', params);
    const tools: Tool[] = [];
    for (const tool of result.tools ?? []) {
      const headers = readHeaderParams(tool.inputSchema);
      if (!headers.ok) {
        if (this.context.wire.kind === 'http') {
          (this.context.options.onWarning ?? console.warn)(`dropping tool ${tool.name}: ${headers.reason}`);
          continue;
        }
      } else {
        this.exchange.toolHeaders.set(tool.name, headers.params);
      }
      tools.push(tool);
    }
    return toolsPage(tools, result.nextCursor);
  }

  /** `server/discover` (never cached): the verdict's capabilities and instructions, refreshed. */
  async discover(): Promise<DiscoverResult> {
    const { server } = this.context;
    const result = await this.send('server/discover', {});
    // The version now: a -32022 on the way may have changed it.
    server.settle(verdictFromDiscover(server.known.version, result));
    return result;
  }

  listen(filter: SubscriptionFilter, signal: AbortSignal | undefined): ListenStream {
    return this.listens.open(filter, signal);
  }

  toStream(n: JsonRpcNotification): boolean {
    return this.listens.toStream(n);
  }

  /** The level travels in every request's `_meta` (basic/index.mdx §_meta): nothing to send. */
  async setLogLevel(): Promise<void> {}

  /** Roots are asked for per request (input_required): there is nothing to tell. */
  async rootsChanged(): Promise<void> {}

  endStreams(): void {
    this.listens.endAll();
  }
}
