/**
 * The bare baseline: no MCP library, just node:http (or a stdin line reader), JSON.parse and
 * a hand-built JSON-RPC answer. It does the least any server must do for the same requests,
 * so it is the ceiling the libraries are measured against. It checks nothing it need not.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extraToolName, parseServerArgs, startControl } from './control.js';

type Msg = { jsonrpc?: string; id?: string | number; method?: string; params?: Record<string, any> };

const args = parseServerArgs();
const SERVER_INFO = { name: 'bare-bench', version: '1.0.0' };
const PV = 'io.modelcontextprotocol/protocolVersion';
const textSchema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const TOOLS: Array<Record<string, unknown>> = [
  { name: 'echo', description: 'Echoes the text', inputSchema: textSchema },
  { name: 'ask', description: 'Asks for a name (one MRTR round)', inputSchema: { type: 'object', properties: {} } },
];
for (let i = 0; i < args.tools; i++) TOOLS.push({ name: extraToolName(i), description: `Extra tool ${i}`, inputSchema: textSchema });

const sessions = new Map<string, { protocolVersion: string; capabilities: unknown; clientInfo: unknown }>();

function result(msg: Msg, body: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: body });
}
function error(msg: Msg, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, error: { code, message } });
}

/** The JSON-RPC answer to one request, or undefined for a notification. */
function answer(msg: Msg, sessionId?: string): string | undefined {
  if (msg.id === undefined) return undefined;
  const p = msg.params ?? {};
  const modern = p._meta !== undefined && typeof p._meta[PV] === 'string';
  switch (msg.method) {
    case 'tools/call': {
      if (p.name === 'echo' && typeof p.arguments?.text === 'string') {
        const r: Record<string, unknown> = { content: [{ type: 'text', text: p.arguments.text }] };
        if (modern) r.resultType = 'complete';
        return result(msg, r);
      }
      if (p.name === 'ask') {
        const name = p.inputResponses?.name?.content?.name;
        if (typeof name === 'string') return result(msg, { content: [{ type: 'text', text: `hello ${name}` }], resultType: 'complete' });
        return result(msg, {
          resultType: 'input_required',
          inputRequests: {
            name: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: 'What is your name?',
                requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
              },
            },
          },
          requestState: 'bare',
        });
      }
      return error(msg, -32602, 'Unknown tool');
    }
    case 'tools/list':
      return result(msg, modern ? { tools: TOOLS, resultType: 'complete', ttlMs: 0, cacheScope: 'private' } : { tools: TOOLS });
    case 'initialize': {
      if (sessionId !== undefined)
        sessions.set(sessionId, { protocolVersion: '2025-11-25', capabilities: p.capabilities, clientInfo: p.clientInfo });
      return result(msg, { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: SERVER_INFO });
    }
    case 'server/discover':
      return result(msg, {
        resultType: 'complete',
        supportedVersions: ['2026-07-28', '2025-11-25'],
        capabilities: { tools: { listChanged: true } },
        ttlMs: 0,
        cacheScope: 'private',
      });
    default:
      return error(msg, -32601, 'Method not found');
  }
}

if (args.transport === 'stdio') {
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim() === '') continue;
      let msg: Msg;
      try {
        msg = JSON.parse(line) as Msg;
      } catch {
        process.stdout.write(`${error({}, -32700, 'Parse error')}\n`);
        continue;
      }
      const out = answer(msg, 'stdio');
      if (out !== undefined) process.stdout.write(`${out}\n`);
    }
  });
  startControl({}, {});
} else {
  const streams = new Map<ServerResponse, string | number>();
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let msg: Msg;
      try {
        msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Msg;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(error({}, -32700, 'Parse error'));
        return;
      }
      let sid = req.headers['mcp-session-id'] as string | undefined;
      if (sid !== undefined && !sessions.has(sid)) {
        res.writeHead(404).end();
        return;
      }
      if (msg.method === 'subscriptions/listen') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const ack = {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': msg.id } },
        };
        res.write(`event: message\ndata: ${JSON.stringify(ack)}\n\n`);
        streams.set(res, msg.id!);
        res.on('close', () => streams.delete(res));
        return;
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (msg.method === 'initialize') headers['mcp-session-id'] = sid = randomUUID();
      const out = answer(msg, sid);
      if (out === undefined) res.writeHead(202).end();
      else res.writeHead(200, headers).end(out);
    });
  });
  const notifyToolsChanged = (): void => {
    for (const [res, id] of streams) {
      const n = {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': id } },
      };
      res.write(`event: message\ndata: ${JSON.stringify(n)}\n\n`);
    }
  };
  http.listen(0, '127.0.0.1', () => startControl({ notifyToolsChanged }, { port: (http.address() as AddressInfo).port, path: '/mcp' }));
}
