/**
 * The seam between the `Client` facade and the era in use: a legacy connection (an
 * initialized session, legacy/connection.ts) or a modern one (stateless requests,
 * modern/connection.ts), chosen once by era detection. What both are given is the
 * `ConnectionContext`: the wire, the verdict, the options and the client-wide pieces.
 */
import { JanusError } from '../protocol/errors.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { Implementation, LoggingLevel, SubscriptionFilter } from '../protocol/types.js';
import type { ResponseCache } from './cache.js';
import type { KnownServer } from './known-server.js';
import type { ClientMiddlewareStack } from './middleware.js';
import type { ConnectOptions } from './options.js';
import type { CallOptions } from './peer.js';
import type { ResultFor, ToolsPage } from './results.js';
import type { ClientWire } from './wire.js';

export interface ConnectionContext {
  readonly options: ConnectOptions;
  readonly clientInfo: Implementation;
  readonly wire: ClientWire;
  readonly server: KnownServer;
  /** The response cache (`cache: true`), fed by modern results, emptied by notifications. */
  readonly cache: ResponseCache | undefined;
  /** Aborts when the client closes: handlers asked on its behalf stop too. */
  readonly closed: AbortSignal;
  /** `client.use()` and `options.middleware`: the chain around every request sent. */
  readonly middleware: ClientMiddlewareStack;
  /** The level asked for: `options.logLevel`, then what `setLogLevel` sets. */
  logLevel: LoggingLevel | undefined;
  /** Closes the whole client (a server that chose a revision the client does not speak). */
  close(): Promise<void>;
}

export interface EraConnection {
  /** Sends any request the way the era requires and returns its (final) result. */
  request<M extends string>(method: M, params: Record<string, unknown>, options?: CallOptions): Promise<ResultFor<M>>;
  /** One page of tools (the modern HTTP wire drops some: modern/connection.ts). */
  listTools(params: { cursor?: string }): Promise<ToolsPage>;
  listen(filter: SubscriptionFilter, signal: AbortSignal | undefined): AsyncIterableIterator<JsonRpcNotification>;
  /** Hands a notification to the listen stream it is for; false when it is for none of them. */
  toStream(notification: JsonRpcNotification): boolean;
  /** After `logLevel` changed: legacy asks the server; modern sends it with every request anyway. */
  setLogLevel(level: LoggingLevel): Promise<void>;
  rootsChanged(): Promise<void>;
  /** Ends every listen stream (the client is closing). */
  endStreams(): void;
}

const notConnected = () => new JanusError('CONNECTION', 'not connected: await connect() first');

/** Before `connect()` has settled an era: every call fails with the facade getters' error. */
export const NOT_CONNECTED: EraConnection = {
  request: () => Promise.reject(notConnected()),
  listTools: () => Promise.reject(notConnected()),
  listen: () => {
    throw notConnected();
  },
  toStream: () => false,
  setLogLevel: () => Promise.reject(notConnected()),
  rootsChanged: () => Promise.reject(notConnected()),
  endStreams: () => {},
};
