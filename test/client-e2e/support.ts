/**
 * Shared pieces of the client end-to-end tests over real loopback HTTP: this project's
 * fixture server behind `serveHttp` with its sockets counted, a `fetch` that records what
 * the client put on the wire, small raw `node:http` servers for shapes our own server never
 * produces, and a child-process runner for the official SDK server. Not a test file.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import type { IncomingMessage, RequestListener, Server as NodeServer, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { buildFixtureServer, type FixtureOptions } from '../fixtures/client-server/server.js';
import { serveHttp, type HttpServerHandle, type ServeHttpOptions } from '../../src/transports/http/index.js';
import type { Server } from '../../src/server/index.js';
import { fixture, type Msg } from '../support/common.js';
import { listen, readingBody, type BodyHandler, type Listening } from '../support/http.js';
import { delay } from '../support/wait.js';

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
        await delay(10);
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
export async function serveFixture(
  fixture: FixtureOptions = {},
  http: ServeHttpOptions = {},
  server: Server = buildFixtureServer(fixture),
): Promise<Served> {
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
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
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
    res.headers.forEach((v, k) => {
      entry.responseHeaders![k] = v;
    });
    return res;
  };
  return { fetch: wrapped, log, posts: (m) => log.filter((e) => e.method === 'POST' && (m === undefined || e.body?.method === m)) };
}

/** A node:http server on 127.0.0.1, port 0, with its sockets counted. */
export async function nodeServer(listener: RequestListener): Promise<Listening & { conns: Counted }> {
  const server = await listen(listener);
  return { ...server, conns: countConnections(server.http) };
}

/** A raw server for wire shapes our server never produces; the handler gets the body read. */
export function rawServer(handler: BodyHandler): ReturnType<typeof nodeServer> {
  return nodeServer(readingBody(handler));
}

/** A DiscoverResult (docs/2026-07-28/server/discover.mdx) for raw modern servers. */
export function discoverResult(capabilities: Msg = { tools: {} }): Msg {
  return {
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    capabilities,
    ttlMs: 0,
    cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'raw', version: '1' } },
  };
}

export const SDK_SERVER = fixture('sdk-server', 'server.js');

/** A child we own, by PID: the official SDK server in one mode, with its URL read from stdout. */
export async function startSdkServer(
  mode: 'stateless' | 'modern-only' | 'session',
): Promise<{ url: URL; child: ChildProcess; stop(): Promise<void> }> {
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
