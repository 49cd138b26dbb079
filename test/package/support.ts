/**
 * The package as a user gets it: pack what a fresh clone holds (its `prepack` builds), install
 * the tarball into empty projects with npm, and turn the TypeScript blocks of the README and
 * of docs/ into files there. Only npm's cache and registry are reached (CI's `npm ci` fills
 * the cache with every version used here).
 */
import { execFile, type ExecFileOptions } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { findRepoRoot } from '../support/wire-schema.js';

export const root: string =
  findRepoRoot() ??
  (() => {
    throw new Error('no janus-mcp package.json above the tests');
  })();

export interface Run {
  stdout: string;
  stderr: string;
}

/** Runs a command; rejects with its output when it fails, so a test failure shows why. */
export function run(command: string, args: string[], options: ExecFileOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 64 * 1024 * 1024, timeout: 300_000, encoding: 'utf8', ...options }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed (${error.message.split('\n')[0]})\n${stdout}\n${stderr}`));
      else resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const npm = (args: string[], cwd: string) =>
  run('npm', args, {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  });

export interface Packed {
  tarball: string;
  /** Paths inside the tarball, relative to its package/ folder. */
  files: string[];
}

/**
 * Copies the files a fresh clone would hold (tracked, or new and not ignored) into
 * `work/clone`, links the repository's node_modules, and runs `npm pack` there: the tarball
 * is what `prepack` builds from the sources, not whatever lies in this checkout's dist/.
 */
export async function packFreshClone(work: string): Promise<Packed> {
  const clone = join(work, 'clone');
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root });
  for (const file of stdout.split('\0')) {
    if (file === '' || !existsSync(join(root, file))) continue; // deleted in the work tree
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(root, file), join(clone, file));
  }
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const packed = await npm(['pack', '--json', '--pack-destination', work], clone);
  const json = packed.stdout.slice(packed.stdout.lastIndexOf('\n[') + 1);
  const [info] = JSON.parse(json) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: join(work, info!.filename), files: info!.files.map((f) => f.path).sort() };
}

/** The version of a package in the repository's node_modules, so npm finds it in its cache. */
export function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * An empty ESM project with the tarball and packages installed by npm: `packages` at the
 * versions this repository has, `exact` as given (each must be in npm's cache or registry).
 */
export async function makeProject(dir: string, tarball: string, packages: string[], exact: string[] = []): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }, null, 2));
  const specs = [...packages.map((name) => `${name}@${installedVersion(name)}`), ...exact];
  await npm(['install', '--prefer-offline', '--no-package-lock', '--loglevel=error', tarball, ...specs], dir);
}

export interface Block {
  /** The document, relative to the repository root. */
  doc: string;
  /** File name: from a first-line `// name.ts` comment, else `block-<n>.ts`. */
  name: string;
  /** 1-based line of the block's first code line in the document. */
  line: number;
  code: string;
  /** The ```text block right after it, if any: what running it prints. */
  output: string | undefined;
}

const FENCE = /^```(\w*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;

/** The TypeScript blocks of a Markdown document, in order. */
export function blocksOf(doc: string): Block[] {
  const text = readFileSync(join(root, doc), 'utf8');
  const fences = [...text.matchAll(FENCE)].map((m) => ({ lang: m[1]!, code: m[2]!, at: m.index!, end: m.index! + m[0].length }));
  const blocks: Block[] = [];
  fences.forEach((f, i) => {
    if (f.lang !== 'ts' && f.lang !== 'typescript') return;
    const next = fences[i + 1];
    const between = next === undefined ? '' : text.slice(f.end, next.at);
    const output = next?.lang === 'text' && between.trim() === '' ? next.code : undefined;
    const named = /^\/\/ ([\w.-]+\.ts)\b/.exec(f.code);
    blocks.push({
      doc,
      name: named?.[1] ?? `block-${blocks.length + 1}.ts`,
      line: text.slice(0, f.at).split('\n').length + 1,
      code: f.code,
      output,
    });
  });
  return blocks;
}

/** README.md and every Markdown file of docs/. */
export function documents(): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

/** Where a document's blocks go in a project: `snippets/<doc slug>/`. */
export function snippetDir(doc: string): string {
  return join(
    'snippets',
    doc
      .replace(/\.md$/, '')
      .replace(/[^\w]+/g, '-')
      .toLowerCase(),
  );
}

/** Writes blocks as module files; returns a map from each file to its place in the docs. */
export function writeBlocks(project: string, blocks: Block[]): Map<string, Block> {
  const where = new Map<string, Block>();
  for (const b of blocks) {
    const file = join(snippetDir(b.doc), b.name);
    if (where.has(file))
      throw new Error(
        `${b.doc}:${b.line}: a second block named ${b.name}; name blocks with a unique first-line comment like "// other.ts"`,
      );
    mkdirSync(join(project, dirname(file)), { recursive: true });
    // `export {}` keeps a block without imports a module, as every block is in the docs.
    writeFileSync(join(project, file), `${b.code}\nexport {};\n`);
    where.set(file, b);
  }
  return where;
}

/**
 * Type-checks a project with the repository's TypeScript; errors come back with their place
 * in the docs ("README.md:42: error TS2322 …") instead of the generated file's.
 */
export async function typeCheck(project: string, where: Map<string, Block>, config: string = project): Promise<string[]> {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await new Promise<string>((resolve) => {
    execFile(process.execPath, [tsc, '-p', config], { cwd: project, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (_e, stdout, stderr) =>
      resolve(`${stdout}${stderr}`),
    );
  });
  return result
    .split('\n')
    .filter((l) => /error TS\d+/.test(l))
    .map((l) => {
      const m = /^(snippets\/[^()]+)\((\d+),(\d+)\): (.*)$/.exec(l);
      const block = m && where.get(m[1]!);
      return block ? `${block.doc}:${block.line + Number(m[2]) - 1}:${m[3]} (${block.name}): ${m[4]}` : l;
    });
}

export interface TsConfigOptions {
  nodeTypes: boolean;
  outDir?: string;
}

/** A strict NodeNext project; without Node types it gets the web platform's lib instead, as a Workers or Deno project does. */
export function writeTsConfig(project: string, o: TsConfigOptions): void {
  const compilerOptions: Record<string, unknown> = {
    strict: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    skipLibCheck: false,
    lib: o.nodeTypes ? ['ES2023'] : ['ES2023', 'DOM', 'DOM.Iterable'],
    types: o.nodeTypes ? ['node'] : [],
  };
  if (o.outDir) Object.assign(compilerOptions, { outDir: o.outDir, rootDir: 'snippets' });
  else compilerOptions.noEmit = true;
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['snippets'] }, null, 2));
}

/**
 * A strict NodeNext config that leaves everything else to the compiler: no `lib`, and no
 * `types` key at all, which under TypeScript 7 means no `@types` package is loaded. Written
 * beside the project's tsconfig.json as tsconfig.defaults.json, for `files` only; returns its path.
 */
export function writeTs7DefaultConfig(project: string, files: string[]): string {
  const file = join(project, 'tsconfig.defaults.json');
  const compilerOptions = { strict: true, target: 'ES2022', module: 'NodeNext', noEmit: true };
  writeFileSync(file, JSON.stringify({ compilerOptions, files }, null, 2));
  return file;
}

/** Files reached from an entry by static imports (dynamic `import()` is how optional parts stay out). */
export function staticImportGraph(entry: string): { files: string[]; builtins: Map<string, string> } {
  const seen = new Set<string>();
  const builtins = new Map<string, string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/^(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm)) {
      const spec = m[1] ?? m[2]!;
      if (spec.startsWith('.')) stack.push(join(dirname(file), spec));
      else if (spec.startsWith('node:')) builtins.set(spec, relative(dirname(entry), file));
    }
  }
  return { files: [...seen], builtins };
}
