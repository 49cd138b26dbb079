/**
 * Why the user's server module did not load, told so it can be fixed: the error, the
 * file:line:column where it arose, that line of code, and the stack frames of the user's code
 * (Node's internals and this package's own frames left out).
 *
 * Where: for a syntax error, the location Node reports (the head of the stack of a CommonJS
 * module; for an ES module, which Node 20 reports only when the error is uncaught, `node --check`
 * on the module and the modules it imports by relative path: it parses and runs nothing);
 * for an error thrown while the module ran, the top frame of the user's code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface Location {
  file: string;
  line: number;
  column: number;
  /** The line of code and a caret under the column, when the file could be read. */
  code?: [string, string];
}

/** This package's own modules (the folder above cli/: the bundle's, or the compiled sources'). */
const OWN = new URL('..', import.meta.url).href;
/** At most this many modules are parsed looking for a syntax error Node did not place. */
const MAX_CHECKED = 50;
/** At most this many frames of the stack are shown. */
const MAX_FRAMES = 10;

/** The lines that describe `error`, raised while `what` ran (`loading x.js`); `path` is the module's. */
export function describeFailure(what: string, path: string, error: unknown): string {
  if (!(error instanceof Error)) return `${what} failed: ${String(error)}`;
  const stack = error.stack ?? '';
  const head = stack.split('\n').find((l) => l.startsWith(error.name)) ?? `${error.name}: ${error.message}`;
  const lines = [`${what} failed: ${head}`];
  const where = locate(path, error);
  if (where) {
    lines.push(`  at ${shown(where.file)}:${where.line}:${where.column}`);
    if (where.code) lines.push(`    ${where.code[0]}`, `    ${where.code[1]}`);
  }
  const frames = userFrames(stack);
  if (frames.length > 0) lines.push('  stack:', ...frames.map((f) => `    ${f}`));
  return lines.join('\n');
}

function locate(path: string, error: Error): Location | undefined {
  const stack = error.stack ?? '';
  const headed = parseHeader(stack);
  if (headed) return headed;
  for (const frame of frames(stack)) {
    const at = frameLocation(frame);
    if (at) return withCode(at);
  }
  // An ES module that does not parse: Node 20 gives no location with the error it throws.
  if (error instanceof SyntaxError) return findSyntaxError(path);
  return undefined;
}

/** `file:///x.mjs:3` or `/x.js:3`, the code line, its caret: how Node heads a syntax error. */
function parseHeader(text: string): Location | undefined {
  const m = /^((?:file:\/\/)?[^\n]+?):(\d+)\n([^\n]*)\n( *\^+)/.exec(text);
  if (!m) return undefined;
  const file = toPath(m[1]!);
  if (file === undefined) return undefined;
  return { file, line: Number(m[2]), column: m[4]!.indexOf('^') + 1, code: [m[3]!, m[4]!] };
}

function frames(stack: string): string[] {
  return stack
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at '));
}

/** Where a stack frame points, when it points into a file. */
function framePoint(frame: string): Location | undefined {
  const m = /(?:\(|^at (?:async )?)((?:file:\/\/)?\/[^()]*?|[A-Za-z]:\\[^()]*?):(\d+):(\d+)\)?$/.exec(frame);
  const file = m ? toPath(m[1]!) : undefined;
  return file === undefined ? undefined : { file, line: Number(m![2]), column: Number(m![3]) };
}

/** A frame of this package's own code. */
function isOwn(frame: string): boolean {
  const at = framePoint(frame);
  return at !== undefined && pathToFileURL(at.file).href.startsWith(OWN);
}

/** A frame of the user's code: not Node's, not this package's. */
function frameLocation(frame: string): Location | undefined {
  return isOwn(frame) ? undefined : framePoint(frame);
}

/** The frames worth showing: the user's, with the query a reload adds taken out. */
function userFrames(stack: string): string[] {
  return frames(stack)
    .filter((f) => !f.includes('node:internal') && !isOwn(f))
    .slice(0, MAX_FRAMES)
    .map((f) => f.replace(/\?[^:()\s]*(?=:\d+:\d+\)?$)/, ''));
}

/** A file URL or path, without the query a reload adds. */
function toPath(text: string): string | undefined {
  const bare = text.replace(/\?.*$/, '');
  try {
    return bare.startsWith('file://') ? fileURLToPath(bare) : isAbsolute(bare) ? bare : undefined;
  } catch {
    return undefined;
  }
}

function withCode(at: Location): Location {
  try {
    const code = readFileSync(at.file, 'utf8').split(/\r?\n/)[at.line - 1];
    if (code === undefined) return at;
    const caret = `${code.slice(0, at.column - 1).replace(/[^\t]/g, ' ')}^`;
    return { ...at, code: [code, caret] };
  } catch {
    return at;
  }
}

/**
 * `node --check` (parses, runs nothing) on the module, then on the modules it imports by
 * relative path, until one fails with a location.
 */
function findSyntaxError(path: string): Location | undefined {
  const queue = [path];
  const seen = new Set<string>();
  while (queue.length > 0 && seen.size < MAX_CHECKED) {
    const file = queue.shift()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 20_000 });
    if (check.status !== 0 && check.stderr) {
      const at = parseHeader(check.stderr.trimStart());
      if (at) return at;
      continue;
    }
    queue.push(...relativeImports(file));
  }
  return undefined;
}

/** The files a module names in `import … from './x.js'`, `import './x.js'` and `export … from './x.js'`. */
function relativeImports(file: string): string[] {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const found: string[] = [];
  const pattern = /\b(?:import|export)\b[^'";]*?['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const m of source.matchAll(pattern)) found.push(resolve(dirname(file), m[1]!));
  return found;
}

/** A path as the user would type it: relative to the working folder when inside it. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}
