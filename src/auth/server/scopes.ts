/** Scope arithmetic for the resource server: what a token grants, what it lacks. Runtime-neutral. */

/** The scopes a token's claims grant: `scope` space-separated (RFC 9068 §2.2.3), or `scp` (a list or a string). */
export function grantedScopes(claims: Readonly<Record<string, unknown>>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter((s) => s !== '');
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string' && s !== '');
  return [];
}

/** The required scopes `granted` does not cover, counting what broader scopes imply. */
export function missingScopes(
  granted: readonly string[],
  required: readonly string[],
  implied: Readonly<Record<string, readonly string[]>> | undefined,
): string[] {
  const have = new Set(granted);
  if (implied !== undefined) {
    // Follow implications transitively: admin → write → read.
    const queue = [...have];
    for (let s = queue.pop(); s !== undefined; s = queue.pop()) {
      for (const narrower of implied[s] ?? []) {
        if (!have.has(narrower)) {
          have.add(narrower);
          queue.push(narrower);
        }
      }
    }
  }
  return required.filter((s) => !have.has(s));
}

/** The union of scope lists, in first-seen order. */
export function unionScopes(...lists: ReadonlyArray<readonly string[] | undefined>): string[] {
  const out = new Set<string>();
  for (const list of lists) for (const s of list ?? []) out.add(s);
  return [...out];
}
