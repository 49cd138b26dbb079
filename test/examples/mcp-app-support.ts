/**
 * What the MCP App example's browser test stands on: the example's server started as its README
 * says, a page server that plays a web host's origin (its page, and /mcp passed on to the MCP
 * server), and Debian's Chromium.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { root } from '../package/support.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium; without these flags its connections are refused in a locked-down container. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: the MCP App test renders the UI in a real browser. Install Debian's chromium (apt-get install chromium).`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface ExampleServer {
  url: string;
  process: ChildProcess;
  /** Everything it wrote to stderr, for a failure message. */
  stderr(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** `npm start` is `node dist/server.js`; run node itself, so that the PID stopped is the server's. */
export async function startExample(project: string): Promise<ExampleServer> {
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: project,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example server printed no URL within 60 s:\n${stderr}`)), 60_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const found = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the example server exited (${code}) before printing its URL:\n${stderr}`));
    });
  });
  return {
    url,
    process: child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The test host's page: its script bundled for the browser, inline. */
export async function hostPage(): Promise<string> {
  const bundle = await build({
    entryPoints: [join(root, 'test/examples/mcp-app-host/host.js')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Test host</title></head><body><script>${script}</script></body></html>`;
}

export interface HostServer {
  origin: string;
  /** The JSON-RPC requests the page sent to /mcp, as "method" or "tools/call name". */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves the host page and passes /mcp on to the MCP server. A web host reaches MCP servers
 * from its own origin (the server answers no CORS preflight), so this stands in for the host's
 * backend; the server still checks the page's Origin, which stays a loopback one.
 */
export async function serveHost(page: string, mcpUrl: string): Promise<HostServer> {
  const upstream = new URL(mcpUrl);
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/?')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      return;
    }
    if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (req.url !== upstream.pathname) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (chunks.length > 0) requests.push(...describe(Buffer.concat(chunks).toString('utf8')));
    });
    const forward = request(upstream, { method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function describe(body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return ['(not JSON)'];
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).map((message: { method?: string; params?: { name?: string } }) =>
    message.method === 'tools/call' ? `tools/call ${message.params?.name}` : (message.method ?? '(response)'),
  );
}
