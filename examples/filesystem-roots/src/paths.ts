/**
 * Containment: a path is served only when what it names on disk, symlinks resolved, lies inside
 * one of the roots. `..` is resolved away before the check, and `realpath` follows every
 * symlink, so neither `../../etc/passwd` nor a link inside a root that points outside gets out.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolError } from 'janus-mcp/errors';
import type { AllowedRoot } from './roots.js';

/** Whether `path` is `root` or lies below it (both real, absolute paths). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The real path of what the client asked for: an absolute path, a `file://` URI, or a path
 * relative to the first root. Throws a `ToolError` (the model reads it) when it does not exist
 * or is outside every root.
 */
export async function resolveInRoots(roots: AllowedRoot[], asked: string): Promise<string> {
  const path = asked.startsWith('file://') ? fileURLToPath(asked) : resolve(roots[0]!.path, asked);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    // Say nothing of what lies outside the roots, not even whether it exists.
    if (!roots.some((root) => isInside(root.path, path))) throw outside(asked, roots);
    throw new ToolError(`${asked} does not exist.`);
  }
  if (!roots.some((root) => isInside(root.path, real))) throw outside(asked, roots);
  return real;
}

function outside(asked: string, roots: AllowedRoot[]): ToolError {
  return new ToolError(
    `${asked} is outside the folders this client shared (${roots.map((r) => r.path).join(', ')}). ` +
      'Ask the user to add a root that contains it.',
  );
}
