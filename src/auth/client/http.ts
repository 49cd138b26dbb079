/**
 * The HTTP the OAuth client does itself (metadata, registration, token requests): one fetch
 * with the transport policy applied, handed to oauth4webapi as its `customFetch`. oauth4webapi
 * refuses plain http unless told otherwise; the policy here is ours instead: https everywhere,
 * plain http on loopback hosts (local development, tests) or when the application allows it.
 */
import { allowInsecureRequests, customFetch } from 'oauth4webapi';
import { authError } from './errors.js';

type FetchLike = typeof fetch;

export interface OAuthHttp {
  /** Fetch with the policy checked (never follows redirects: the callers say `redirect: 'manual'`). */
  readonly fetch: FetchLike;
  /** The options oauth4webapi's request functions take for the same. */
  readonly options: { [customFetch]: FetchLike; [allowInsecureRequests]: true };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopback(url: URL): boolean {
  return LOOPBACK.has(url.hostname) || url.hostname.endsWith('.localhost');
}

/** Throws unless `url` may carry OAuth traffic under the policy. */
export function checkProtocol(url: URL, allowInsecureHttp: boolean): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && (allowInsecureHttp || isLoopback(url))) return;
  throw authError(
    `${url.href} is not an https URL: OAuth requests need TLS (plain http is allowed for localhost and 127.0.0.1 only, or everywhere with auth.allowInsecureHttp).`,
  );
}

export function oauthHttp(inner: FetchLike, allowInsecureHttp: boolean): OAuthHttp {
  const checked: FetchLike = (input, init) => {
    checkProtocol(new URL(input instanceof Request ? input.url : String(input)), allowInsecureHttp);
    return inner(input, init);
  };
  return { fetch: checked, options: { [customFetch]: checked, [allowInsecureRequests]: true } };
}
