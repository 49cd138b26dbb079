/**
 * `npm run build`, after tsc: the published entry points bundled, one ES module per entry of
 * package.json `exports` and `bin`, with the code they share split into chunks (one copy of
 * each module, whatever entries a program imports). Node's ES module loader pays for every
 * file (resolve, read, compile): `janus-mcp/server` was ~115 of them, about 60 ms of a
 * server's cold start on our machine, and a handful after this.
 *
 * The tsc output in dist/src stays what the tests run and what the types are; the bundle is
 * made from it, so it is the same code, comments aside. Dependencies stay external. Each
 * entry's `import` must be its `types` path with dist/src → dist/bundle and .d.ts → .js:
 * checked here, so package.json cannot drift from what is built.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FROM = 'dist/src/';
const TO = 'dist/bundle/';

interface Pkg {
  exports: Record<string, string | { types?: string; import?: string }>;
  bin?: Record<string, string>;
}

/** The dist/src module each published file is built from. */
function sourceOf(published: string, what: string): string {
  const path = published.replace(/^\.\//, '');
  if (!path.startsWith(TO) || !path.endsWith('.js')) throw new Error(`package.json ${what}: ${published} is not under ./${TO}`);
  return join(root, FROM, path.slice(TO.length));
}

export async function bundle(): Promise<string[]> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Pkg;
  const entries: string[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue; // ./package.json
    const { types, import: js } = target;
    if (types === undefined || js === undefined) throw new Error(`package.json exports["${subpath}"] needs types and import`);
    const source = sourceOf(js, `exports["${subpath}"].import`);
    const expected = join(root, types.replace(/^\.\//, '').replace(/\.d\.ts$/, '.js'));
    if (source !== expected)
      throw new Error(`package.json exports["${subpath}"]: import ${js} is not built from the module its types (${types}) describe`);
    entries.push(source);
  }
  for (const [name, bin] of Object.entries(pkg.bin ?? {})) entries.push(sourceOf(`./${bin}`, `bin["${name}"]`));
  rmSync(join(root, TO), { recursive: true, force: true }); // no chunk of an earlier build left behind
  const result = await build({
    entryPoints: entries,
    outbase: join(root, FROM),
    outdir: join(root, TO),
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
    metafile: true,
  });
  if (result.warnings.length > 0) throw new Error(`esbuild warnings:\n${result.warnings.map((w) => w.text).join('\n')}`);
  return Object.keys(result.metafile.outputs);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outputs = await bundle();
  console.log(`bundled ${outputs.length} files into ${TO}`);
}
