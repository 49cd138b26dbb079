/**
 * `serve FILE [--http HOST:PORT]` and `dev FILE [--http HOST:PORT]`: a module's server over
 * stdio (default) or Streamable HTTP until SIGINT or SIGTERM. `dev` imports the module again
 * when the file changes and swaps the running server's definitions in place
 * (`server.replaceDefinitionsFrom`), so sessions and listen streams stay up and clients hear
 * `list_changed`.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Server } from '../server/index.js';
import { protectStdout, serveStdio } from '../stdio/index.js';
import { serveHttp } from '../transports/http/index.js';
import { UsageError, hostPort, parseVerb } from './args.js';
import { signalled, stdinEndedOnSignal } from './lifecycle.js';
import { loadServer } from './load.js';
import type { Output } from './output.js';

const SERVE_OPTIONS = { http: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;
/** Editors write a file in several steps (truncate, write, rename): one reload after they settle. */
const RELOAD_DEBOUNCE_MS = 100;

export async function serveVerb(verb: 'serve' | 'dev', args: string[], out: Output): Promise<number> {
  const { values, positionals } = parseVerb(verb, args, SERVE_OPTIONS);
  if (values.help) return out.help(verb);
  const file = positionals[0];
  if (!file) throw new UsageError('missing FILE (a module exporting a Janus server)', verb);
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`, verb);
  const http = values.http === undefined ? undefined : hostPort(verb, values.http);
  // stdio: stdout carries protocol only, so what the module prints (from its first import on) goes to stderr.
  const restoreStdout = http === undefined ? protectStdout() : undefined;
  try {
    const server = await loadServer(file, false, out.stderr);
    const watcher = verb === 'dev' ? watchAndReload(file, server, out) : undefined;
    try {
      if (http === undefined) await serveOverStdio(server);
      else await serveOverHttp(server, http, file, out);
      return 0;
    } finally {
      watcher?.close();
      server.close();
    }
  } finally {
    restoreStdout?.();
  }
}

/** Until stdin ends or a signal comes. */
async function serveOverStdio(server: Server): Promise<void> {
  const connection = await serveStdio(server, { input: stdinEndedOnSignal() });
  await connection.closed;
}

async function serveOverHttp(server: Server, at: { host: string; port: number }, file: string, out: Output): Promise<void> {
  const handle = await serveHttp(server, at);
  out.stderr(`janus-mcp: ${file} listening on ${handle.url.href}`);
  await signalled();
  await handle.close();
}

/** Watches the file's folder (an editor may replace the file, which ends a watch on the file itself). */
function watchAndReload(file: string, server: Server, out: Output): FSWatcher {
  const name = basename(file);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reloading: Promise<void> = Promise.resolve();
  const reload = async () => {
    try {
      const fresh = await loadServer(file, true);
      server.replaceDefinitionsFrom(fresh);
      fresh.close();
      out.stderr(`janus-mcp: reloaded ${file}`);
    } catch (e) {
      out.stderr(`janus-mcp: reloading ${file} failed, the previous definitions stay: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const watcher = watch(dirname(resolve(file)), (_event, changed) => {
    if (changed !== null && String(changed) !== name) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      reloading = reloading.then(reload);
    }, RELOAD_DEBOUNCE_MS);
  });
  watcher.on('error', (e) => out.stderr(`janus-mcp: watching ${file} stopped: ${e.message}`));
  return watcher;
}
