/**
 * Shared pieces of the client end-to-end tests over real loopback HTTP: this project's
 * fixture server behind `serveHttp` with its sockets counted, a `fetch` that records what
 * the client put on the wire, small raw `node:http` servers for shapes our own server never
 * produces, and a child-process runner for the official SDK server. Not a test file.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildFixtureServer, type FixtureOptions } from '../fixtures/client-server/server.js';
import { serveHttp, type HttpServerHandle, type ServeHttpOptions } from '../../src/transports/http/index.js';
import type { Server } from '../../src/server/index.js';
import { pidAlive } from '../support/common.js';

export type Msg = Record<string, any>;

/** Counts the sockets a node:http server holds open and the requests it is still answering. */
export interface Counted {
  readonly sockets: Set<Socket>;
  /** Requests whose response has not closed yet (open SSE streams included). */
  active(): number;
  /** Closes idle keep-alive sockets (the client's pool may keep them), then reports what is left. */
  settled(ms?: number): Promise<void>;
}

export function countConnections(http: NodeServer): Counted {
  const sockets = new Set<Socket>();
  let active = 0;
  http.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  http.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    active++;
    res.once('close', () => active--);
  });
  return {
    sockets,
    active: () => active,
    // A socket that still carries a request (a stream the client forgot) is not idle and stays.
    // Sockets that never carried a byte are not counted: Node's fetch (undici) opens a spare
    // connection when a streaming request is aborted, and `closeIdleConnections` skips those.
    settled: async (ms = 2000) => {
      const end = Date.now() + ms;
      for (;;) {
        http.closeIdleConnections();
        const used = [...sockets].filter((s) => s.bytesRead > 0).length;
        if (active === 0 && used === 0) return;
        if (Date.now() > end) assert.fail(`server still holds ${used} used socket(s) and ${active} open request(s)`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

export interface Served {
  readonly url: URL;
  readonly handle: HttpServerHandle;
  readonly server: Server;
  readonly conns: Counted;
  close(): Promise<void>;
}

/** The client fixture server (test/fixtures/client-server/server.ts) on 127.0.0.1, port 0. */
export async function serveFixture(fixture: FixtureOptions = {}, http: ServeHttpOptions = {}, server: Server = buildFixtureServer(fixture)): Promise<Served> {
  const handle = await serveHttp(server, { port: 0, host: '127.0.0.1', ...http });
  const conns = countConnections(handle.httpServer);
  return { url: handle.url, handle, server, conns, close: async () => (await handle.close(), await server.close()) };
}

/** One HTTP exchange as the client made it. */
export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Msg | undefined;
  status?: number;
  responseHeaders?: Record<string, string>;
}

/** A `fetch` for the `fetch` option that records every request (and its reply's status and headers). */
export function recordingFetch(): { fetch: typeof fetch; log: Exchange[]; posts(method?: string): Exchange[] } {
  const log: Exchange[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    let body: Msg | undefined;
    if (typeof init?.body === 'string') {
      try {
        body = JSON.parse(init.body) as Msg;
      } catch {
        body = undefined;
      }
    }
    const entry: Exchange = { method: init?.method ?? 'GET', url: String(input instanceof Request ? input.url : input), headers, body };
    log.push(entry);
    const res = await fetch(input, init);
    entry.status = res.status;
    entry.responseHeaders = {};
    res.headers.forEach((v, k) => (entry.responseHeaders![k] = v));
    return res;
  };
  return { fetch: wrapped, log, posts: (m) => log.filter((e) => e.method === 'POST' && (m === undefined || e.body?.method === m)) };
}

export type RawHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

/** A node:http server on 127.0.0.1, port 0, with its sockets counted. */
export async function nodeServer(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: URL; http: NodeServer; conns: Counted; close(): Promise<void> }> {
  const http = createServer(listener);
  const conns = countConnections(http);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    http,
    conns,
    close: () => new Promise<void>((r) => {
      http.close(() => r());
      http.closeAllConnections();
    }),
  };
}

/** A raw server for wire shapes our server never produces; the handler gets the body read. */
export function rawServer(handler: RawHandler): ReturnType<typeof nodeServer> {
  return nodeServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      Promise.resolve(handler(req, res, Buffer.concat(chunks).toString('utf8'))).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(e));
      });
    });
  });
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A DiscoverResult (docs/2026-07-28/server/discover.mdx) for raw modern servers. */
export function discoverResult(capabilities: Msg = { tools: {} }): Msg {
  return {
    resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities, ttlMs: 0, cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'raw', version: '1' } },
  };
}

const here = dirname(fileURLToPath(import.meta.url));
/** Compiled alongside this file: dist/test/fixtures/sdk-server/server.js. */
export const SDK_SERVER = join(here, '..', 'fixtures', 'sdk-server', 'server.js');

/** A child we own, by PID: the official SDK server in one mode, with its URL read from stdout. */
export async function startSdkServer(mode: 'stateless' | 'modern-only' | 'session'): Promise<{ url: URL; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [SDK_SERVER, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error('the SDK server did not report its URL within 10 s')), 10_000);
    rl.once('line', (l) => (clearTimeout(timer), rl.close(), resolve(l)));
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`the SDK server exited with ${code}`))));
  });
  return {
    url: new URL(line.trim()),
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

export { pidAlive };
