/**
 * Runs a Lua script by its SHA-1 (EVALSHA), with EVAL until the SHA-1 is known and whenever
 * Redis does not know the script (a fresh or restarted Redis): its text crosses the wire about
 * once per Redis, not once per call. The command always leaves in the caller's tick, so
 * commands keep the order they were issued in (a GET stream's holder is written before the
 * client can learn the stream is open).
 */
import type { RedisConnection } from './connect.js';
import { bounded } from './deadline.js';

const shas = new Map<string, string>();
const hashing = new Set<string>();

function learnSha(script: string): void {
  if (hashing.has(script)) return;
  hashing.add(script);
  void crypto.subtle.digest('SHA-1', new TextEncoder().encode(script)).then((digest) => {
    shas.set(script, Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join(''));
  });
}

export async function runScript(
  client: RedisConnection,
  timeoutMs: number,
  script: string,
  keys: string[],
  args: string[],
): Promise<unknown> {
  const c = client.withCommandOptions({ timeout: timeoutMs });
  const sha = shas.get(script);
  if (sha === undefined) {
    learnSha(script);
    return bounded(c.eval(script, { keys, arguments: args }), timeoutMs);
  }
  try {
    return await bounded(c.evalSha(sha, { keys, arguments: args }), timeoutMs);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return bounded(c.eval(script, { keys, arguments: args }), timeoutMs);
  }
}
