/**
 * The public API is pinned: every subpath of package.json `exports` declares exactly the names
 * in test/package/exports.json, values and types apart. Adding or removing a public name is a
 * visible, reviewed diff of that file; to accept one, run the test with JANUS_UPDATE_EXPORTS=1,
 * then `npm run format` (the file is kept in Biome's style), and commit what it wrote.
 *
 * The names are read from the declarations the package ships (dist/src/**\/*.d.ts, what a
 * user's compiler sees), following `export … from` and `export *` to where each name is declared.
 * The layers of that surface: `server` and `client` are the authoring API; `spi` holds what
 * transport, cluster and extension authors need; `errors` is where every error comes from.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { findRepoRoot } from '../support/wire-schema.js';

interface Surface {
  readonly values: string[];
  readonly types: string[];
}

const root = findRepoRoot()!;
const SNAPSHOT = join(root, 'test/package/exports.json');

/** A declaration file's exported names: what it declares itself, and what it re-exports. */
function namesOf(file: string, seen = new Set<string>()): { values: Set<string>; types: Set<string> } {
  const values = new Set<string>();
  const types = new Set<string>();
  if (seen.has(file)) return { values, types };
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const from = (spec: string) => resolve(dirname(file), spec.replace(/\.js$/, '.d.ts'));
  // export { a, type b, c as d } [from './x.js'];   export type { e } [from './y.js'];
  for (const m of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}(?:\s*from\s*['"]([^'"]+)['"])?/g)) {
    const typeOnly = m[1] !== undefined;
    const source = m[3] === undefined ? undefined : namesOf(from(m[3]), new Set(seen));
    for (const raw of m[2]!.split(',')) {
      const part = raw.trim();
      if (part === '') continue;
      const isType = typeOnly || part.startsWith('type ');
      const [local, exported] = part.replace(/^type\s+/, '').split(/\s+as\s+/);
      const name = (exported ?? local)!.trim();
      // A name re-exported without `type` is a value only if its source declares one.
      const value = !isType && (source === undefined ? isLocalValue(text, local!.trim(), from, seen) : source.values.has(local!.trim()));
      (value ? values : types).add(name);
    }
  }
  for (const m of text.matchAll(/export\s+\*\s+from\s+['"]([^'"]+)['"]/g)) {
    const inner = namesOf(from(m[1]!), new Set(seen));
    for (const v of inner.values) values.add(v);
    for (const t of inner.types) types.add(t);
  }
  for (const m of text.matchAll(/export\s+declare\s+(?:abstract\s+)?(?:function|class|const|let|var|enum)\s+([A-Za-z_$][\w$]*)/g))
    values.add(m[1]!);
  for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:interface|type)\s+([A-Za-z_$][\w$]*)/g)) types.add(m[1]!);
  // A class is a type too, but it is listed once, as a value.
  for (const v of values) types.delete(v);
  return { values, types };
}

/** Whether `name`, exported by a local `export { … }`, is a value: declared here as one, or imported from a module that exports one. */
function isLocalValue(text: string, name: string, from: (spec: string) => string, seen: Set<string>): boolean {
  if (new RegExp(`declare\\s+(?:abstract\\s+)?(?:function|class|const|let|var|enum)\\s+${name}\\b`).test(text)) return true;
  for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
    if (m[1] !== undefined) continue;
    const imported = m[2]!.split(',').map((p) => p.trim().replace(/^type\s+/, ''));
    const hit = imported.find((p) => (p.split(/\s+as\s+/)[1] ?? p).trim() === name);
    if (hit !== undefined) return namesOf(from(m[3]!), new Set(seen)).values.has(hit.split(/\s+as\s+/)[0]!.trim());
  }
  return false;
}

function surface(): Record<string, Surface> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { types?: string }> };
  const out: Record<string, Surface> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string' || target.types === undefined) continue;
    const file = join(root, target.types);
    assert.ok(existsSync(file), `${subpath}: ${target.types} is not built (npm run build)`);
    const { values, types } = namesOf(file);
    out[`janus-mcp${subpath.slice(1)}`] = { values: [...values].sort(), types: [...types].sort() };
  }
  return out;
}

test('every subpath exports exactly the reviewed names (test/package/exports.json)', () => {
  const actual = surface();
  if (process.env.JANUS_UPDATE_EXPORTS === '1') {
    writeFileSync(SNAPSHOT, `${JSON.stringify(actual, null, 2)}\n`);
    return;
  }
  assert.ok(existsSync(SNAPSHOT), 'test/package/exports.json is missing: run with JANUS_UPDATE_EXPORTS=1 and review it');
  const expected = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, Surface>;
  const diff: string[] = [];
  for (const subpath of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    for (const kind of ['values', 'types'] as const) {
      const want = new Set(expected[subpath]?.[kind] ?? []);
      const got = new Set(actual[subpath]?.[kind] ?? []);
      for (const n of got) if (!want.has(n)) diff.push(`+ ${subpath} ${kind}: ${n}`);
      for (const n of want) if (!got.has(n)) diff.push(`- ${subpath} ${kind}: ${n}`);
    }
  }
  assert.deepEqual(diff, [], 'the public API changed: review, then accept with JANUS_UPDATE_EXPORTS=1');
});

test('the authoring API and the SPI are apart, and errors come from one place', () => {
  const api = surface();
  const errors = new Set(api['janus-mcp/errors']!.values);
  for (const name of ['McpError', 'JanusError', 'ErrorCode', 'ToolError', 'ChannelError']) assert.ok(errors.has(name), name);
  for (const [subpath, { values }] of Object.entries(api)) {
    if (subpath === 'janus-mcp/errors') continue;
    const stray = values.filter((v) => errors.has(v));
    assert.deepEqual(stray, [], `${subpath} exports errors, which come from janus-mcp/errors`);
  }
  const server = new Set([...api['janus-mcp/server']!.values, ...api['janus-mcp/server']!.types]);
  for (const seam of ['coreOf', 'ServerCore', 'Inbound', 'Cluster', 'Backplane', 'ServerExtension', 'StoreKey', 'errorCodeFor']) {
    assert.ok(!server.has(seam), `janus-mcp/server exports ${seam}, which is the SPI's`);
  }
});
