/**
 * What the build without the handshake era is (`npm run build:modern-only`): no legacy folder
 * reached its output, each layer's registering file is the twin that registers nothing, and
 * the package has no subpath of that era. Run by `npm run test:modern-only` against that build
 * (modern-only/), never against the full one.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { HANDSHAKE_CLIENT } from '../../src/client/eras.js';
import { CORE_TASKS } from '../../src/extensions/tasks/eras.js';
import { LEGACY_STORES } from '../../src/redis/eras.js';
import { HANDSHAKE_ERA } from '../../src/server/eras.js';
import { LEGACY_ENDPOINT } from '../../src/transports/http/eras.js';
import { findRepoRoot } from '../support/wire-schema.js';

const root = findRepoRoot()!;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

test('this is the build without the handshake era: every layer registers none', () => {
  assert.equal(HANDSHAKE_ERA, undefined, 'server');
  assert.equal(LEGACY_ENDPOINT, undefined, 'HTTP transport');
  assert.equal(HANDSHAKE_CLIENT, undefined, 'client');
  assert.equal(CORE_TASKS, undefined, 'tasks extension');
  assert.equal(LEGACY_STORES, undefined, 'Redis');
});

test('no legacy/ folder reached the build, its bundle, or the package subpaths', () => {
  const built = walk(join(root, 'dist'));
  assert.deepEqual(
    built.filter((f) => f.includes('/legacy/')),
    [],
  );
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  assert.equal(pkg.exports['./spi/legacy'], undefined);
  // The handshake's own words are nowhere in the bundle.
  const bundle = walk(join(root, 'dist/bundle')).map((f) => readFileSync(f, 'utf8'));
  for (const phrase of ['Session not initialized', 'Mcp-Session-Id header is required', 'notifications/initialized first']) {
    assert.ok(!bundle.some((text) => text.includes(phrase)), `the bundle still says "${phrase}"`);
  }
  assert.ok(existsSync(join(root, 'dist/bundle/server/index.js')));
});
