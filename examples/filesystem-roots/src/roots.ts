/**
 * Which folders a request may touch: the client's roots (client/roots.mdx), as real paths.
 *
 * - On a 2025 session (handshake era) the server asks once with `roots/list` and keeps the
 *   answer for the session; when the client says its roots changed
 *   (`notifications/roots/list_changed`) the list is asked for again, and requests that come
 *   after the notification wait for the new answer.
 * - On 2026-07-28 there are no sessions: `ctx.roots()` asks within the call itself (an
 *   `input_required` round that the client answers with its roots of the moment), so every
 *   call sees the current roots.
 */
import { realpath } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ToolError } from 'janus-mcp/errors';
import type { RequestContext, SessionHandle } from 'janus-mcp/server';

export interface AllowedRoot {
  /** The root's real path: symlinks resolved, so that containment is judged on what the disk holds. */
  path: string;
  name: string | undefined;
}

interface Root {
  uri: string;
  name?: string;
}

/** The roots of each 2025 session, as the latest answer to `roots/list` (a promise while it is asked for). */
const bySession = new WeakMap<SessionHandle, Promise<Root[]>>();

function ask(session: SessionHandle, asking: () => Promise<Root[]>): Promise<Root[]> {
  const roots = asking();
  bySession.set(session, roots);
  // A failed answer is not kept: the next request asks again.
  roots.catch(() => {
    if (bySession.get(session) === roots) bySession.delete(session);
  });
  return roots;
}

/** The session hook that keeps a session's roots fresh. */
export function refreshRootsOnChange(session: SessionHandle): void {
  ask(session, () => session.roots());
}

/** The roots of this request's client, as real folders. Roots that are not `file://` URIs, or not folders on this machine, are left out. */
export async function allowedRoots(ctx: RequestContext): Promise<AllowedRoot[]> {
  if (!ctx.client.capabilities.roots)
    throw new ToolError(
      'This client shares no roots, so no folder is open to this server. Use a client that declares the roots capability.',
    );
  const session = ctx.session;
  const roots = session === undefined ? await ctx.roots() : await (bySession.get(session) ?? ask(session, () => ctx.roots()));
  const allowed: AllowedRoot[] = [];
  for (const root of roots) {
    if (!root.uri.startsWith('file://')) continue;
    try {
      allowed.push({ path: await realpath(fileURLToPath(root.uri)), name: root.name });
    } catch {
      // A root that does not exist (yet) holds nothing to read.
    }
  }
  if (allowed.length === 0)
    throw new ToolError(`None of the client's roots is a folder on this machine (${roots.map((r) => r.uri).join(', ') || 'no roots'}).`);
  return allowed;
}
