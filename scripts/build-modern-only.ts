/**
 * `npm run build:modern-only`: the package without the handshake era, built from this tree
 * with nobody editing anything by hand. Into `modern-only/` it copies the sources, leaves every
 * `legacy/` folder out, puts each layer's `eras.modern-only.ts` in place of its `eras.ts` (the
 * one file per layer that registers the era), drops the package subpaths that lived in a legacy
 * folder, compiles (src, the example server, and the tests of test/modern-only/suite.json) and
 * bundles as the full build does. Then it reports both builds' bundle sizes and cold starts.
 *
 *   node dist/scripts/build-modern-only.js [--no-report]
 *
 * The result serves 2026-07-28 alone: `npm run fixture:server:modern-only` starts its example
 * server, `npm run test:modern-only` runs its tests.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(ROOT, 'modern-only');
const TWIN = '.modern-only.ts';

/** Every file under `dir`, recursively. */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? walk(path) : [path];
  });
}

/** Every folder named `legacy` under `dir`. */
function legacyFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (!e.isDirectory()) return [];
    const path = join(dir, e.name);
    return e.name === 'legacy' ? [path] : legacyFolders(path);
  });
}

interface Pkg {
  exports: Record<string, string | { types?: string; import?: string }>;
  [key: string]: unknown;
}

/** The test files the build without the handshake era runs (test/modern-only/suite.json). */
export function modernOnlySuite(root: string): string[] {
  const suite = JSON.parse(readFileSync(join(root, 'test/modern-only/suite.json'), 'utf8')) as { tests: string[] };
  return suite.tests;
}

export function buildModernOnly(): void {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  for (const part of ['src', 'test', 'spec', 'scripts']) cpSync(join(ROOT, part), join(OUT, part), { recursive: true });

  // The swap: every layer's registering file becomes its twin, and the legacy folders go.
  const src = join(OUT, 'src');
  const twins = walk(src).filter((f) => f.endsWith(TWIN));
  if (twins.length === 0) throw new Error('no eras.modern-only.ts found: nothing registers the handshake era?');
  for (const twin of twins) {
    const registrar = `${twin.slice(0, -TWIN.length)}.ts`;
    if (!existsSync(registrar)) throw new Error(`${relative(OUT, twin)} has no ${relative(OUT, registrar)} to stand in for`);
    renameSync(twin, registrar);
  }
  for (const folder of legacyFolders(src)) rmSync(folder, { recursive: true });

  // The package: the subpaths whose entry was in a legacy folder do not exist.
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Pkg;
  pkg.exports = Object.fromEntries(
    Object.entries(pkg.exports).filter(([, target]) => typeof target === 'string' || !/\/legacy\//.test(target.types ?? '')),
  );
  writeFileSync(join(OUT, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

  const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
  tsconfig.include = ['src', 'test/fixtures/everything', 'scripts/bundle.ts', 'test/support/*.d.ts', ...modernOnlySuite(ROOT)];
  writeFileSync(join(OUT, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);

  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', join(OUT, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
  if (compiled.status !== 0) throw new Error(`the build without the handshake era does not compile:\n${compiled.stdout}${compiled.stderr}`);
  execFileSync(process.execPath, [join(OUT, 'dist/scripts/bundle.js')], { cwd: OUT, stdio: 'inherit' });
}

/** Bytes of a bundle folder. */
function bytes(dir: string): number {
  return walk(dir).reduce((sum, f) => sum + statSync(f).size, 0);
}

/** Median time (ms) of a fresh process that imports the server and the HTTP transport and builds a server. */
function coldStart(bundle: string, runs = 15): number {
  const script = `const t = performance.now();
    const { createServer } = await import(${JSON.stringify(join(bundle, 'server/index.js'))});
    await import(${JSON.stringify(join(bundle, 'transports/http/index.js'))});
    createServer({ name: 'cold', version: '1' }).tool('t', () => 'x');
    console.log(performance.now() - t);`;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    times.push(Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function report(): void {
  const full = join(ROOT, 'dist/bundle');
  const modern = join(OUT, 'dist/bundle');
  if (!existsSync(full)) {
    console.log('(no full build in dist/bundle to compare with: run npm run build)');
    return;
  }
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const [fullBytes, modernBytes] = [bytes(full), bytes(modern)];
  // In turns, so that drift in this machine's speed does not decide the ratio.
  const fullStart: number[] = [];
  const modernStart: number[] = [];
  for (let round = 0; round < 3; round++) {
    fullStart.push(coldStart(full, 7));
    modernStart.push(coldStart(modern, 7));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  console.log(`bundle: full ${kib(fullBytes)}, modern-only ${kib(modernBytes)} (${((modernBytes / fullBytes) * 100).toFixed(0)}%)`);
  console.log(
    `cold start (import server + http, one server; median of 3×7 runs): full ${median(fullStart).toFixed(1)} ms, modern-only ${median(modernStart).toFixed(1)} ms`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildModernOnly();
  console.log(`built the package without the handshake era into ${relative(ROOT, OUT)}/`);
  if (!process.argv.includes('--no-report')) report();
}
