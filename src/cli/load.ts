/**
 * The user's server module for `serve` and `dev`: its default export, or its `server` export,
 * is a Janus `Server` or a function (sync or async) returning one.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Server } from '../server/index.js';

/** Fails with a message meant for the user (exit code 1), not a stack. */
export class ModuleError extends Error {
  override name = 'ModuleError';
}

let loads = 0;

/**
 * Imports `file` (again: `fresh` adds a query string, so Node evaluates it anew; the modules it
 * imports stay cached) and finds its server.
 */
export async function loadServer(file: string, fresh = false): Promise<Server> {
  const url = pathToFileURL(resolve(file));
  if (fresh) url.search = `?reload=${Date.now()}-${++loads}`;
  // The one import of a path known only at run time: the user's module (test/architecture/layering.test.ts allows it here).
  const module = (await import(url.href)) as Record<string, unknown>;
  const exported = module.default ?? module.server;
  if (exported === undefined) throw new ModuleError(`${file} exports no server: export it as default or as \`server\``);
  const found = typeof exported === 'function' && !(exported instanceof Server) ? await (exported as () => unknown)() : exported;
  if (found instanceof Server) return found;
  if (
    typeof found === 'object' &&
    found !== null &&
    typeof (found as Server).tool === 'function' &&
    typeof (found as Server).connect === 'function'
  ) {
    throw new ModuleError(
      `${file} exports a server from another copy of janus-mcp: import janus-mcp/server from the installation that runs this command`,
    );
  }
  throw new ModuleError(
    `${file}: its ${module.default !== undefined ? 'default' : '`server`'} export is not a Janus Server (createServer from janus-mcp/server), nor a function returning one`,
  );
}
