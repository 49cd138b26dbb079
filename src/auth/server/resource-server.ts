/**
 * The protected-server side of MCP authorization (2026-07-28 basic/authorization/,
 * 2025-11-25 basic/authorization.mdx), independent of any runtime: the protected resource
 * metadata (RFC 9728), the Bearer challenges (RFC 6750 §3), and the check of each request's
 * access token. The HTTP handler asks it before serving a request. Token verification (jose,
 * oauth4webapi) is imported on first use, so servers without `auth` never load either.
 */
import type { AuthInfo } from '../../server/index.js';
import { bearerChallenge, type ChallengeError } from './challenge.js';
import { DPOP_ALGORITHMS } from './dpop-algorithms.js';
import type { ReplayCache } from './dpop.js';
import { AuthorizationServerUnavailable, InvalidDpopProof, InvalidTokenError } from './errors.js';
import type { ResourceServerOptions } from './options.js';
import { canonicalResource, metadataUrl } from './resource-url.js';
import { missingScopes, unionScopes } from './scopes.js';
import { TokenCache, type Verified } from './token-cache.js';

/** What to answer a request: go on with `auth`, or refuse with that status and challenge. */
export type Verdict = { readonly ok: true; readonly auth: AuthInfo } | Refusal;

/** A refused request: its status, a message for the JSON-RPC error body, and the `WWW-Authenticate` challenge (none with 503). */
export interface Refusal {
  readonly ok: false;
  readonly status: 401 | 403 | 503;
  readonly message: string;
  readonly challenge?: string;
}

type Verify = (token: string, resource: string) => Promise<Verified>;

/** Defaults of `tokenCache`: how many verified tokens are kept, and how long an introspection answer is reused. */
const MAX_CACHED_TOKENS = 10_000;
const INTROSPECTION_MAX_AGE_SEC = 60;
/** How many derived resource URLs (one per Host and path) are remembered. */
const MAX_DERIVED_RESOURCES = 256;

/** What the resource server reads of an HTTP request. */
export interface TokenRequest {
  readonly authorization: string | undefined;
  /** The `DPoP` header (RFC 9449 §4.1). */
  readonly dpop: string | undefined;
  readonly method: string;
  /** The URL the request reached, without query (a DPoP proof's `htu`). */
  readonly url: string;
}

/** RFC 6750 §2.1 / RFC 9449 §7.1: the scheme (case-insensitive), one space or more, then the token68 value. */
const CREDENTIALS = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The JWK thumbprint a token is bound to (RFC 9449 §6: `cnf.jkt`), if any. */
function boundKey(auth: AuthInfo): string | undefined {
  const cnf = auth.claims.cnf;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as Record<string, unknown>).jkt : undefined;
  return typeof jkt === 'string' ? jkt : undefined;
}

type DpopModule = typeof import('./dpop.js');

export class ResourceServer {
  readonly #options: ResourceServerOptions;
  readonly #issuer: string;
  readonly #resource: string | undefined;
  readonly #report: (e: unknown) => void;
  #verify: Promise<Verify> | undefined;
  #dpop: Promise<{ readonly module: DpopModule; readonly replay: ReplayCache }> | undefined;
  /** Verified tokens (option `tokenCache`); undefined when off. */
  readonly #cache: TokenCache | undefined;
  /** The resource derived from each origin and path seen (without `resource`): a pure function of the string. */
  readonly #derived = new Map<string, string>();

  constructor(options: ResourceServerOptions, report: (e: unknown) => void) {
    const issuer = options.issuer;
    if (typeof issuer !== 'string' || canonicalResource(issuer) === undefined) {
      throw new TypeError(`auth.issuer must be the authorization server's issuer URL, not ${JSON.stringify(issuer)}`);
    }
    if (options.resource !== undefined && canonicalResource(options.resource) === undefined) {
      throw new TypeError(`auth.resource must be an absolute URL, not ${JSON.stringify(options.resource)}`);
    }
    this.#options = options;
    this.#issuer = issuer;
    this.#resource = options.resource === undefined ? undefined : canonicalResource(options.resource);
    this.#report = report;
    const cache = options.tokenCache;
    if (cache !== undefined && cache !== false) {
      for (const name of ['maxEntries', 'introspectionMaxAgeSec'] as const) {
        const value = cache[name];
        if (value !== undefined && !(typeof value === 'number' && value >= 0 && Number.isFinite(value))) {
          throw new TypeError(`auth.tokenCache.${name} must be a number of 0 or more, not ${JSON.stringify(value)}`);
        }
      }
    }
    const limit = cache === false ? 0 : (cache?.maxEntries ?? MAX_CACHED_TOKENS);
    this.#cache = limit > 0 ? new TokenCache(limit) : undefined;
  }

  /** This server's resource identifier: the configured one, else the URL the request reached (`origin` + `path`). */
  resourceFor(origin: string, path: string): string {
    if (this.#resource !== undefined) return this.#resource;
    const url = `${origin}${path}`;
    let resource = this.#derived.get(url);
    if (resource === undefined) {
      resource = canonicalResource(url) ?? url;
      // Host comes from the client: bounded, the oldest goes first.
      if (this.#derived.size >= MAX_DERIVED_RESOURCES) this.#derived.delete(this.#derived.keys().next().value!);
      this.#derived.set(url, resource);
    }
    return resource;
  }

  /** The path of the configured resource, which its metadata URL is built on (undefined: derived per request). */
  get resourcePath(): string | undefined {
    return this.#resource === undefined ? undefined : new URL(this.#resource).pathname;
  }

  /** The protected resource metadata document (RFC 9728 §2). */
  metadata(resource: string): Record<string, unknown> {
    const o = this.#options;
    const doc: Record<string, unknown> = {
      resource,
      authorization_servers: [this.#issuer],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: DPOP_ALGORITHMS,
    };
    if (o.dpop?.required === true) doc.dpop_bound_access_tokens_required = true;
    const supported = o.scopesSupported ?? o.scopes;
    if (supported !== undefined && supported.length > 0) doc.scopes_supported = supported;
    if (o.resourceName !== undefined) doc.resource_name = o.resourceName;
    if (o.resourceDocumentation !== undefined) doc.resource_documentation = o.resourceDocumentation;
    return doc;
  }

  /**
   * Checks a request's access token: 401 without one or with a bad one (or a bad DPoP proof),
   * 403 when it lacks a scope every request needs, 503 when the authorization server cannot be
   * reached; otherwise the verified identity.
   */
  async authenticate(request: TokenRequest, resource: string): Promise<Verdict> {
    const required = this.#options.scopes;
    const dpopRequired = this.#options.dpop?.required === true;
    const authorization = request.authorization?.trim();
    if (authorization === undefined || authorization === '') {
      return this.#refuse(401, resource, 'Unauthorized: this MCP server needs an OAuth access token (Authorization: Bearer …)', {
        scope: required,
        dpop: dpopRequired,
      });
    }
    const m = CREDENTIALS.exec(authorization);
    if (m === null) {
      return this.#refuse(401, resource, 'Unauthorized: the Authorization header must carry a Bearer or DPoP access token', {
        scope: required,
        error: 'invalid_request',
        description: 'expected Authorization: Bearer <access token>',
        dpop: dpopRequired,
      });
    }
    const dpop = m[1]!.toLowerCase() === 'dpop';
    const token = m[2]!;
    let auth: AuthInfo;
    try {
      // A token verified before for this resource, while that verification holds (see TokenCache); else verify it now.
      const cached = this.#cache?.get(token, resource, Date.now());
      if (cached !== undefined) auth = cached;
      else {
        const verified = await (await this.#verifier())(token, resource);
        auth = this.#accepted(verified.auth, resource);
        this.#cache?.set(token, resource, verified, Date.now());
      }
      // What depends on the request, not on the token alone, every time: the scheme, the DPoP proof; then the scopes.
      await this.#checkBinding(auth, token, dpop, request, resource);
    } catch (e) {
      if (e instanceof InvalidTokenError || e instanceof InvalidDpopProof) {
        const error = e instanceof InvalidDpopProof ? 'invalid_dpop_proof' : 'invalid_token';
        return this.#refuse(401, resource, `Unauthorized: ${e.message}`, { scope: required, error, description: e.message, dpop });
      }
      this.#report(
        e instanceof AuthorizationServerUnavailable ? e : new AuthorizationServerUnavailable('token verification failed', { cause: e }),
      );
      return { ok: false, status: 503, message: 'Service Unavailable: the access token cannot be checked now; retry later' };
    }
    const refusal = this.checkScopes(auth, required ?? [], resource, dpop);
    return refusal ?? { ok: true, auth };
  }

  /**
   * A DPoP-bound token only with its proof, never as a Bearer token (RFC 9449 §7.1-7.2); a
   * DPoP request only with a bound token; with `dpop.required`, only bound tokens.
   */
  async #checkBinding(auth: AuthInfo, token: string, dpop: boolean, request: TokenRequest, resource: string): Promise<void> {
    const jkt = boundKey(auth);
    if (!dpop) {
      if (jkt !== undefined)
        throw new InvalidTokenError('the access token is DPoP-bound: send it as Authorization: DPoP with a DPoP proof');
      if (this.#options.dpop?.required === true) throw new InvalidTokenError('this server accepts DPoP-bound access tokens only');
      return;
    }
    if (jkt === undefined) throw new InvalidTokenError('the access token is not DPoP-bound: send it as Authorization: Bearer');
    const proof = request.dpop?.trim();
    if (proof === undefined || proof === '' || proof.includes(',')) throw new InvalidDpopProof('exactly one DPoP proof header is required');
    const { module, replay } = await this.#dpopModule();
    const tolerance = this.#options.clockToleranceSec ?? 5;
    await module.verifyDpopProof({ proof, method: request.method, urls: [request.url, resource], token, jkt }, replay, {
      maxAgeSec: this.#options.dpop?.maxAgeSec ?? 300,
      clockToleranceSec: tolerance,
    });
  }

  #dpopModule(): Promise<{ readonly module: DpopModule; readonly replay: ReplayCache }> {
    this.#dpop ??= import('./dpop.js').then((module) => ({ module, replay: new module.ReplayCache() }));
    return this.#dpop;
  }

  /** A 403 `insufficient_scope` naming every scope the operation needs, when `auth` lacks one (undefined: it has them all). */
  checkScopes(auth: AuthInfo, needed: readonly string[], resource: string, dpop = false): Refusal | undefined {
    const missing = missingScopes(auth.scopes, needed, this.#options.impliedScopes);
    if (missing.length === 0) return undefined;
    // 2026-07-28 authorization §Scope Challenge Handling: every scope the operation needs, in one challenge.
    const scope = unionScopes(this.#options.scopes, needed);
    const description = `this operation needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(' ')}`;
    return this.#refuse(403, resource, `Forbidden: insufficient scope: ${description}`, {
      scope,
      error: 'insufficient_scope',
      description,
      dpop,
    });
  }

  /**
   * What every verifier's answer must still satisfy, a custom one's too: the issuer, this
   * resource among the audiences (a token for another audience is never accepted), the expiry.
   */
  #accepted(auth: AuthInfo, resource: string): AuthInfo {
    if (auth.issuer !== this.#issuer) throw new InvalidTokenError('the access token was not issued by the expected authorization server');
    if (!auth.audience.some((a) => canonicalResource(a) === resource)) {
      throw new InvalidTokenError('the access token was not issued for this resource');
    }
    const now = Date.now() / 1000;
    if (auth.expiresAt !== undefined && auth.expiresAt + (this.#options.clockToleranceSec ?? 0) <= now) {
      throw new InvalidTokenError('the access token expired');
    }
    return auth;
  }

  #refuse(
    status: 401 | 403,
    resource: string,
    message: string,
    p: { scope?: readonly string[] | undefined; error?: ChallengeError; description?: string; dpop?: boolean },
  ): Refusal {
    const { dpop, ...params } = p;
    const challenge = bearerChallenge({
      resourceMetadata: metadataUrl(resource),
      ...params,
      ...(dpop ? { dpopAlgs: DPOP_ALGORITHMS } : {}),
    });
    return { ok: false, status, message, challenge };
  }

  /** The token check in use, its library loaded on first use. */
  #verifier(): Promise<Verify> {
    this.#verify ??= this.#loadVerifier().catch((e: unknown) => {
      this.#verify = undefined;
      throw e;
    });
    return this.#verify;
  }

  async #loadVerifier(): Promise<Verify> {
    const o = this.#options;
    const issuer = this.#issuer;
    if (o.verify !== undefined) {
      // Not cached: a custom check may look at more than the token (a revocation list), and can keep its own cache.
      const custom = o.verify;
      return async (token, resource) => ({ auth: await custom(token, { resource, issuer }), until: 0 });
    }
    const { IssuerMetadata } = await import('./authorization-server.js');
    const metadata = new IssuerMetadata(issuer);
    if (o.introspection !== undefined) {
      const { IntrospectionVerifier } = await import('./introspection-verifier.js');
      const v = new IntrospectionVerifier(metadata, o.introspection);
      // RFC 7662 §4: an answer may be reused, here for at most introspectionMaxAgeSec and never past the token's exp.
      const maxAgeMs = (o.tokenCache === false ? 0 : (o.tokenCache?.introspectionMaxAgeSec ?? INTROSPECTION_MAX_AGE_SEC)) * 1000;
      const tolerance = o.clockToleranceSec ?? 0;
      return async (token) => {
        const asked = Date.now();
        const auth = await v.verify(token);
        const exp = auth.expiresAt === undefined ? Number.POSITIVE_INFINITY : (auth.expiresAt + tolerance) * 1000;
        return { auth, until: maxAgeMs > 0 ? Math.min(asked + maxAgeMs, exp) : 0 };
      };
    }
    const { JwtVerifier } = await import('./jwt-verifier.js');
    const v = new JwtVerifier(metadata, o.clockToleranceSec ?? 0);
    return (token, resource) => v.verify(token, resource);
  }
}
