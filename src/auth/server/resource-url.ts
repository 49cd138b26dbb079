/**
 * Resource identifiers (RFC 8707 §2, 2026-07-28 authorization §Canonical Server URI) and where
 * their protected resource metadata lives (RFC 9728 §3.1). Runtime-neutral.
 */

export const PRM_PREFIX = '/.well-known/oauth-protected-resource';

/** The form compared with a token's audience: lower-case scheme and host (URL does it), no fragment, no trailing slash. */
export function canonicalResource(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  url.hash = '';
  const s = url.href;
  return url.search === '' && s.endsWith('/') ? s.slice(0, -1) : s;
}

/** The metadata URL for a resource: the well-known prefix inserted before its path (RFC 9728 §3.1). */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${PRM_PREFIX}${path}`;
}

/**
 * The endpoint path a metadata request is for: `/.well-known/oauth-protected-resource/mcp`
 * asks about `/mcp`; the root form about the server's one endpoint (`''` when that is unknown).
 * Undefined when the path is no metadata path.
 */
export function describedPath(pathname: string, endpoint: string | false): string | undefined {
  if (pathname === PRM_PREFIX || pathname === `${PRM_PREFIX}/`) return endpoint === false ? '' : endpoint;
  if (!pathname.startsWith(`${PRM_PREFIX}/`)) return undefined;
  return pathname.slice(PRM_PREFIX.length);
}
