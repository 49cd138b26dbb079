/**
 * Redirects, followed by hand (every fetch of the HTTP channels says `redirect: 'manual'`).
 * Left to itself, fetch follows a redirect to any origin and sends the body and every header
 * but Authorization there again (Fetch standard §4.4 "HTTP-redirect fetch"): the JSON-RPC
 * body, an API key from the `headers` option and the `Mcp-Session-Id` would reach a server
 * they were never meant for (basic/authorization.mdx §Token Handling: credentials go only to
 * the server they were issued for). So a redirect is followed only to the same origin, and
 * only where the request survives it unchanged: 307 and 308 keep the method and the body
 * (RFC 9110 §15.4.8-9); 301, 302 and 303 turn a POST into a bodiless GET, so they are
 * followed for GET only. Anything else fails with an error naming the target.
 */
import { HttpChannelError, discard, type FetchLike } from './http-common.js';

/** Fetch standard §4.4: a request redirected 20 times is a network error. */
const MAX_REDIRECTS = 20;

/** A reply fetch would have followed (or, in a browser, an opaque one that hides where to). */
export function isRedirect(res: Response): boolean {
  return (res.status >= 300 && res.status < 400) || (res.status === 0 && res.type === 'opaqueredirect');
}

/**
 * `res` answered `init` sent to `url` with a redirect: follows it, and any after it, while
 * that is safe; returns the first reply that is not a redirect, or throws.
 */
export async function followRedirects(fetchFn: FetchLike, url: URL, init: RequestInit, res: Response, what: string): Promise<Response> {
  const method = init.method ?? 'GET';
  let from = url;
  for (let hops = 1; isRedirect(res); hops++) {
    const fail = (why: string) => {
      discard(res);
      return new HttpChannelError(`${what} to ${url.href} was redirected ${why}`, res.status, undefined, res.headers);
    };
    if (res.type === 'opaqueredirect') throw fail('and this runtime does not say where to: not followed. Use the final URL.');
    const location = res.headers.get('location');
    // A 300 or 304, or a redirect without a target: the reply itself is the answer.
    if (location === null || ![301, 302, 303, 307, 308].includes(res.status)) return res;
    let to: URL;
    try {
      to = new URL(location, from);
    } catch {
      throw fail(`(HTTP ${res.status}) to ${JSON.stringify(location)}, which is not a URL`);
    }
    if (to.origin !== url.origin) {
      throw fail(
        `(HTTP ${res.status}) to ${to.href}, on another origin: not followed, so that its body and credentials (the headers option, Authorization, Mcp-Session-Id) do not leave ${url.origin}. If ${to.origin} is the server to use, connect to it directly.`,
      );
    }
    if (method !== 'GET' && res.status !== 307 && res.status !== 308) {
      throw fail(
        `(HTTP ${res.status}) to ${to.href}, which would turn the ${method} into a GET without its body: not followed (307 and 308 keep both). Use ${to.href} as the URL.`,
      );
    }
    if (hops > MAX_REDIRECTS) throw fail(`more than ${MAX_REDIRECTS} times (last to ${to.href}): not followed`);
    discard(res);
    res = await fetchFn(to, init);
    from = to;
  }
  return res;
}
