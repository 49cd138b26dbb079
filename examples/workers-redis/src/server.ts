/**
 * The MCP server each worker serves: small tools that show where a request ran. `greet` asks
 * the user (elicitation): on 2026-07-28 the question and the retry may reach different
 * workers, and on a 2025 session the answer may be POSTed to another worker than the one
 * waiting for it; both work because the workers share their state on Redis.
 */
import { createServer, type Server } from 'janus-mcp/server';
import type { RedisCluster } from 'janus-mcp/redis';
import { z } from 'zod';

export function createWorkerServer(cluster: RedisCluster): Server {
  const server = createServer({ name: 'workers-redis', version: '1.0.0', cluster });

  server.tool('whoami', { description: 'Which worker process answered', annotations: { readOnlyHint: true } }, () => ({
    pid: process.pid,
  }));

  server.tool(
    'greet',
    {
      description: 'Greets the user, asking for their name',
      input: z.object({}),
    },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: `Worker ${process.pid} asks: what is your name?`,
        requestedSchema: z.object({ name: z.string().min(1) }),
      });
      if (answer.action !== 'accept') return 'No name, no greeting.';
      return `Hello, ${answer.content.name}! (answered by worker ${process.pid})`;
    },
  );

  server.tool(
    'countdown',
    {
      description: 'Counts down, a step every 100 ms, with progress: a call that takes a while',
      input: z.object({ steps: z.number().int().min(1).max(600) }),
    },
    async ({ steps }, ctx) => {
      for (let left = steps; left > 0; left--) {
        if (ctx.signal.aborted) return 'Cancelled.';
        ctx.progress(steps - left, steps, `${left} to go`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return `Counted down ${steps} steps on worker ${process.pid}.`;
    },
  );

  return server;
}
