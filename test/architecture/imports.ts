/**
 * The import graph of src/, read from the TypeScript sources: a small scanner skips comments,
 * strings, template literals and regular expressions, so an `import` inside them is never
 * taken for one, and every import is kept, type-only ones included (a type import couples two
 * layers as much as a value import does). Used by layering.test.ts; not a test file.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

export interface ImportRef {
  /** The specifier as written: `./x.js`, `node:http`, `zod`. */
  readonly specifier: string;
  /** `type`: import type / export type (erased at run time); `static`: any other import/export … from, `import 'x'`; `dynamic`: `import('x')`, `require('x')`. */
  readonly kind: 'type' | 'static' | 'dynamic';
  readonly line: number;
}

export interface Scan {
  readonly imports: ImportRef[];
  /** Lines of `import(…)` calls whose specifier is not a string literal: they cannot be checked. */
  readonly computed: number[];
}

interface Token {
  readonly kind: 'word' | 'string' | 'template' | 'regex' | 'punct';
  readonly text: string;
  readonly line: number;
}

/** After these words a `/` starts a regular expression, not a division. */
const REGEX_AFTER = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);
const WORD = /[\w$#\u0080-\uffff]/;

function tokenize(source: string, file: string): Token[] {
  const tokens: Token[] = [];
  /** What each open `{` belongs to: a block or object, or a template literal's `${`. */
  const braces: Array<'code' | 'template'> = [];
  let i = 0;
  let line = 1;
  const fail = (what: string): never => {
    throw new Error(`${file}:${line}: the import scanner ${what}; extend test/architecture/imports.ts`);
  };
  const newlines = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (source[k] === '\n') line++;
  };
  // Reads template text up to the closing backtick (a value) or the next `${` (code follows, as after a `(`).
  const templateChunk = () => {
    const start = i;
    for (; i < source.length; i++) {
      const c = source[i];
      if (c === '\\') {
        i++;
      } else if (c === '`') {
        i++;
        newlines(start, i);
        return void tokens.push({ kind: 'template', text: '`', line });
      } else if (c === '$' && source[i + 1] === '{') {
        i += 2;
        braces.push('template');
        newlines(start, i);
        return void tokens.push({ kind: 'punct', text: '${', line });
      }
    }
    fail('reached the end inside a template literal');
  };
  const regexAllowed = () => {
    const prev = tokens.at(-1);
    if (prev === undefined) return true;
    if (prev.kind === 'word') return REGEX_AFTER.has(prev.text);
    if (prev.kind === 'punct') return !(prev.text === ')' || prev.text === ']' || prev.text === '}');
    return false;
  };

  while (i < source.length) {
    const c = source[i]!;
    const start = i;
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      if (end < 0) fail('reached the end inside a comment');
      i = end + 2;
      newlines(start, i);
    } else if (c === '"' || c === "'") {
      let text = '';
      for (i++; source[i] !== c; i++) {
        if (i >= source.length || source[i] === '\n') fail('found an unterminated string');
        if (source[i] === '\\') i++;
        text += source[i];
      }
      i++;
      tokens.push({ kind: 'string', text, line });
    } else if (c === '`') {
      i++;
      templateChunk();
    } else if (c === '/' && regexAllowed()) {
      let inClass = false;
      for (i++; ; i++) {
        const r = source[i];
        if (r === undefined || r === '\n') fail('found an unterminated regular expression');
        if (r === '\\') i++;
        else if (r === '[') inClass = true;
        else if (r === ']') inClass = false;
        else if (r === '/' && !inClass) break;
      }
      i++;
      while (i < source.length && /[a-z]/.test(source[i]!)) i++;
      tokens.push({ kind: 'regex', text: source.slice(start, i), line });
    } else if (c === '{') {
      braces.push('code');
      tokens.push({ kind: 'punct', text: c, line });
      i++;
    } else if (c === '}') {
      i++;
      if (braces.pop() === 'template') {
        templateChunk();
      } else {
        tokens.push({ kind: 'punct', text: c, line });
      }
    } else if (WORD.test(c)) {
      while (i < source.length && WORD.test(source[i]!)) i++;
      tokens.push({ kind: 'word', text: source.slice(start, i), line });
    } else {
      tokens.push({ kind: 'punct', text: c, line });
      i++;
    }
  }
  if (braces.length > 0) fail(`ended with ${braces.length} unclosed brace(s)`);
  return tokens;
}

/** Whether the import/export statement whose `from` is at `at` starts with `import type` or `export type`. */
function typeOnly(tokens: readonly Token[], at: number): boolean {
  for (let k = at - 1; k >= 0 && tokens[k]!.text !== ';'; k--) {
    const t = tokens[k]!;
    if (t.kind === 'word' && (t.text === 'import' || t.text === 'export'))
      return tokens[k + 1]?.text === 'type' && tokens[k + 2]?.text !== 'from';
  }
  return false;
}

/** Every import of one TypeScript source: static, type-only, re-exports and literal `import()`. */
export function scanImports(source: string, file = '<source>'): Scan {
  const tokens = tokenize(source, file);
  const imports: ImportRef[] = [];
  const computed: number[] = [];
  tokens.forEach((t, k) => {
    if (t.kind !== 'word' || tokens[k - 1]?.text === '.') return; // `x.from`, `x.import` are properties
    const next = tokens[k + 1];
    if ((t.text === 'from' || t.text === 'import') && next?.kind === 'string') {
      imports.push({ specifier: next.text, kind: t.text === 'from' && typeOnly(tokens, k) ? 'type' : 'static', line: t.line });
    } else if ((t.text === 'import' || t.text === 'require') && next?.text === '(') {
      const arg = tokens[k + 2];
      const close = tokens[k + 3]?.text;
      if (arg?.kind === 'string' && (close === ')' || close === ',')) imports.push({ specifier: arg.text, kind: 'dynamic', line: t.line });
      else if (t.text === 'import') computed.push(t.line);
    }
  });
  return { imports, computed };
}

export interface Edge {
  /** Repository-relative, posix: `src/client/client.ts`. */
  readonly from: string;
  /** A repository-relative file for a relative import, else the bare specifier (`node:http`, `zod`). */
  readonly to: string;
  readonly external: boolean;
  readonly kind: ImportRef['kind'];
  readonly line: number;
}

export interface Graph {
  /** Every .ts file under the folder, repository-relative. */
  readonly files: string[];
  readonly edges: Edge[];
  /** Problems that make the graph incomplete: computed `import()`, relative imports that name no file. */
  readonly unreadable: string[];
}

function tsFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir))
    .sort()
    .flatMap((name) => {
      const path = posix.join(dir, name);
      if (statSync(join(root, path)).isDirectory()) return tsFiles(root, path);
      return name.endsWith('.ts') ? [path] : [];
    });
}

/** The file a relative specifier names under NodeNext rules (`./x.js` is `./x.ts` in the sources). */
function resolveRelative(known: ReadonlySet<string>, from: string, specifier: string): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.d.ts'), `${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => known.has(c));
}

/** The import graph of every .ts file under `dir` (repository-relative, e.g. `src`). */
export function importGraph(root: string, dir: string): Graph {
  const files = tsFiles(root, dir);
  const known = new Set(files);
  const edges: Edge[] = [];
  const unreadable: string[] = [];
  for (const from of files) {
    const scan = scanImports(readFileSync(join(root, from), 'utf8'), from);
    for (const line of scan.computed) unreadable.push(`${from}:${line}: import() of a computed specifier cannot be checked`);
    for (const ref of scan.imports) {
      if (!ref.specifier.startsWith('.')) {
        edges.push({ from, to: ref.specifier, external: true, kind: ref.kind, line: ref.line });
        continue;
      }
      const to = resolveRelative(known, from, ref.specifier) ?? posix.normalize(posix.join(posix.dirname(from), ref.specifier));
      // A relative import that leaves the folder (../../package.json) is kept as its path; one inside that names no file is a problem.
      if (!known.has(to) && to.startsWith(`${dir}/`)) unreadable.push(`${from}:${ref.line}: ${ref.specifier} names no file under ${dir}/`);
      edges.push({ from, to, external: false, kind: ref.kind, line: ref.line });
    }
  }
  return { files, edges, unreadable };
}

/**
 * Every elementary cycle among the internal edges, each as its file chain starting at its
 * smallest file (`a → b → a`), sorted. Each cycle is found once: from its smallest file,
 * through larger files only.
 */
export function cycles(edges: readonly Pick<Edge, 'from' | 'to' | 'external'>[], limit = 500): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (e.external) continue;
    const list = next.get(e.from) ?? [];
    if (!list.includes(e.to)) list.push(e.to);
    next.set(e.from, list);
  }
  const found: string[][] = [];
  for (const start of [...next.keys()].sort()) {
    const path = [start];
    const onPath = new Set(path);
    const walk = (node: string): void => {
      for (const to of next.get(node) ?? []) {
        if (to === start) {
          found.push([...path, start]);
          if (found.length > limit) throw new Error(`more than ${limit} import cycles: untangle src/ before listing them`);
        } else if (to > start && !onPath.has(to)) {
          path.push(to);
          onPath.add(to);
          walk(to);
          onPath.delete(to);
          path.pop();
        }
      }
    };
    walk(start);
  }
  return found.sort((a, b) => a.join(' ').localeCompare(b.join(' ')));
}
