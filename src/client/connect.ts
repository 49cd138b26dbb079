/** `connect(target, options)`: make the channel for a target, then detect the era. */
import { JanusError } from '../protocol/errors.js';
import type { Transport } from '../transports/transport.js';
import type { ClientChannel } from './channel.js';
import { MessageChannel } from './channels/message.js';
import { Client } from './client.js';
import type { ConnectOptions, SpawnOptions, Target } from './options.js';
import type { OAuthClientOptions } from '../auth/client/index.js';

function isChannel(t: unknown): t is ClientChannel {
  return typeof t === 'object' && t !== null && 'request' in t && 'start' in t && 'kind' in t;
}

function isTransport(t: unknown): t is Transport {
  return typeof t === 'object' && t !== null && 'start' in t && 'send' in t && 'close' in t;
}

function isSpawnOptions(t: unknown): t is SpawnOptions {
  return typeof t === 'object' && t !== null && 'command' in t && typeof t.command === 'string';
}

function isHttpUrl(target: Target): boolean {
  return target instanceof URL || (typeof target === 'string' && /^https?:\/\//i.test(target));
}

export async function channelFor(target: Target, options: ConnectOptions): Promise<ClientChannel> {
  if (isHttpUrl(target)) {
    const { HttpChannel } = await import('./channels/http.js');
    const url = new URL(String(target));
    return new HttpChannel(url, {
      headers: options.headers,
      fetch: await authorizedFetch(url, options),
      maxMessageBytes: options.maxMessageBytes,
    });
  }
  if (typeof target === 'string') {
    // A command line: split on whitespace (quote-free); pass { command, args } for anything subtler.
    const [command, ...args] = target.trim().split(/\s+/);
    if (!command) throw new JanusError('CONNECTION', 'empty command');
    return spawn({ command, args }, options);
  }
  if (isChannel(target)) return target;
  if (isTransport(target)) return new MessageChannel(target, 'memory');
  if (isSpawnOptions(target)) return spawn(target, options);
  throw new JanusError('CONNECTION', 'connect() needs a URL, a command or a transport');
}

/** The channel's fetch: with `auth`, wrapped by the OAuth client (loaded only then). */
async function authorizedFetch(url: URL, options: ConnectOptions): Promise<typeof fetch | undefined> {
  const { auth } = options;
  if (!auth) return options.fetch;
  const inner = options.fetch ?? ((input, init) => fetch(input, init));
  if ('fetchFor' in auth && typeof auth.fetchFor === 'function') return auth.fetchFor(url, inner);
  const { OAuthClient } = await import('../auth/client/index.js');
  return new OAuthClient(auth as OAuthClientOptions).fetchFor(url, inner);
}

/** Loaded on demand: `node:child_process` stays out of HTTP-only and non-Node programs. */
async function spawn(target: SpawnOptions, options: ConnectOptions): Promise<ClientChannel> {
  const { spawnChannel } = await import('./channels/spawn.js');
  return spawnChannel(target, { maxMessageBytes: options.maxMessageBytes }).channel;
}

/**
 * Connects to an MCP server of any revision: a URL (Streamable HTTP, falling back to the
 * deprecated HTTP+SSE), a command to spawn (stdio), or a transport. Detects the era unless
 * `protocolVersion` or `era` is given.
 */
export async function connect(target: Target, options: ConnectOptions = {}): Promise<Client> {
  // One authorized fetch for the connection, so that the HTTP+SSE fallback shares its tokens.
  if (options.auth && isHttpUrl(target))
    options = { ...options, fetch: await authorizedFetch(new URL(String(target)), options), auth: undefined };
  const client = new Client(await channelFor(target, options), options);
  try {
    return await client.connect();
  } catch (e) {
    await client.close().catch(() => {});
    throw e;
  }
}
