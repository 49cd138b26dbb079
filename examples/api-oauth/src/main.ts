/**
 * api-oauth: `AUTH_ISSUER=… UPSTREAM_URL=… UPSTREAM_API_KEY=… PORT=3000 node dist/main.js`.
 * Serves the MCP endpoint at /mcp over Streamable HTTP (every revision on one URL), as an OAuth
 * resource server: every request needs an access token from AUTH_ISSUER, issued for this
 * endpoint, with the scope `issues:read` (and more for some tools, server.ts). Tokens are JWTs
 * checked against the issuer's published keys (JWKS), found through its metadata.
 */
import { serveHttp } from 'janus-mcp/http';
import { readConfig } from './config.js';
import { createIssuesServer } from './server.js';
import { IssueTracker } from './upstream.js';

const config = readConfig();
const server = createIssuesServer(new IssueTracker(config.upstreamUrl, config.upstreamKey));
const http = await serveHttp(server, {
  port: config.port,
  host: config.host,
  auth: {
    issuer: config.issuer,
    ...(config.resource ? { resource: config.resource } : {}),
    scopes: ['issues:read'],
    scopesSupported: ['issues:read', 'issues:write', 'issues:triage'],
    resourceName: 'Issue tracker',
  },
});
console.error(`api-oauth: listening on ${http.url.href} (tokens from ${config.issuer})`);

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, async () => {
    await http.close();
    process.exit(0);
  });
