/**
 * Interactive login for desktop and command-line applications (RFC 8252 §7.3): the redirect
 * URI is a loopback address this process listens on; the user's browser is sent to the
 * authorization page and comes back there with the code. Node only (`node:http` and
 * `node:child_process` are loaded when it is used).
 */
import { authError } from './errors.js';
import type { RedirectHandler } from './options.js';

/** Where {@link loopbackLogin} listens, how it shows the authorization page, and how long it waits. */
export interface LoopbackLoginOptions {
  /** The port on 127.0.0.1 (default 0: a free port, chosen now). A registered client with a fixed redirect URI needs its port. */
  port?: number;
  /** The redirect URI's path (default `/callback`). */
  path?: string;
  /** Shows the authorization page to the user (default: opens the system browser, and prints the URL to stderr in case it cannot). */
  open?: (url: URL) => void | Promise<void>;
  /** How long to wait for the user to come back, in ms (default 300 000). */
  timeoutMs?: number;
}

/**
 * A listener on 127.0.0.1 that takes the authorization server's redirect back to a native
 * application: give its `redirectUri` and `redirect` to the OAuth options.
 */
export interface LoopbackLogin {
  /** `http://127.0.0.1:<port><path>`: give it as `auth.redirectUri`. */
  readonly redirectUri: string;
  /** Give it as `auth.redirect`. */
  readonly redirect: RedirectHandler;
  /** Stops listening. */
  close(): Promise<void>;
}

const DONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Authorization complete</title><p>Authorization complete. You can close this window and return to the application.</p>';

/** Starts listening on a loopback port; `redirect` waits there for the browser to come back with the answer to its request. */
export async function loopbackLogin(options: LoopbackLoginOptions = {}): Promise<LoopbackLogin> {
  const { createServer } = await import('node:http');
  const path = options.path ?? '/callback';
  const waiting = new Map<string, (url: URL) => void>();
  let origin = '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const resolve = url.pathname === path ? waiting.get(url.searchParams.get('state') ?? '') : undefined;
    if (!resolve) {
      res
        .writeHead(url.pathname === path ? 400 : 404, { 'content-type': 'text/plain' })
        .end('Not an answer this application is waiting for.');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DONE_PAGE);
    resolve(url);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  // Waiting for a user does not keep the process alive on its own.
  server.unref();
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : options.port}`;
  const open = options.open ?? openBrowser;
  const timeoutMs = options.timeoutMs ?? 300_000;

  const redirect: RedirectHandler = async (authorizationUrl) => {
    const state = authorizationUrl.searchParams.get('state') ?? '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = new Promise<URL>((resolve, reject) => {
      waiting.set(state, resolve);
      timer = setTimeout(
        () => reject(authError(`nobody came back from the authorization page within ${timeoutMs / 1000} s (loopbackLogin timeoutMs).`)),
        timeoutMs,
      );
    });
    try {
      await open(authorizationUrl);
      return await answer;
    } finally {
      clearTimeout(timer);
      waiting.delete(state);
    }
  };
  return {
    redirectUri: `${origin}${path}`,
    redirect,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The system browser (open, start, xdg-open), with the URL on stderr for when there is none. */
async function openBrowser(url: URL): Promise<void> {
  process.stderr.write(`Open this page to authorize the application:\n  ${url.href}\n`);
  const { spawn } = await import('node:child_process');
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url.href]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.href.replace(/&/g, '^&')]]
        : ['xdg-open', [url.href]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => {}); // no browser: the URL is on stderr
  child.unref();
}
