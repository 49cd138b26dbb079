/**
 * A round-robin HTTP reverse proxy for scale-out tests, as users put several instances behind
 * one URL: each incoming request goes to the next instance in turn, whatever its session.
 * Both bodies stream through unbuffered (an SSE response reaches the client event by event),
 * hop-by-hop headers stay on their hop (RFC 9110 §7.6.1), and a client that goes away aborts
 * the request it made upstream. Every request is logged with the instance that got it.
 */
import { Agent, createServer, request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request the balancer forwarded. */
export interface Forwarded {
  /** Index of the instance it went to. */
  readonly instance: number;
  readonly method: string;
  /** The request's `Mcp-Session-Id`, else the one the instance's answer gave (initialize). */
  sessionId: string | undefined;
  /** The request body (POST), as far as it was read; parsed by `rpc()`. */
  body: string;
  /** The request's `Last-Event-ID` (a resumed SSE stream). */
  readonly lastEventId: string | undefined;
  /** The instance's status, once it answered (502: it could not be reached). */
  status?: number;
  /** The instance ended its answer (not the client, nor `cut()`). */
  completed?: boolean;
}

export interface Balancer {
  readonly url: URL;
  /** Requests each instance got, by index. */
  readonly hits: number[];
  readonly log: Forwarded[];
  /** Drops a forwarded exchange on both sides, as a proxy's idle timeout does to a quiet SSE stream. */
  cut(f: Forwarded): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
];
const LOGGED_BODY = 64 * 1024;

/** `headers` without hop-by-hop fields, those the Connection header names included. */
function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.includes(name) && !named.includes(name)) out[name] = value;
  }
  return out;
}

/** The JSON-RPC messages of a logged POST body (a batch flattened); [] when it is not JSON. */
export function rpc(f: Forwarded): Array<Record<string, any>> {
  try {
    const parsed: unknown = JSON.parse(f.body);
    return (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, any>>;
  } catch {
    return [];
  }
}

/** Starts the balancer on 127.0.0.1 (a free port) in front of `upstreams`. */
export async function startBalancer(upstreams: readonly URL[]): Promise<Balancer> {
  const agent = new Agent({ keepAlive: true });
  const hits = upstreams.map(() => 0);
  const log: Forwarded[] = [];
  const sockets = new Set<Socket>();
  const cutters = new WeakMap<Forwarded, () => void>();
  let next = 0;

  const server = createServer((req, res) => {
    const instance = next++ % upstreams.length;
    hits[instance]!++;
    const target = upstreams[instance]!;
    const entry: Forwarded = {
      instance,
      method: req.method ?? 'GET',
      sessionId: req.headers['mcp-session-id'] as string | undefined,
      lastEventId: req.headers['last-event-id'] as string | undefined,
      body: '',
    };
    log.push(entry);
    // The instance checks Host against its own address (DNS-rebinding protection), as behind a proxy that rewrites it.
    const headers = {
      ...endToEnd(req.headers),
      host: target.host,
      'x-forwarded-host': req.headers.host,
      'x-forwarded-for': req.socket.remoteAddress,
    };
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers, agent }, (answer) => {
      entry.status = answer.statusCode;
      entry.sessionId ??= answer.headers['mcp-session-id'] as string | undefined;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      // Headers now, not with the first body chunk: an SSE stream may say nothing for a while.
      res.flushHeaders();
      answer.pipe(res);
      answer.on('end', () => void (entry.completed = true));
      answer.on('error', () => res.destroy());
    });
    cutters.set(entry, () => {
      upstream.destroy();
      res.destroy();
    });
    upstream.on('error', () => {
      if (res.headersSent) res.destroy();
      else {
        entry.status = 502;
        res.writeHead(502).end();
      }
    });
    // The client went away before the answer ended (an aborted fetch, a closed SSE stream): so does the upstream request.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.on('data', (chunk: Buffer) => {
      if (entry.body.length < LOGGED_BODY) entry.body += chunk.toString('utf8');
    });
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}${upstreams[0]?.pathname ?? '/'}`),
    hits,
    log,
    cut: (f) => cutters.get(f)?.(),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await closed;
    },
  };
}
