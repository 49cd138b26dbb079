/**
 * Getting a token for an MCP server after it refused a request: discovery, then a stored
 * token or a refresh where they serve, else registration and the authorization code grant.
 * Loaded on the first challenge only (it brings oauth4webapi).
 */
import * as oauth from 'oauth4webapi';
import { authorizationCodeGrant, refreshGrant } from './authorization-code.js';
import type { BearerChallenge } from './challenge.js';
import { defaultEndpoints, discoverAuthorizationServer, discoverResourceMetadata } from './discovery.js';
import { authError } from './errors.js';
import { oauthHttp, type OAuthHttp } from './http.js';
import type { OAuthClientOptions } from './options.js';
import { machineGrant } from './machine-grants.js';
import { obtainClient } from './registration.js';
import { tokenStoreKey, type RegisteredClient, type StoredTokens, type TokenStore } from './token-store.js';

/** What a connection authorizes with: the token and everything needed to refresh or replace it. */
export interface Grant {
  key: string;
  issuer: string;
  as: oauth.AuthorizationServer;
  resource: string;
  client: RegisteredClient;
  tokens: StoredTokens;
  /** The DPoP handle the tokens are bound to (when DPoP is on): proofs for the MCP server's requests. */
  dpop?: oauth.DPoPHandle;
}

export interface Shared {
  readonly options: OAuthClientOptions;
  readonly store: TokenStore;
  /** Clients registered by this OAuthClient, per issuer (reused across MCP servers of the same authorization server). */
  readonly registrations: Map<string, RegisteredClient>;
  /** The grant each MCP server (by URL) was last used with: a new connection starts with it instead of a 401. */
  readonly grants: Map<string, Grant>;
  /** The DPoP key pair's handle (one per OAuthClient), made on first use. */
  dpop?: Promise<oauth.DPoPHandle>;
}

/** Expired, or about to be (a request sent now would arrive with a dead token). */
export function expired(tokens: StoredTokens, now = Date.now()): boolean {
  return tokens.expires_at !== undefined && tokens.expires_at - 5_000 <= now;
}

function toStored(response: oauth.TokenEndpointResponse, scopes: string[], previous?: StoredTokens): StoredTokens {
  return {
    access_token: response.access_token,
    token_type: response.token_type,
    // A refresh response without a new refresh token leaves the old one valid (RFC 6749 §6).
    refresh_token: response.refresh_token ?? previous?.refresh_token,
    expires_at: typeof response.expires_in === 'number' ? Date.now() + response.expires_in * 1000 : undefined,
    scopes,
  };
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

export class AuthorizationFlow {
  private readonly http: OAuthHttp;

  constructor(
    private readonly shared: Shared,
    private readonly serverUrl: URL,
    inner: typeof fetch,
  ) {
    this.http = oauthHttp(shared.options.fetch ?? inner, shared.options.allowInsecureHttp ?? false);
  }

  /**
   * A grant after the server refused `rejected` (undefined: no token was sent) with
   * `challenge`. `stepUp`: a 403 insufficient_scope, which only a new authorization with more
   * scopes answers.
   */
  async authorize(challenge: BearerChallenge | undefined, rejected: Grant | undefined, stepUp: boolean): Promise<Grant> {
    const { http, serverUrl } = this;
    const { store, options } = this.shared;
    // Discovery runs again on every challenge: the resource may have moved to another authorization server.
    const prm = await discoverResourceMetadata(http, serverUrl, challenge?.resourceMetadata);
    // 2025-03-26 servers have no resource metadata: the authorization server is at the MCP server's origin.
    const issuer = prm ? prm.authorization_servers![0]! : serverUrl.origin;
    const found = (await discoverAuthorizationServer(http, issuer)) ?? (prm ? undefined : defaultEndpoints(issuer));
    if (!found) {
      throw authError(
        `no authorization server metadata for ${issuer} (the authorization server the protected resource metadata names): none at its OAuth or OpenID Connect well-known URLs.`,
      );
    }
    const { as } = found;
    // Exactly as published in the resource metadata (RFC 8707 / RFC 9728): no parsing, no trailing slash.
    const resource = prm ? prm.resource : canonical(serverUrl);
    const key = tokenStoreKey(serverUrl.href, issuer);
    const record = (await store.get(key)) ?? { issuer };
    const held = record.tokens;
    const sameAs = rejected?.issuer === issuer;
    const dpop = await this.dpop();
    const chosen = options.grant;
    // Grants without a user keep no registration: what identifies the client is in the options.
    const machineClient: RegisteredClient | undefined =
      chosen && chosen.type !== 'authorization_code'
        ? { client_id: chosen.clientId, token_endpoint_auth_method: chosen.tokenEndpointAuthMethod ?? 'none' }
        : undefined;

    if (!stepUp && held) {
      // Another connection may have stored a newer token than the one refused.
      if (held.access_token !== rejected?.tokens.access_token && !expired(held)) {
        return this.grant(key, issuer, as, resource, record.client ?? machineClient!, held);
      }
      if (held.refresh_token && record.client) {
        try {
          const refreshed = await refreshGrant(http, as, record.client, held.refresh_token, resource, dpop);
          const tokens = toStored(refreshed, held.scopes, held);
          await store.set(key, { issuer, client: record.client, tokens });
          return this.grant(key, issuer, as, resource, record.client, tokens);
        } catch {
          // The refresh token is no good any more: a new authorization follows.
        }
      }
    }

    if (chosen && chosen.type !== 'authorization_code') {
      // No user: a new token by the same grant each time (no refresh token kept; the next 401 gets another).
      const previous = sameAs ? rejected!.tokens.scopes : held?.scopes;
      const fromServer = challenge?.scope ?? (prm?.scopes_supported?.length ? prm.scopes_supported : undefined);
      const wanted = chosen.scope ?? (previous?.length ? union(previous, fromServer ?? []) : fromServer);
      const response = await machineGrant({ http, as, grant: chosen, resource, scopes: wanted, dpop });
      const tokens = { ...toStored(response, wanted ?? []), refresh_token: undefined };
      await store.set(key, { issuer, tokens });
      return this.grant(key, issuer, as, resource, machineClient!, tokens);
    }

    const registrations = this.shared.registrations;
    const client = record.client ?? registrations.get(issuer) ?? (await obtainClient(http, as, options));
    registrations.set(issuer, client);
    await store.set(key, { issuer, client, tokens: held });

    const scopes = this.scopes(challenge, prm?.scopes_supported, as, sameAs ? rejected!.tokens.scopes : held?.scopes);
    const response = await authorizationCodeGrant({
      http,
      as,
      fromMetadata: found.fromMetadata,
      client,
      resource,
      scopes,
      redirectUri: String(options.redirectUri),
      redirect: options.redirect!,
      dpop,
    });
    const tokens = toStored(response, scopes ?? []);
    await store.set(key, { issuer, client, tokens });
    return this.grant(key, issuer, as, resource, client, tokens);
  }

  /** A new access token from the grant's refresh token, or undefined when there is none or it is refused. */
  async refresh(grant: Grant): Promise<Grant | undefined> {
    const held = grant.tokens;
    if (!held.refresh_token) return undefined;
    try {
      const refreshed = await refreshGrant(this.http, grant.as, grant.client, held.refresh_token, grant.resource, grant.dpop);
      const tokens = toStored(refreshed, held.scopes, held);
      await this.shared.store.set(grant.key, { issuer: grant.issuer, client: grant.client, tokens });
      return { ...grant, tokens };
    } catch {
      return undefined;
    }
  }

  /**
   * Scope selection (2025-11-25 and 2026-07-28 §Scope Selection Strategy): the challenge's
   * scope, else the resource's `scopes_supported`, else none; joined with what was asked before
   * (SEP-2350: a re-authorization must not lose scopes); `offline_access` added where the
   * authorization server offers it.
   */
  private scopes(
    challenge: BearerChallenge | undefined,
    supported: string[] | undefined,
    as: oauth.AuthorizationServer,
    previous: string[] | undefined,
  ): string[] | undefined {
    let scopes =
      challenge?.scope ?? (Array.isArray(supported) && supported.length ? supported.filter((s) => typeof s === 'string') : undefined);
    if (previous?.length) scopes = union(previous, scopes ?? []);
    if (!scopes?.length) return undefined;
    const offered =
      as.scopes_supported?.includes('offline_access') && (!as.grant_types_supported || as.grant_types_supported.includes('refresh_token'));
    if (offered && this.shared.options.offlineAccess !== false) scopes = union(scopes, ['offline_access']);
    return scopes;
  }

  private grant(
    key: string,
    issuer: string,
    as: oauth.AuthorizationServer,
    resource: string,
    client: RegisteredClient,
    tokens: StoredTokens,
  ): Grant {
    return { key, issuer, as, resource, client, tokens, dpop: this.dpopHandle };
  }

  private dpopHandle: oauth.DPoPHandle | undefined;

  /** The OAuthClient's DPoP handle when DPoP is on (its key pair generated once, on first use). */
  private async dpop(): Promise<oauth.DPoPHandle | undefined> {
    const setting = this.shared.options.dpop;
    if (!setting) return undefined;
    const { keyPair, algorithm } = setting === true ? {} : setting;
    this.shared.dpop ??= (async () =>
      oauth.DPoP({}, keyPair ?? (await oauth.generateKeyPair(algorithm ?? 'ES256', { extractable: false }))))();
    this.dpopHandle = await this.shared.dpop;
    return this.dpopHandle;
  }
}

/** The canonical URI of an MCP server without resource metadata: its URL without fragment (RFC 8707 §2). */
function canonical(url: URL): string {
  const u = new URL(url.href);
  u.hash = '';
  return u.href;
}
