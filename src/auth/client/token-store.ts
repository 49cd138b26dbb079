/**
 * Where the OAuth client keeps what it obtained: tokens and the client registration, per MCP
 * server and authorization server. Keyed by both so that a token or a client_id is only ever
 * presented to the authorization server that issued it (2026-07-28 authorization-server-discovery.mdx:
 * "Clients MUST maintain separate registration state (client credentials, tokens) per
 * authorization server").
 */

/** The client as registered with (or pre-registered at, or identified by a metadata document to) one authorization server. */
export interface RegisteredClient {
  /** The client's id at that authorization server. */
  client_id: string;
  /** Its secret, for a confidential client. */
  client_secret?: string;
  /** How the client authenticates at the token endpoint: `client_secret_basic`, `client_secret_post` or `none`. */
  token_endpoint_auth_method: string;
}

/** Tokens from one authorization server for one MCP server. */
export interface StoredTokens {
  /** The access token sent to the MCP server. */
  access_token: string;
  /** Its type: `Bearer`, or `DPoP` for a sender-constrained token. */
  token_type: string;
  /** The refresh token that renews the access token without the user, if the server gave one. */
  refresh_token?: string;
  /** When the access token expires, in ms since the epoch (from `expires_in`). */
  expires_at?: number;
  /** The scopes requested for these tokens (re-authorization asks for their union with a challenge's, SEP-2350). */
  scopes: string[];
}

/** One record of the store: what an authorization server gave this client for one MCP server. */
export interface StoredAuthorization {
  /** The authorization server's issuer identifier. */
  issuer: string;
  /** The client's registration there. */
  client?: RegisteredClient;
  /** The tokens it gave for the MCP server. */
  tokens?: StoredTokens;
}

/**
 * Persistence for the OAuth client. Keys come from `tokenStoreKey(server, issuer)`; values are
 * plain JSON. Refresh tokens and client secrets are in there: a store that writes them
 * somewhere must keep them confidential (OAuth 2.1 §4.3).
 */
export interface TokenStore {
  /** The record under `key`, or undefined when there is none. */
  get(key: string): StoredAuthorization | undefined | Promise<StoredAuthorization | undefined>;
  /** Stores the record under `key`, replacing any. */
  set(key: string, value: StoredAuthorization): void | Promise<void>;
  /** Removes the record under `key`, if there is one. */
  delete(key: string): void | Promise<void>;
}

/** The key of the record for an MCP server (its URL) and an authorization server (its issuer, as published). */
export function tokenStoreKey(server: string, issuer: string): string {
  return JSON.stringify([server, issuer]);
}

/** The default store: this process's memory (gone when it exits). */
export class InMemoryTokenStore implements TokenStore {
  private readonly records = new Map<string, StoredAuthorization>();
  /** A copy of the record under `key`, or undefined. */
  get(key: string): StoredAuthorization | undefined {
    const value = this.records.get(key);
    return value && structuredClone(value);
  }
  /** Stores a copy of the record under `key`. */
  set(key: string, value: StoredAuthorization): void {
    this.records.set(key, structuredClone(value));
  }
  /** Removes the record under `key`. */
  delete(key: string): void {
    this.records.delete(key);
  }
}
