/**
 * A module resolve hook (node:module `register`) standing in for a project whose `zod` is an
 * older Zod: every `zod` and `zod/…` specifier, the user's and janus-mcp's alike, resolves
 * to the package named by JANUS_TEST_ZOD (an alias such as `zod-4.0`).
 */
type Next = (specifier: string, context: unknown) => Promise<unknown>;

export async function resolve(specifier: string, context: unknown, next: Next): Promise<unknown> {
  const target = process.env.JANUS_TEST_ZOD;
  const m = /^zod(\/.*)?$/.exec(specifier);
  return next(target && m ? `${target}${m[1] ?? ''}` : specifier, context);
}
