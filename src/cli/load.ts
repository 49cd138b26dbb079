/**
 * The user's server module for `serve` and `dev`: its default export, or its `server` export,
 * is a Janus `Server` or a function (sync or async) returning one. A module that fails to load
 * is reported with where it failed (load-error.ts); a TypeScript module is loaded through the
 * project's tsx when Node cannot load it itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Server } from '../server/index.js';
import { describeFailure } from './load-error.js';

/** Fails with a message meant for the user (exit code 1), not a stack. */
export class ModuleError extends Error {
  override name = 'ModuleError';
}

let loads = 0;

/**
 * Imports `file` (again: `fresh` adds a query string, so Node evaluates it anew; the modules it
 * imports stay cached) and finds its server.
 */
export async function loadServer(file: string, fresh = false, note: (text: string) => void = () => {}): Promise<Server> {
  const path = resolve(file);
  if (!existsSync(path)) throw new ModuleError(`${file}: no such file (${path})`);
  const url = pathToFileURL(path);
  if (fresh) url.search = `?reload=${Date.now()}-${++loads}`;
  const module = await importModule(file, path, url.href, note);
  const exported = module.default ?? module.server;
  if (exported === undefined) throw new ModuleError(`${file} exports no server: export it as default or as \`server\``);
  let found: unknown = exported;
  if (typeof exported === 'function' && !(exported instanceof Server)) {
    try {
      found = await (exported as () => unknown)();
    } catch (e) {
      throw new ModuleError(describeFailure(`the function ${file} exports`, path, e));
    }
  }
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

const TYPESCRIPT = /\.[cm]?ts$/;

async function importModule(file: string, path: string, href: string, note: (text: string) => void): Promise<Record<string, unknown>> {
  try {
    // The one import of a path known only at run time: the user's module (test/architecture/layering.test.ts allows it here).
    return (await import(href)) as Record<string, unknown>;
  } catch (e) {
    if (TYPESCRIPT.test(path) && (e as { code?: unknown }).code === 'ERR_UNKNOWN_FILE_EXTENSION')
      return importTypeScript(file, path, href, note);
    throw new ModuleError(describeFailure(`loading ${file}`, path, e));
  }
}

/** Whether tsx's loader is registered in this process (once: every later .ts import goes through it). */
let tsxRegistered = false;

/** A .ts module this Node does not load (no type stripping): through tsx, when the module's project has it. */
async function importTypeScript(file: string, path: string, href: string, note: (text: string) => void): Promise<Record<string, unknown>> {
  if (!tsxRegistered) {
    const tsx = findTsx(path);
    if (tsx === undefined) {
      throw new ModuleError(
        `${file} is TypeScript, which Node ${process.version} does not load by itself. Compile it first (npx tsc) and serve the .js file, ` +
          'or add tsx to the project (npm install --save-dev tsx): janus-mcp serve and dev then load .ts files through it ' +
          `(or start the command under tsx: node --import tsx node_modules/janus-mcp/dist/bundle/cli/main.js serve ${file})`,
      );
    }
    const { register } = (await import(pathToFileURL(tsx.api).href)) as { register: () => unknown };
    register();
    tsxRegistered = true;
    note(`janus-mcp: loading ${file} with tsx ${tsx.version} (${tsx.dir})`);
  }
  // Another URL: Node keeps the failed import of this one.
  const again = new URL(href);
  again.searchParams.set('tsx', '');
  try {
    return (await import(again.href)) as Record<string, unknown>;
  } catch (e) {
    throw new ModuleError(describeFailure(`loading ${file}`, path, e));
  }
}

/** tsx as the module's project resolves it: its folder, version, and the ES module of its `tsx/esm/api` export. */
function findTsx(path: string): { dir: string; version: string; api: string } | undefined {
  try {
    const manifest = createRequire(path).resolve('tsx/package.json');
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string; exports?: Record<string, unknown> };
    const entry = pkg.exports?.['./esm/api'] as { import?: string | { default?: string } } | string | undefined;
    const target = typeof entry === 'string' ? entry : typeof entry?.import === 'string' ? entry.import : entry?.import?.default;
    if (typeof target !== 'string') return undefined;
    const dir = dirname(manifest);
    return { dir, version: pkg.version ?? '', api: resolve(dir, target) };
  } catch {
    return undefined;
  }
}
