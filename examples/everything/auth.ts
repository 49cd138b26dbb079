/**
 * `AUTH_ISSUER=<issuer URL>`: the example becomes a protected MCP server (OAuth 2.1 resource
 * server) that takes access tokens from that authorization server only, found through its
 * metadata (JWT access tokens checked against its JWKS). The tokens' audience must be this
 * server's URL: `AUTH_RESOURCE`, else `http://<HOST>:<PORT>/mcp`. `AUTH_SCOPES` (space-separated)
 * are scopes every request needs. Without AUTH_ISSUER: no authorization.
 */
import type { ResourceServerOptions } from '../../src/transports/http/index.js';

export function authFromEnv(env: NodeJS.ProcessEnv, host: string, port: number): ResourceServerOptions | undefined {
  const issuer = env.AUTH_ISSUER;
  if (issuer === undefined || issuer === '') return undefined;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  // With PORT=0 the port is known only once listening: the resource is then the URL each request reached.
  const resource = env.AUTH_RESOURCE || (port !== 0 ? `http://${hostInUrl}:${port}/mcp` : undefined);
  const scopes = env.AUTH_SCOPES?.split(' ').filter((s) => s !== '');
  return {
    issuer,
    resourceName: 'Janus everything example',
    ...(resource !== undefined ? { resource } : {}),
    ...(scopes !== undefined && scopes.length > 0 ? { scopes } : {}),
  };
}
