/**
 * The redirect handler for CI and tests: no browser, no user. It requests the authorization
 * URL itself, without following redirects, and takes the redirect the authorization server
 * answers with at once (as servers do for a user already logged in who already consented).
 */
import { authError } from './errors.js';
import type { RedirectHandler } from './options.js';

/** How {@link headlessRedirect} requests the authorization URL. */
export interface HeadlessRedirectOptions {
  /** The fetch for the authorization request (default: global fetch); e.g. one that carries a session cookie. */
  fetch?: typeof fetch;
}

/**
 * A redirect handler for CI and tests, with no browser and no user: requests the authorization URL
 * itself, without following redirects, and takes the redirect the authorization server answers
 * with at once (as for a user already logged in who already consented). Fails with a `JanusError`
 * (`'AUTH'`) when the answer is not such a redirect.
 */
export function headlessRedirect(options: HeadlessRedirectOptions = {}): RedirectHandler {
  return async (authorizationUrl) => {
    const res = await (options.fetch ?? fetch)(authorizationUrl, { redirect: 'manual' });
    res.body?.cancel().catch(() => {});
    const location = res.headers.get('location');
    if (res.status < 300 || res.status > 399 || !location) {
      throw authError(
        `the authorization endpoint ${authorizationUrl.origin}${authorizationUrl.pathname} answered HTTP ${res.status} without redirecting back. ` +
          'Headless authorization needs an authorization server that redirects at once (a login or consent page needs a user: use an interactive redirect handler).',
      );
    }
    return new URL(location, authorizationUrl);
  };
}
