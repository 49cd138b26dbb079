/**
 * The deployment recipes of docs/deployment.md, tested from the page itself: each file the page
 * shows (after a `<!-- file: NAME -->` line) is read from there, so the tests run what users copy.
 * Servers run as real child processes; everything listens on 127.0.0.1.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { transformSync } from 'esbuild';
import { root } from '../package/support.js';
import { until } from '../support/wait.js';

export { freePort } from '../support/example-process.js';

const PAGE = 'docs/deployment.md';

/** The text of the file the page shows as NAME (the fenced block after `<!-- file: NAME -->`). */
export function pageFile(name: string): string {
  const text = readFileSync(join(root, PAGE), 'utf8');
  const at = text.indexOf(`<!-- file: ${name} -->\n`);
  if (at < 0) throw new Error(`${PAGE} shows no file named ${name}`);
  const block = /^```\w*\n([\s\S]*?)^```$/m.exec(text.slice(at));
  if (!block) throw new Error(`${PAGE}: no code block after the ${name} marker`);
  return block[1]!;
}

/** `text` with `from` replaced by `to`; fails when `from` is not there, so a changed page cannot go untested. */
export function replaced(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`expected "${from}" in:\n${text}`);
  return text.split(from).join(to);
}

/**
 * A folder laid out as the recipes expect the deployed server (`dist/server.js`), without a
 * package install: the page's `src/server.ts` with its types stripped, and `janus-mcp` and `zod`
 * linked to this repository's build and its copy of Zod.
 */
export function builtServer(dir: string): string {
  mkdirSync(join(dir, 'dist'), { recursive: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  const { code } = transformSync(pageFile('src/server.ts'), { loader: 'ts', format: 'esm', target: 'node20' });
  writeFileSync(join(dir, 'dist', 'server.js'), code);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-mcp-server', private: true, type: 'module' }));
  symlinkSync(root, join(dir, 'node_modules', 'janus-mcp'), 'dir');
  symlinkSync(join(root, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'dir');
  return dir;
}

export interface Started {
  child: ChildProcess;
  /** Everything the process wrote to stderr (and stdout, when not piped elsewhere) so far. */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a process with its output collected, for waiting on a line and for failure messages. */
export function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Started {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** Waits (generously: the machine is shared) until the process has written `text`. */
export async function waitForOutput(p: Started, text: string, timeoutMs = 60_000): Promise<void> {
  let gone = false;
  void p.exited.then(() => (gone = true));
  await until(() => p.output().includes(text) || gone, `"${text}" from the process`, timeoutMs);
  if (!p.output().includes(text)) throw new Error(`the process ended before writing "${text}":\n${p.output()}`);
}

/** Ends a process this test started, by its PID, if it is still running. */
export async function stop(p: Started, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill(signal);
  await p.exited;
}

/** The environment `Environment=` lines or `ENV` give, on top of this process's PATH. */
export function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

/**
 * A `fetch` over node:https that trusts `ca` and resolves every name to `address`: the client
 * reaches `https://mcp.example.com:<port>` on this machine, with the public name in SNI, the
 * certificate check and `Host`, as it would in production.
 */
export function httpsFetchVia(address: string, ca: string): typeof fetch {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, key) => {
        headers[key] = value;
      });
      const req = request(url, {
        method: init?.method ?? 'GET',
        headers,
        ca,
        agent: false,
        lookup: (_host, options, callback) => {
          if (options.all) callback(null, [{ address, family: 4 }]);
          else callback(null, address, 4);
        },
        ...(init?.signal ? { signal: init.signal } : {}),
      });
      req.once('error', reject);
      req.once('response', (res) => {
        const out = new Headers();
        for (const [key, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) out.append(key, v);
        }
        const status = res.statusCode ?? 502;
        const empty = status === 204 || status === 304 || init?.method === 'HEAD';
        if (empty) res.resume();
        const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: out }));
      });
      const body = init?.body;
      if (body === undefined || body === null) req.end();
      else if (typeof body === 'string' || body instanceof Uint8Array) req.end(body);
      else reject(new Error(`httpsFetchVia: a body of type ${typeof body} is not supported here`));
    });
}

/** The page's package, with `janus-mcp` taken from the tarball instead of the registry. */
export function writePackage(dir: string, janusTarball: string): void {
  const manifest = JSON.parse(pageFile('package.json')) as { dependencies: Record<string, string> };
  manifest.dependencies['janus-mcp'] = `file:${janusTarball}`;
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, 'tsconfig.json'), pageFile('tsconfig.json'));
  writeFileSync(join(dir, 'src', 'server.ts'), pageFile('src/server.ts'));
}
