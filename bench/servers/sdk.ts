/**
 * The official TypeScript SDK v2 (`@modelcontextprotocol/server` 2.4.0) under test, wired the
 * way its documentation shows:
 * - stateless 2026-07-28: `createMcpHandler(factory)` mounted with `toNodeHandler` from
 *   `@modelcontextprotocol/node` (the factory runs per request, by the SDK's design);
 * - 2025-11-25 sessions: one `McpServer` + `NodeStreamableHTTPServerTransport` per session,
 *   kept in a map by `Mcp-Session-Id` (the SDK's stateful example);
 * - stdio: `serveStdio(factory)`, which serves both eras.
 * Each HTTP mode gets its own process so neither pays for routing to the other.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { acceptedContent, createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { extraToolName, parseServerArgs, startControl } from './control.js';

const args = parseServerArgs();
const echoInput = z.object({ text: z.string() });
const nameSchema = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

function factory(): McpServer {
  const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.registerTool('echo', { description: 'Echoes the text', inputSchema: echoInput }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('ask', { description: 'Asks for a name (one MRTR round)', inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name');
    if (answer === undefined) {
      return inputRequired({
        inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema }) },
      });
    }
    return { content: [{ type: 'text', text: `hello ${String(answer.name)}` }] };
  });
  for (let i = 0; i < args.tools; i++) {
    server.registerTool(extraToolName(i), { description: `Extra tool ${i}`, inputSchema: echoInput }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
  }
  return server;
}

function listen(server: ReturnType<typeof createHttpServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

if (args.transport === 'stdio') {
  serveStdio(factory);
  startControl({}, {});
} else if (args.mode === 'session') {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const http = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const id = req.headers['mcp-session-id'];
      if (typeof id === 'string') {
        const transport = sessions.get(id);
        if (!transport) {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}');
          return;
        }
        await transport.handleRequest(req, res);
        return;
      }
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
        onsessionclosed: (sid) => void sessions.delete(sid),
      });
      await factory().connect(transport);
      await transport.handleRequest(req, res);
    })().catch((e: unknown) => {
      console.error('[sdk-bench]', e);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const port = await listen(http);
  startControl({}, { port, path: '/mcp' });
} else {
  // Room for scenario 5's 10,000 listen streams (the default cap is 1,024).
  const handler = createMcpHandler(factory, { maxSubscriptions: 20_000, onerror: (e) => console.error('[sdk-bench]', e) });
  const http = createHttpServer(toNodeHandler(handler));
  const port = await listen(http);
  startControl({ notifyToolsChanged: () => handler.notify.toolsChanged() }, { port, path: '/mcp' });
}
