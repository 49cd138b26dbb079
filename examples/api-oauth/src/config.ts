/** The settings, from the environment; a missing one stops the program with a line saying what to set. */
export interface Config {
  /** The OAuth authorization server whose access tokens this server takes (its metadata names the JWKS). */
  issuer: string;
  /** The MCP endpoint's public URL, when clients reach it through a proxy; by default the URL each request reached. */
  resource: string | undefined;
  /** The upstream API's base URL, and the key this server calls it with. */
  upstreamUrl: string;
  upstreamKey: string | undefined;
  port: number;
  host: string;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    issuer: url('AUTH_ISSUER', env.AUTH_ISSUER, 'the OAuth authorization server, e.g. https://auth.example.com'),
    resource: env.RESOURCE || undefined,
    upstreamUrl: url('UPSTREAM_URL', env.UPSTREAM_URL, 'the issue tracker API, e.g. https://issues.example.com/api'),
    upstreamKey: env.UPSTREAM_API_KEY || undefined,
    port: Number(env.PORT || 3000),
    host: env.HOST || '127.0.0.1',
  };
}

function url(name: string, value: string | undefined, what: string): string {
  if (!value) fail(`set ${name}: ${what}`);
  try {
    return new URL(value).href.replace(/\/$/, '');
  } catch {
    fail(`${name} is not a URL: ${JSON.stringify(value)}`);
  }
}

export function fail(reason: string): never {
  console.error(`api-oauth: ${reason}`);
  process.exit(1);
}
