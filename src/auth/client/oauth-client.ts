/**
 * The OAuth client as the HTTP channels see it: a fetch wrapper. It adds the bearer token to
 * every request for the MCP server's origin, and on `401` (or `403 insufficient_scope`) runs
 * the authorization flow and sends the request again. Both eras and both HTTP transports go
 * through it alike. The flow itself (and oauth4webapi) is loaded on the first challenge only.
 */
import { JanusError } from '../../errors/index.js';
import { parseBearerChallenge } from './challenge.js';
import { authError } from './errors.js';
import type { AuthorizationFlow, Grant, Shared } from './flow.js';
import type { OAuthClientOptions, OAuthProvider } from './options.js';
import { InMemoryTokenStore } from './token-store.js';

type FetchLike = typeof fetch;

const DEFAULT_MAX_AUTHORIZATIONS = 3;

/**
 * One OAuth client: its registrations and token store are shared by every connection made
 * with it (pass the same instance to several `connect()` calls to reuse them).
 */
export class OAuthClient implements OAuthProvider {
  private readonly shared: Shared;

  constructor(options: OAuthClientOptions) {
    const userGrant = !options.grant || options.grant.type === 'authorization_code';
    if (userGrant && !options.redirectUri)
      throw authError('auth.redirectUri is required (where the authorization server sends the user back).');
    if (userGrant && typeof options.redirect !== 'function')
      throw authError('auth.redirect is required (what shows the authorization page to the user; headlessRedirect() for CI).');
    this.shared = { options, store: options.store ?? new InMemoryTokenStore(), registrations: new Map(), grants: new Map() };
  }

  fetchFor(serverUrl: URL, inner: FetchLike): FetchLike {
    return new AuthorizedFetch(this.shared, serverUrl, inner).fetch;
  }
}

/** The per-connection state: the grant in use, one authorization at a time, the bound on authorizations in a row. */
class AuthorizedFetch {
  private current: Grant | undefined;
  private flow: AuthorizationFlow | undefined;
  /** The authorization (or refresh) under way: concurrent requests that hit a challenge wait for it. */
  private pending: Promise<void> | undefined;
  /** Authorizations since a request last got through. */
  private inARow = 0;
  private readonly max: number;

  constructor(
    private readonly shared: Shared,
    private readonly serverUrl: URL,
    private readonly inner: FetchLike,
  ) {
    this.max = shared.options.maxAuthorizationAttempts ?? DEFAULT_MAX_AUTHORIZATIONS;
    this.current = shared.grants.get(serverUrl.href);
  }

  private get grant(): Grant | undefined {
    return this.current;
  }

  /** Shared with later connections of the same OAuthClient to this server. */
  private set grant(grant: Grant | undefined) {
    this.current = grant;
    if (grant) this.shared.grants.set(this.serverUrl.href, grant);
  }

  readonly fetch: FetchLike = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // The token is for this server only (a redirect elsewhere, another endpoint origin: no token).
    if (url.origin !== this.serverUrl.origin) return this.inner(input, init);
    let nonceRetried = false;
    for (;;) {
      await this.pending;
      if (this.grant && isExpired(this.grant)) await this.serialized(() => this.refreshExpired());
      const sent = this.grant;
      const res =
        sent?.dpop && sent.tokens.token_type === 'dpop'
          ? await (await import('./dpop-proof.js')).withProof(this.inner, input, init, sent)
          : await this.inner(input, withToken(init, sent));
      const header = res.headers.get('www-authenticate');
      const challenge = parseBearerChallenge(header) ?? parseBearerChallenge(header, 'dpop');
      // The resource server wants a DPoP nonce (RFC 9449 §9): the handle has it now, the request goes again once.
      if (res.status === 401 && sent?.dpop && !nonceRetried && challenge?.error === 'use_dpop_nonce' && res.headers.has('dpop-nonce')) {
        nonceRetried = true;
        res.body?.cancel().catch(() => {});
        continue;
      }
      const stepUp = res.status === 403 && challenge?.error === 'insufficient_scope';
      if (res.status !== 401 && !stepUp) {
        this.inARow = 0;
        return res;
      }
      res.body?.cancel().catch(() => {});
      if (this.inARow >= this.max) {
        throw authError(
          `${this.serverUrl.href} still answers HTTP ${res.status}${challenge?.error ? ` (${challenge.error})` : ''} after ${this.max} authorizations in a row; giving up. ` +
            (stepUp
              ? `It asks for scope "${challenge?.scope?.join(' ') ?? ''}", which the authorization server did not grant: check the user's or client's permissions there.`
              : 'It does not accept the tokens its authorization server issues: check that the server and the authorization server agree on the resource (audience) and issuer.'),
        );
      }
      await this.serialized(async () => {
        // Someone else got a new grant while this request was out: try that one first.
        if (this.grant !== sent) return;
        this.inARow++;
        const flow = await this.loadFlow();
        try {
          this.grant = await flow.authorize(challenge, sent, stepUp);
        } catch (e) {
          // A network failure or the redirect handler's own error: still an authorization failure, not the MCP server's.
          throw e instanceof JanusError
            ? e
            : authError(`the authorization flow for ${this.serverUrl.href} failed: ${e instanceof Error ? e.message : String(e)}`, e);
        }
      });
    }
  };

  private async loadFlow(): Promise<AuthorizationFlow> {
    if (!this.flow) {
      const { AuthorizationFlow } = await import('./flow.js');
      this.flow = new AuthorizationFlow(this.shared, this.serverUrl, this.inner);
    }
    return this.flow;
  }

  private async refreshExpired(): Promise<void> {
    const grant = this.grant;
    if (!grant || !isExpired(grant)) return;
    // When the refresh fails the expired token goes out once more; the server's 401 starts a new authorization.
    const refreshed = await (await this.loadFlow()).refresh(grant);
    if (refreshed) this.grant = refreshed;
  }

  private serialized(task: () => Promise<void>): Promise<void> {
    const run = (this.pending ?? Promise.resolve()).then(task);
    const settled = run.catch(() => {});
    this.pending = settled;
    void settled.then(() => {
      if (this.pending === settled) this.pending = undefined;
    });
    return run;
  }
}

function isExpired(grant: Grant): boolean {
  const at = grant.tokens.expires_at;
  return at !== undefined && at - 5_000 <= Date.now() && grant.tokens.refresh_token !== undefined;
}

function withToken(init: RequestInit | undefined, grant: Grant | undefined): RequestInit | undefined {
  if (!grant) return init;
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${grant.tokens.access_token}`);
  return { ...init, headers };
}
