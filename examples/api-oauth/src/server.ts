/**
 * The MCP server: tools over the issue tracker, each with the OAuth scopes it needs on top of
 * the endpoint's `issues:read` (main.ts). A token without them gets 403 `insufficient_scope`
 * naming every scope the call needs, before the handler runs; the handler sees who called
 * as `ctx.auth`, verified.
 */
import { ToolError } from 'janus-mcp/errors';
import { type AuthInfo, createServer, type Server } from 'janus-mcp/server';
import { z } from 'zod';
import { Issue, type IssueTracker } from './upstream.js';

/** The user the token was issued for (its `sub`; a client acting for itself has only a client id). */
function caller(auth: AuthInfo | undefined): string {
  const who = auth?.subject ?? auth?.clientId;
  if (who === undefined) throw new ToolError('This call carries no verified identity.');
  return who;
}

export function createIssuesServer(tracker: IssueTracker): Server {
  const server = createServer({ name: 'api-oauth', version: '1.0.0' });

  server.tool(
    'whoami',
    {
      description: 'Who this server takes you for: the verified access token',
      output: z.object({ subject: z.string().optional(), clientId: z.string().optional(), scopes: z.array(z.string()) }),
      annotations: { readOnlyHint: true },
    },
    (_args, ctx) => ({ subject: ctx.auth?.subject, clientId: ctx.auth?.clientId, scopes: [...(ctx.auth?.scopes ?? [])] }),
  );

  server.tool(
    'list_issues',
    {
      description: 'The issues of the tracker',
      input: z.object({ state: z.enum(['open', 'closed', 'all']).default('open') }),
      output: z.object({ issues: z.array(Issue) }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ state }, ctx) => ({ issues: await tracker.list(state, caller(ctx.auth), ctx.signal) }),
  );

  server.tool(
    'create_issue',
    {
      description: 'Opens an issue, reported by you',
      input: z.object({ title: z.string().trim().min(1).max(200), body: z.string().max(20_000).default('') }),
      output: Issue,
      scopes: ['issues:write'],
      annotations: { openWorldHint: true },
    },
    async ({ title, body }, ctx) => tracker.create(title, body, caller(ctx.auth), ctx.signal),
  );

  server.tool(
    'close_issue',
    {
      description: 'Closes an issue (triage only)',
      input: z.object({ id: z.number().int(), reason: z.string().max(2000).default('') }),
      output: Issue,
      scopes: ['issues:triage'],
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    async ({ id, reason }, ctx) => tracker.close(id, reason, caller(ctx.auth), ctx.signal),
  );

  return server;
}
