/**
 * Checks of the MCP Apps metadata (ext-apps specification 2026-01-26 §UI Resource Format,
 * §Resource Discovery). Each returns what is wrong, or undefined: the server turns that into
 * a registration error, the client into a protocol error (SEP-2133 §Security: extension
 * fields from the other side are untrusted and validated).
 */
import { APP_MIME_TYPE, CSP_KEYS, PERMISSION_KEYS, UI_SCHEME, VISIBILITIES, type AppResourceMeta } from './wire.js';

/** Unknown keys: the server refuses them (a typo would silently drop a policy); the client ignores them (a newer server). */
export type UnknownKeys = 'refuse' | 'ignore';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** §Content Requirements: "URI MUST start with `ui://` scheme", with something after it. */
export function uiUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !uri.startsWith(UI_SCHEME) || uri.length === UI_SCHEME.length) {
    return `the UI resource URI ${JSON.stringify(uri)} must start with "${UI_SCHEME}" and name a resource`;
  }
  if (/\s/.test(uri) || !URL.canParse(uri)) return `the UI resource URI "${uri}" is not a valid URI`;
  return undefined;
}

/**
 * A CSP entry must be an origin: `scheme://host[:port]`, no path, query, fragment or
 * credentials; a leading `*.` label is a wildcard subdomain (§UI Resource Format, McpUiResourceCsp).
 */
export function originProblem(entry: unknown): string | undefined {
  const bad = `${JSON.stringify(entry)} is not an origin (scheme://host[:port], e.g. "https://api.example.com" or "https://*.example.com")`;
  if (typeof entry !== 'string') return bad;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(\*\.)?([^/?#@\s*]+)$/.exec(entry);
  if (!m) return bad;
  let url: URL;
  try {
    // The wildcard label is not a hostname; a stand-in checks the rest.
    url = new URL(`${m[1]}://${m[2] ? 'wildcard.' : ''}${m[3]}`);
  } catch {
    return bad;
  }
  if (!url.hostname || url.username || url.password || url.search || url.hash || (url.pathname !== '' && url.pathname !== '/')) return bad;
  return undefined;
}

/** The resource's `_meta.ui` (UIResourceMeta): csp, permissions, domain, prefersBorder. */
export function resourceMetaProblem(meta: unknown, unknownKeys: UnknownKeys): string | undefined {
  if (!isPlainObject(meta)) return 'the UI metadata must be an object';
  const allowed = ['csp', 'permissions', 'domain', 'prefersBorder'];
  const extra = unknownKeys === 'refuse' ? Object.keys(meta).find((k) => !allowed.includes(k)) : undefined;
  if (extra !== undefined) return `unknown UI metadata "${extra}" (known: ${allowed.join(', ')})`;
  const { csp, permissions, domain, prefersBorder } = meta as AppResourceMeta;
  if (csp !== undefined) {
    const problem = cspProblem(csp, unknownKeys);
    if (problem) return problem;
  }
  if (permissions !== undefined) {
    if (!isPlainObject(permissions)) return 'permissions must be an object';
    for (const [key, value] of Object.entries(permissions)) {
      if (!(PERMISSION_KEYS as readonly string[]).includes(key)) {
        if (unknownKeys === 'refuse') return `unknown permission "${key}" (known: ${PERMISSION_KEYS.join(', ')})`;
        continue;
      }
      if (!isPlainObject(value)) return `permissions.${key} must be an object ({} asks for it)`;
    }
  }
  if (domain !== undefined && (typeof domain !== 'string' || domain.trim() === '' || /\s/.test(domain))) {
    return `domain must be a host name without spaces, not ${JSON.stringify(domain)}`;
  }
  if (prefersBorder !== undefined && typeof prefersBorder !== 'boolean') return 'prefersBorder must be a boolean';
  return undefined;
}

function cspProblem(csp: unknown, unknownKeys: UnknownKeys): string | undefined {
  if (!isPlainObject(csp)) return 'csp must be an object';
  for (const [key, list] of Object.entries(csp)) {
    if (!(CSP_KEYS as readonly string[]).includes(key)) {
      if (unknownKeys === 'refuse') return `unknown csp list "${key}" (known: ${CSP_KEYS.join(', ')})`;
      continue;
    }
    if (!Array.isArray(list)) return `csp.${key} must be an array of origins`;
    for (const entry of list) {
      const problem = originProblem(entry);
      if (problem) return `csp.${key}: ${problem}`;
    }
  }
  return undefined;
}

/** §Visibility: a non-empty set of "model" and "app". */
export function visibilityProblem(visibility: unknown): string | undefined {
  const ok =
    Array.isArray(visibility) &&
    visibility.length > 0 &&
    visibility.every((v) => (VISIBILITIES as readonly unknown[]).includes(v)) &&
    new Set(visibility).size === visibility.length;
  return ok ? undefined : `visibility must list "model" and/or "app" once each, not ${JSON.stringify(visibility)}`;
}

/**
 * Is this `text/html;profile=mcp-app`? Type, subtype and parameter names compare without
 * case and spaces around `;` are allowed (RFC 9110 §8.3.1); other parameters (charset) may follow.
 */
export function isAppMimeType(mimeType: unknown): boolean {
  if (typeof mimeType !== 'string') return false;
  const [type, ...params] = mimeType.split(';').map((p) => p.trim());
  if (type?.toLowerCase() !== APP_MIME_TYPE.split(';')[0]) return false;
  return params.some((p) => {
    const eq = p.indexOf('=');
    if (eq < 0) return false;
    const value = p.slice(eq + 1).trim();
    return p.slice(0, eq).trim().toLowerCase() === 'profile' && (value === 'mcp-app' || value === '"mcp-app"');
  });
}
