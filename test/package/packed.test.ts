/**
 * What a user gets: the tarball a fresh clone packs, installed by npm into empty projects,
 * where every subpath imports by name, and every TypeScript block of the README and of docs/
 * type-checks under --strict and NodeNext (with Node's types, and without them for the
 * runtime-neutral subpaths). The README's quick start is run as written by quickstart.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  blocksOf,
  documents,
  installedVersion,
  makeProject,
  packFreshClone,
  run,
  snippetDir,
  staticImportGraph,
  typeCheck,
  writeBlocks,
  writeTsConfig,
  writeTs7DefaultConfig,
  type Block,
  type Packed,
} from './support.js';

/** Subpaths whose code and types need no Node built-ins: one package serves every runtime. */
const NEUTRAL = [
  'janus-mcp/server',
  'janus-mcp/client',
  'janus-mcp/protocol',
  'janus-mcp/errors',
  'janus-mcp/spi',
  'janus-mcp/tasks',
  'janus-mcp/skills',
  'janus-mcp/apps',
  'janus-mcp/testing',
  'janus-mcp/fetch',
  'janus-mcp/otel',
];
/**
 * Packages a block may import and still be checked as runtime-neutral code (ArkType is not
 * among them: its own declarations name Node's `buffer`).
 */
const NEUTRAL_PACKAGES = new Set([...NEUTRAL, 'zod', 'valibot', '@valibot/to-json-schema', 'hono', '@opentelemetry/api']);
/** What the docs' blocks import besides janus-mcp, installed into the Node project. */
const NODE_PACKAGES = [
  '@types/node',
  'zod',
  'valibot',
  '@valibot/to-json-schema',
  'arktype',
  'express',
  '@types/express',
  'hono',
  '@hono/node-server',
  'fastify',
  '@opentelemetry/api',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
  '@opentelemetry/sdk-trace-base',
  'redis',
];
const WEB_PACKAGES = ['zod', 'valibot', '@valibot/to-json-schema', 'hono', '@opentelemetry/api'];

const work = mkdtempSync(join(tmpdir(), 'janus-mcp-packed-'));
const nodeProject = join(work, 'node-project');
const webProject = join(work, 'web-project');
const oldZodProject = join(work, 'zod-4.0-project');
let packed: Packed;
let blocks: Block[];
let exportsMap: Record<string, unknown>;

before(async () => {
  packed = await packFreshClone(work);
  exportsMap = (JSON.parse(readFileSync(join(work, 'clone', 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports;
  blocks = documents().flatMap(blocksOf);
  await Promise.all([
    makeProject(nodeProject, packed.tarball, NODE_PACKAGES),
    makeProject(webProject, packed.tarball, WEB_PACKAGES),
    makeProject(oldZodProject, packed.tarball, [], ['zod@4.0.17']),
  ]);
});

after(() => rmSync(work, { recursive: true, force: true }));

function importsOf(code: string): string[] {
  return [...code.matchAll(/^\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] ?? m[2]!,
  );
}

function isNeutral(block: Block): boolean {
  return importsOf(block.code).every((s) => NEUTRAL_PACKAGES.has(s) || s.startsWith('./')) && !/\bprocess\.|\bBuffer\b/.test(block.code);
}

describe('the tarball', () => {
  test('holds the built code, its declarations, README, LICENSE and docs, and nothing else', () => {
    // docs/performance/*.svg: the charts docs/performance.md shows, so its links work in the tarball too.
    const outside = packed.files.filter(
      (f) =>
        !/^(package\.json|README\.md|LICENSE|docs\/[\w.-]+\.md|docs\/performance\/[\w.-]+\.svg|dist\/bundle\/.+\.js|dist\/src\/.+\.d\.ts)$/.test(
          f,
        ),
    );
    assert.deepEqual(outside, [], 'files a user does not need');
    for (const doc of documents()) assert.ok(packed.files.includes(doc), `${doc} is in the tarball`);
    for (const [subpath, target] of Object.entries(exportsMap)) {
      const paths = typeof target === 'string' ? [target] : Object.values(target as Record<string, string>);
      for (const p of paths) assert.ok(packed.files.includes(p.replace(/^\.\//, '')), `${subpath} → ${p} is packed`);
    }
    assert.ok(packed.files.includes('dist/bundle/client/index.js'), 'janus-mcp/client is built');
    assert.ok(packed.files.includes('dist/src/client/index.d.ts'), 'janus-mcp/client has its types');
  });

  test('its metadata: license, repository, engines, optional peer dependencies for the schema libraries, OpenTelemetry and Redis', () => {
    const pkg = JSON.parse(readFileSync(join(nodeProject, 'node_modules', 'janus-mcp', 'package.json'), 'utf8')) as Record<string, any>;
    assert.equal(pkg.license, 'MIT');
    assert.match(pkg.repository?.url ?? '', /^git\+https:\/\//);
    assert.ok(pkg.engines?.node);
    for (const lib of ['zod', 'valibot', 'arktype', '@valibot/to-json-schema', '@opentelemetry/api', 'redis']) {
      assert.ok(pkg.peerDependencies?.[lib], `peer dependency ${lib}`);
      assert.equal(pkg.peerDependenciesMeta?.[lib]?.optional, true, `${lib} is optional`);
    }
    assert.match(readFileSync(join(nodeProject, 'node_modules', 'janus-mcp', 'LICENSE'), 'utf8'), /MIT License/);
  });

  test('the shipped declarations carry no @internal member', () => {
    const withInternal = packed.files.filter(
      (f) => f.endsWith('.d.ts') && readFileSync(join(nodeProject, 'node_modules', 'janus-mcp', f), 'utf8').includes('@internal'),
    );
    assert.deepEqual(withInternal, []);
  });

  test('the runtime-neutral subpaths statically import no node: module', () => {
    for (const subpath of NEUTRAL) {
      const target = (exportsMap[`./${subpath.slice('janus-mcp/'.length)}`] as { import: string }).import;
      const { builtins } = staticImportGraph(join(nodeProject, 'node_modules', 'janus-mcp', target));
      assert.deepEqual([...builtins], [], `${subpath} reaches Node built-ins`);
    }
  });

  test('a server starts by reading a few bundled files, not every module (cold start: Node pays per file)', () => {
    const files = new Set<string>();
    for (const subpath of ['./server', './http', './stdio']) {
      const target = (exportsMap[subpath] as { import: string }).import;
      for (const f of staticImportGraph(join(nodeProject, 'node_modules', 'janus-mcp', target)).files) files.add(f);
    }
    // 114 modules before scripts/bundle.ts; 20 files (entries and shared chunks) when it was written,
    // 32 once the extensions, the errors and the SPI got subpaths of their own (esbuild then splits
    // the shared code into finer chunks, most of them a few hundred bytes).
    assert.ok(files.size <= 34, `janus-mcp/server, /http and /stdio statically import ${files.size} files`);
    assert.ok(
      [...files].every((f) => f.includes(`${join('janus-mcp', 'dist', 'bundle')}`)),
      'only bundled files are imported',
    );
  });
});

describe('in a user project', () => {
  test('every subpath the README and docs/ use (and every exported one) imports by package name', async () => {
    const used = new Set(blocks.flatMap((b) => importsOf(b.code)).filter((s) => s.startsWith('janus-mcp')));
    const exported = Object.keys(exportsMap)
      .filter((k) => k !== './package.json')
      .map((k) => `janus-mcp/${k.slice(2)}`);
    for (const s of used) assert.ok(exported.includes(s), `${s}, used in the docs, is exported`);
    const script = `for (const s of ${JSON.stringify(exported)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing'); }`;
    await run(process.execPath, ['--input-type=module', '-e', script], { cwd: nodeProject });
  });

  test('the janus-mcp command is installed as a bin (docs/cli.md: npx janus-mcp VERB …) and runs', async () => {
    const installed = join(nodeProject, 'node_modules', 'janus-mcp');
    const { version } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { version: string };
    const { stdout } = await run(join(nodeProject, 'node_modules', '.bin', 'janus-mcp'), ['--version'], { cwd: nodeProject });
    assert.equal(stdout, `${version}\n`);
    const help = await run('npx', ['--no-install', 'janus-mcp', 'list', '--help'], { cwd: nodeProject });
    assert.match(help.stdout, /^Usage: janus-mcp list /);
  });

  test('every TypeScript block of the README and docs/ type-checks (strict, NodeNext, with @types/node)', async () => {
    const where = writeBlocks(nodeProject, blocks);
    writeTsConfig(nodeProject, { nodeTypes: true, outDir: 'out' });
    assert.deepEqual(await typeCheck(nodeProject, where), []);
  });

  test("without @types/node: the neutral subpaths' declarations and every block that uses only them type-check", async () => {
    const neutral = blocks.filter(isNeutral);
    const where = writeBlocks(webProject, neutral);
    const probe = `${NEUTRAL.map((s, i) => `import * as m${i} from '${s}';`).join('\n')}\nexport const all = [${NEUTRAL.map((_, i) => `m${i}`).join(', ')}];\n`;
    writeFileSync(join(webProject, 'snippets', 'neutral-entries.ts'), probe);
    writeTsConfig(webProject, { nodeTypes: false });
    assert.deepEqual(await typeCheck(webProject, where), []);
    assert.ok(
      neutral.some((b) => importsOf(b.code).includes('janus-mcp/fetch')),
      'the docs show the fetch handler in neutral code',
    );
  });

  test("with TypeScript 7's defaults (no `types`, so no @types package) and no @types/node: the neutral subpaths' declarations type-check", async () => {
    const probe = `${NEUTRAL.map((s, i) => `import * as m${i} from '${s}';`).join('\n')}\nexport const all = [${NEUTRAL.map((_, i) => `m${i}`).join(', ')}];\n`;
    writeFileSync(join(webProject, 'snippets', 'neutral-entries.ts'), probe);
    const config = writeTs7DefaultConfig(webProject, ['snippets/neutral-entries.ts']);
    assert.ok(Number(installedVersion('typescript').split('.')[0]) >= 7, 'the repository type-checks with TypeScript 7 or later');
    assert.deepEqual(await typeCheck(webProject, new Map(), config), []);
  });
});

describe('schema libraries as installed', () => {
  test('with zod 4.0 installed (no Standard JSON Schema of its own), a tool registers, publishes its descriptions and validates', async () => {
    const script = `
      import { createServer } from 'janus-mcp/server';
      import { connectInMemory } from 'janus-mcp/testing';
      import { z } from 'zod';
      const server = createServer({ name: 'old-zod', version: '1' });
      server.tool('greet', { input: z.object({ name: z.string().describe('who to greet') }) }, ({ name }) => 'hi ' + name);
      const { client, close } = await connectInMemory(server);
      const [tool] = (await client.listTools()).tools;
      const good = await client.callTool('greet', { name: 'Ada' });
      const bad = await client.callTool('greet', { name: 1 });
      console.log(JSON.stringify({ schema: tool.inputSchema, good: good.content, bad: bad.isError }));
      await close();`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: oldZodProject });
    const out = JSON.parse(stdout) as { schema: { properties: { name: { description?: string } } }; good: unknown; bad: boolean };
    assert.equal(out.schema.properties.name.description, 'who to greet');
    assert.deepEqual(out.good, [{ type: 'text', text: 'hi Ada' }]);
    assert.equal(out.bad, true);
    const installed = JSON.parse(readFileSync(join(oldZodProject, 'node_modules', 'zod', 'package.json'), 'utf8')) as { version: string };
    assert.equal(installed.version, '4.0.17');
  });
});

describe('OpenTelemetry, an optional peer dependency', () => {
  test('not installed: every other subpath loads, and janus-mcp/otel fails naming @opentelemetry/api', async () => {
    // The zod 4.0 project has janus-mcp and zod only: npm installs no optional peer.
    const others = Object.keys(exportsMap)
      .filter((k) => k !== './package.json' && k !== './otel' && k !== './redis')
      .map((k) => `janus-mcp/${k.slice(2)}`);
    const script = `for (const s of ${JSON.stringify(others)}) await import(s);
      try { await import('janus-mcp/otel'); console.log('loaded'); } catch (e) { console.log(e.code, e.message); }`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: oldZodProject });
    assert.match(stdout, /^ERR_MODULE_NOT_FOUND .*'@opentelemetry\/api'/);
  });
});

describe('Redis, an optional peer dependency', () => {
  test('not installed: every other subpath loads, and janus-mcp/redis fails naming redis', async () => {
    // The zod 4.0 project has janus-mcp and zod only: npm installs no optional peer.
    const others = Object.keys(exportsMap)
      .filter((k) => k !== './package.json' && k !== './otel' && k !== './redis')
      .map((k) => `janus-mcp/${k.slice(2)}`);
    const script = `for (const s of ${JSON.stringify(others)}) await import(s);
      try { await import('janus-mcp/redis'); console.log('loaded'); } catch (e) { console.log(e.code, e.message); }`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: oldZodProject });
    assert.match(stdout, /^ERR_MODULE_NOT_FOUND .*'redis'/);
  });
});

describe('docs/, run as written', () => {
  test('every block named *.test.ts passes under node --test', async () => {
    const tests = blocks.filter((b) => b.name.endsWith('.test.ts'));
    assert.ok(
      tests.some((b) => b.doc === 'docs/testing.md'),
      'docs/testing.md shows tests',
    );
    const files = tests.map((b) => join(nodeProject, 'out', snippetDir(b.doc).slice('snippets/'.length), b.name.replace(/\.ts$/, '.js')));
    await run(process.execPath, ['--test', ...files], { cwd: nodeProject, timeout: 120_000 });
  });
});
