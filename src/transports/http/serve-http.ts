/**
 * `serveHttp`: a ready `node:http` listener for the MCP endpoint, with the connection limits
 * that only the owner of the server can set: how long headers and a whole request may take to
 * arrive, and how many connections may be open at once. `node:http` is loaded when called, so
 * importing `janus-mcp/http` stays harmless on other runtimes.
 */
import type { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Server } from '../../server/index.js';
import type { ServerCore } from '../../spi/index.js';
import { resolveCore } from './core-access.js';
import { createNodeHandler, type NodeHandlerOptions } from './node.js';
import { resolveOptions, warn } from './options.js';

/**
 * What {@link serveHttp} listens on and its server's timeouts and connection bound, plus the Node
 * handler's options.
 */
export interface ServeHttpOptions extends NodeHandlerOptions {
  /** Default 0: an ephemeral port (read it from the result). */
  port?: number;
  /** Default `127.0.0.1`: local servers SHOULD bind to loopback only (transports §Security). */
  host?: string;
  /** How long a client may take to send a request's headers (Node's `headersTimeout`). Default 10 000 ms; then 408 and the connection closes. */
  headersTimeoutMs?: number;
  /**
   * How long a client may take to send a whole request, headers and body (Node's
   * `requestTimeout`); a backstop behind `bodyTimeoutMs`. Default 60 000 ms; then 408 and the
   * connection closes. Response streams are not limited by it.
   */
  requestTimeoutMs?: number;
  /**
   * Most open connections (each SSE stream holds one). Default 20 000; a connection beyond it is
   * answered 503 with a JSON-RPC error and closed.
   */
  maxConnections?: number;
}

/**
 * A running {@link serveHttp} server: where it listens, the Node `http.Server`, and how to stop
 * it.
 */
export interface HttpServerHandle {
  /** The endpoint's URL (`http://127.0.0.1:<port>/mcp` by default). */
  readonly url: URL;
  /** The port it listens on (the one chosen, for port 0). */
  readonly port: number;
  /** The Node HTTP server, for what the handle does not cover. */
  readonly httpServer: HttpServer;
  /** Ends all sessions and streams, then stops listening. */
  close(): Promise<void>;
}

function refusal(max: number): string {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: { code: -32600, message: `Service Unavailable: the server holds its maximum of ${max} connections (maxConnections)` },
  });
  return (
    'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Counts connections; one over `max` gets the 503 at once and is closed, before any request is read. */
function capConnections(httpServer: HttpServer, max: number): void {
  let open = 0;
  const answer = refusal(max);
  const closed = () => {
    open--;
  };
  httpServer.prependListener('connection', (socket: Socket) => {
    if (open >= max) {
      socket.end(answer);
      socket.once('finish', () => socket.destroy());
      return;
    }
    open++;
    // 'close' comes once per socket: `on`, because `once` makes a wrapper per connection.
    socket.on('close', closed);
  });
}

/** Binds that listen on every interface: a client reaches them at a loopback address, and under other names only once allowed. */
const WILDCARDS: Record<string, string> = { '0.0.0.0': '127.0.0.1', '::': '[::1]', '0:0:0:0:0:0:0:0': '[::1]', '': '127.0.0.1' };
/** Host names the Host check takes without `allowedHosts` (guards.ts). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** The host part of a URL a client can use for a server bound to `host` (a wildcard is no address to connect to). */
function urlHostOf(host: string): string {
  const wildcard = WILDCARDS[host];
  if (wildcard !== undefined) return wildcard;
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Said once, when the bind reaches beyond loopback but the Host check (DNS-rebinding protection)
 * still takes only loopback names: the requests the bind invites by other names are refused with
 * 403 until `allowedHosts` names them.
 */
function hostCheckNotice(
  host: string,
  port: number,
  endpoint: string,
  interfaces: ReturnType<typeof import('node:os').networkInterfaces>,
): string {
  const wildcard = WILDCARDS[host] !== undefined;
  const others = wildcard
    ? Object.values(interfaces)
        .flatMap((list) => list ?? [])
        .filter((a) => !a.internal)
        .map((a) => (a.family === 'IPv6' ? `[${a.address}]` : a.address))
    : [host.includes(':') && !host.startsWith('[') ? `[${host}]` : host];
  const example = others[0] ?? '192.0.2.10';
  const names = [...new Set(others.slice(0, 3).map((a) => `${a}:${port}`))];
  const suggestion = (names.length ? names : [`${example}:${port}`]).map((n) => `'${n}'`).join(', ');
  return (
    `listening on ${wildcard ? `every interface (${host || '0.0.0.0'}:${port})` : `${host}:${port}`}, but only requests to localhost, 127.0.0.1 and [::1] are served: ` +
    `a request by another name or address (e.g. http://${example}:${port}${endpoint}) is refused with 403 (DNS-rebinding protection) ` +
    `until the allowedHosts option names it, e.g. serveHttp(server, { host: '${host}', allowedHosts: [${suggestion}] }).`
  );
}

/**
 * A ready-to-use listener for the MCP endpoint (default http://127.0.0.1:<port>/mcp). Bound to a
 * wildcard address (`0.0.0.0`, `::`), its `url` is the loopback one; a bind beyond loopback
 * without `allowedHosts` warns once (through `onWarning`, else the server's warnings) that
 * requests by other names are refused until `allowedHosts` names them.
 */
export async function serveHttp(server: Server | ServerCore, options: ServeHttpOptions = {}): Promise<HttpServerHandle> {
  const { port = 0, host = '127.0.0.1', headersTimeoutMs = 10_000, requestTimeoutMs = 60_000, maxConnections = 20_000, ...rest } = options;
  const path = rest.path ?? '/mcp';
  const handler = createNodeHandler(server, { ...rest, path });
  const http = await import('node:http');
  const httpServer = http.createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: Math.max(requestTimeoutMs, headersTimeoutMs),
      // Node checks both timeouts on this interval (default 30 s): check often enough to keep them.
      connectionsCheckingInterval: Math.max(100, Math.min(1000, headersTimeoutMs / 4)),
    },
    handler,
  );
  capConnections(httpServer, maxConnections);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address();
  const actual = typeof address === 'object' && address !== null ? address.port : port;
  const endpoint = path === false ? '/' : path;
  if (rest.allowedHosts === undefined && rest.dnsRebindingProtection !== false && !LOOPBACK_HOSTS.has(host.toLowerCase())) {
    const os = await import('node:os');
    warn(resolveCore(server), resolveOptions(rest), hostCheckNotice(host, actual, endpoint, os.networkInterfaces()));
  }
  let closing: Promise<void> | undefined;
  return {
    url: new URL(`http://${urlHostOf(host)}:${actual}${endpoint}`),
    port: actual,
    httpServer,
    close: () =>
      (closing ??= (async () => {
        await handler.close();
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      })()),
  };
}
