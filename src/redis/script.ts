/**
 * Lua scripts by their SHA-1 (EVALSHA), with EVAL until the SHA-1 is known and whenever Redis
 * does not know the script (a fresh or restarted Redis, a new primary): its text crosses the
 * wire about once per Redis, not once per call. The command always leaves in the caller's
 * tick, so commands keep the order they were issued in (a GET stream's holder is written
 * before the client can learn the stream is open).
 */
const shas = new Map<string, string>();
const hashing = new Set<string>();

function learnSha(script: string): void {
  if (hashing.has(script)) return;
  hashing.add(script);
  void crypto.subtle.digest('SHA-1', new TextEncoder().encode(script)).then((digest) => {
    shas.set(script, Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join(''));
  });
}

/** Runs `script` by its SHA-1 with `bySha` once known, else (and on NOSCRIPT) by its text with `byText`. */
export async function runCached(
  script: string,
  bySha: (sha: string) => Promise<unknown>,
  byText: () => Promise<unknown>,
): Promise<unknown> {
  const sha = shas.get(script);
  if (sha === undefined) {
    learnSha(script);
    return byText();
  }
  try {
    return await bySha(sha);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return byText();
  }
}
