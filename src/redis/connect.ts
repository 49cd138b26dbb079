/**
 * One connection to Redis as the cluster needs it: fails fast at start (no retry loop left
 * behind a rejection, so the process can exit), reconnects by itself once it has been up, and
 * never lets a dropped connection crash the process (an 'error' event without a listener
 * throws).
 */
import { createClient } from 'redis';
import { JanusError } from '../errors/index.js';

/** A node-redis client as `connectRedis` configures it. */
export type RedisConnection = ReturnType<typeof createConnection>;

export interface ConnectOptions {
  url: string;
  connectTimeoutMs: number;
  /** What this connection is for, in error reports ("command", "subscriber"). */
  role: string;
  /** Reports a connection lost while running (once per outage). */
  onError: (error: Error) => void;
}

/** Longest wait between two reconnection attempts while running. */
const MAX_RECONNECT_DELAY_MS = 2000;

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

function createConnection(options: ConnectOptions, up: () => boolean) {
  return createClient({
    url: options.url,
    // While Redis is away, commands fail at once instead of waiting in a queue for it.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: options.connectTimeoutMs,
      // At start, the first failure is the answer; once up, retry with a capped backoff.
      reconnectStrategy: (retries: number) => (up() ? Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) : false),
    },
  });
}

/** Connects, or rejects within `connectTimeoutMs` with a `JanusError` ('CONNECTION') naming the URL. */
export async function connectRedis(options: ConnectOptions): Promise<RedisConnection> {
  const where = redactUrl(options.url);
  let up = false;
  let lost = false;
  const client = createConnection(options, () => up);
  client.on('error', (error: unknown) => {
    if (!up || lost) return;
    lost = true;
    options.onError(new JanusError('CONNECTION', `Redis ${options.role} connection to ${where} lost; reconnecting`, { cause: error }));
  });
  client.on('ready', () => {
    lost = false;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${options.connectTimeoutMs} ms`)), options.connectTimeoutMs);
  });
  try {
    await Promise.race([client.connect(), deadline]);
    up = true;
    return client;
  } catch (error) {
    if (client.isOpen) client.destroy();
    const why = error instanceof Error ? error.message : String(error);
    throw new JanusError(
      'CONNECTION',
      `Cannot reach Redis at ${where} (${why}): check that redis-server is running there, the host and port, and the credentials in the URL`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}

/** Closes a connection: waits for pending replies while it is up, drops it otherwise. */
export async function closeRedis(client: RedisConnection): Promise<void> {
  if (!client.isOpen) return;
  if (client.isReady) await client.close();
  else client.destroy();
}
