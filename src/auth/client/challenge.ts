/**
 * `WWW-Authenticate` parsing (RFC 9110 §11.6.1, RFC 6750 §3): the `Bearer` challenge's
 * parameters (`resource_metadata` of RFC 9728 §5.1, `scope`, `error`). A header may carry
 * several challenges, separated by commas like their parameters; a challenge starts where a
 * token is followed by whitespace and a parameter (or the end) rather than by `=`.
 */

export interface BearerChallenge {
  /** RFC 9728 §5.1: where the protected resource metadata is. */
  resourceMetadata?: string;
  /** The scopes the request needs (space-separated in the header). */
  scope?: string[];
  /** `invalid_token`, `insufficient_scope`, ... */
  error?: string;
  /** The `error_description`: what went wrong, for a person to read. */
  errorDescription?: string;
  /** Every parameter, names lower-cased. */
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

/** The first `Bearer` (or `DPoP`, RFC 9449 §7.1) challenge of a `WWW-Authenticate` value, or undefined when there is none. */
export function parseBearerChallenge(header: string | null | undefined, scheme: 'bearer' | 'dpop' = 'bearer'): BearerChallenge | undefined {
  if (!header) return undefined;
  for (const c of parseChallenges(header)) {
    if (c.scheme !== scheme) continue;
    const p = c.params;
    const scope = p.scope?.split(' ').filter(Boolean);
    return {
      resourceMetadata: p.resource_metadata,
      scope: scope?.length ? scope : undefined,
      error: p.error,
      errorDescription: p.error_description,
      params: p,
    };
  }
  return undefined;
}

/** Every challenge of a header value, schemes lower-cased. Unparseable input ends the list where it starts. */
export function parseChallenges(header: string): Array<{ scheme: string; params: Record<string, string> }> {
  const out: Array<{ scheme: string; params: Record<string, string> }> = [];
  let rest = header;
  const skip = (re: RegExp) => {
    rest = rest.replace(re, '');
  };
  for (;;) {
    skip(/^[\s,]+/);
    const scheme = TOKEN.exec(rest)?.[0];
    if (!scheme) return out;
    rest = rest.slice(scheme.length);
    const params: Record<string, string> = {};
    out.push({ scheme: scheme.toLowerCase(), params });
    // Parameters: `name = token` or `name = "quoted"`, comma-separated, until the next scheme.
    for (;;) {
      skip(/^[\s,]+/);
      const name = TOKEN.exec(rest)?.[0];
      if (!name) return out;
      const after = rest.slice(name.length).replace(/^\s*/, '');
      if (!after.startsWith('=')) break; // the next challenge's scheme (or a token68, which Bearer does not use)
      let value = after.slice(1).replace(/^\s*/, '');
      if (value.startsWith('"')) {
        const m = /^"((?:[^"\\]|\\[\s\S])*)"/.exec(value);
        if (!m) return out;
        params[name.toLowerCase()] = m[1]!.replace(/\\([\s\S])/g, '$1');
        value = value.slice(m[0].length);
      } else {
        const token = /^[^\s,]*/.exec(value)![0];
        params[name.toLowerCase()] = token;
        value = value.slice(token.length);
      }
      rest = value;
    }
  }
}
