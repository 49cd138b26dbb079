/**
 * OAuth protection of the endpoint (option `auth`): the HTTP half of the resource server in
 * src/auth/server. It serves the protected resource metadata at the well-known paths (RFC 9728
 * §3), answers requests without a good token with 401 and a Bearer challenge, refuses what the
 * token's scopes do not cover with 403, and hands the verified identity on (`ex.auth`, then
 * `Inbound.auth` = `ctx.auth`). Runtime-neutral.
 */
import { describedPath, ResourceServer, type Refusal } from '../../auth/server/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { RequestId } from '../../protocol/jsonrpc.js';
import type { AuthInfo } from '../../server/index.js';
import type { ServerCore } from '../../spi/index.js';
import type { HeaderMap, HttpExchange } from './exchange.js';
import { guardHost } from './guards.js';
import type { ResolvedOptions } from './options.js';
import { replyEmpty, replyError, replyJson } from './status.js';

const METADATA_HEADERS = {
  'access-control-allow-origin': '*',
  'cache-control': 'max-age=300',
};
const PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-max-age': '86400',
};

/** The principal MRTR states bind to: the token's subject, else its client. */
export function principalOf(auth: AuthInfo | undefined): string | undefined {
  return auth === undefined ? undefined : (auth.subject ?? auth.clientId);
}

export class Protection {
  readonly #rs: ResourceServer;
  readonly #core: ServerCore;
  readonly #options: ResolvedOptions;

  constructor(core: ServerCore, options: ResolvedOptions) {
    this.#rs = new ResourceServer(options.auth!, (e) => core.reportError(e));
    this.#core = core;
    this.#options = options;
  }

  /** The endpoint path a metadata request is about, or undefined when `pathname` is no metadata path of this endpoint. */
  #described(pathname: string): string | undefined {
    const path = describedPath(pathname, this.#options.path);
    if (path === undefined) return undefined;
    const own = this.#options.path;
    // With a fixed endpoint only its own metadata (and the configured resource's path, when a proxy rewrites it).
    if (own === false || path === own || path === this.#rs.resourcePath || path === '') return path;
    return undefined;
  }

  /** Whether the handler must serve this path for the metadata. */
  servesMetadata(pathname: string): boolean {
    return this.#described(pathname) !== undefined;
  }

  /** GET (and the CORS preflight) of the protected resource metadata: any web page may read it. */
  metadata(ex: HttpExchange): void {
    if (guardHost(ex, this.#options)) return;
    if (ex.method === 'OPTIONS') {
      replyEmpty(ex, 204, PREFLIGHT_HEADERS);
      return;
    }
    if (ex.method !== 'GET') {
      replyError(ex, 405, 'Method Not Allowed', ErrorCode.InvalidRequest, null, { allow: 'GET, OPTIONS' });
      return;
    }
    const path = this.#described(ex.pathname) ?? '';
    replyJson(ex, 200, this.#rs.metadata(this.#resource(ex, path)), METADATA_HEADERS);
  }

  /** This endpoint's resource URL as the request reached it (or the configured one). */
  #resource(ex: HttpExchange, path: string): string {
    return this.#rs.resourceFor(`${ex.secure ? 'https' : 'http'}://${(ex.header('host') ?? 'localhost').toLowerCase()}`, path);
  }

  /** Checks the request's access token; answers (401, 403, 503) and returns false when it does not pass. */
  async admit(ex: HttpExchange): Promise<boolean> {
    const origin = `${ex.secure ? 'https' : 'http'}://${(ex.header('host') ?? 'localhost').toLowerCase()}`;
    const request = {
      authorization: ex.header('authorization'),
      dpop: ex.header('dpop'),
      method: ex.method,
      url: `${origin}${ex.publicPathname}`,
    };
    const verdict = await this.#rs.authenticate(request, this.#rs.resourceFor(origin, ex.publicPathname));
    if (verdict.ok) {
      ex.auth = verdict.auth;
      return true;
    }
    refuse(ex, verdict, null);
    return false;
  }

  /**
   * The scopes the payload's requests need for what they target (a tool's, prompt's or
   * resource's `scopes`): 403 `insufficient_scope` naming all of them when the token lacks one.
   */
  refusesScopes(ex: HttpExchange, payload: unknown): boolean {
    const auth = ex.auth;
    if (auth === undefined || this.#core.requiredScopes === undefined) return false;
    const needed = new Set<string>();
    let id: RequestId | null = null;
    for (const m of Array.isArray(payload) ? payload : [payload]) {
      if (typeof m !== 'object' || m === null || typeof m.method !== 'string') continue;
      const scopes = this.#core.requiredScopes(m.method, m.params);
      if (scopes === undefined) continue;
      for (const s of scopes) needed.add(s);
      if (id === null && (typeof m.id === 'string' || typeof m.id === 'number')) id = m.id;
    }
    if (needed.size === 0) return false;
    const dpop = /^dpop\s/i.test(ex.header('authorization')?.trim() ?? '');
    const verdict = this.#rs.checkScopes(auth, [...needed], this.#resource(ex, ex.publicPathname), dpop);
    if (verdict === undefined) return false;
    refuse(ex, verdict, Array.isArray(payload) ? null : id);
    return true;
  }
}

function refuse(ex: HttpExchange, verdict: Refusal, id: RequestId | null): void {
  const headers: HeaderMap = verdict.challenge === undefined ? { 'retry-after': '5' } : { 'www-authenticate': verdict.challenge };
  replyError(ex, verdict.status, verdict.message, ErrorCode.InvalidRequest, id, headers);
}
