/**
 * Who made a request, as the transport verified it: an OAuth 2.1 access token checked by the
 * HTTP resource server (`janus-mcp/http` option `auth`), or whatever a custom transport puts
 * on `Inbound.auth`. Every field was checked or read from a verified token; none is a claim
 * the client merely declared.
 */
export interface AuthInfo {
  /** The token's subject (`sub`); for a client acting on its own behalf, often its client id. */
  readonly subject: string | undefined;
  /** The OAuth client the token was issued to (`client_id`, else `azp`). */
  readonly clientId: string | undefined;
  /** The scopes granted (`scope`, space-separated, or `scp`). */
  readonly scopes: readonly string[];
  /** The authorization server that issued the token. */
  readonly issuer: string;
  /** The token's audiences; this server's resource URL is always one of them. */
  readonly audience: readonly string[];
  /** Expiry, in seconds since the epoch, when the token has one. */
  readonly expiresAt: number | undefined;
  /** Every claim of the token (or of the introspection response). */
  readonly claims: Readonly<Record<string, unknown>>;
  /**
   * The access token itself, for a token exchange (RFC 8693) on the user's behalf. Never send
   * it on to another service: it was issued for this server only (authorization.mdx §Token
   * Handling, "MUST NOT accept or transit any other tokens").
   */
  readonly token?: string;
}
