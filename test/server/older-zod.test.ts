/**
 * Zod 4.0/4.1 and Zod 3.25's `zod/v4` predate Standard JSON Schema: their schemas are
 * converted by `toJSONSchema` from the user's `zod/v4/core`, loaded synchronously as the
 * same ES module instance the user imports (Zod 4.0 and 3.25 keep descriptions in a registry
 * per module instance, so the CommonJS copy would lose `zod/mini` descriptions).
 *
 * The child-process tests stand in for a project whose `zod` IS the older version: a
 * resolve hook (older-zod/resolve-zod.ts) sends every `zod` specifier to an alias package.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z as z40 } from 'zod-4.0';
import { createServer } from '../../src/server/index.js';
import { loadedZodCore } from '../../src/server/schema/older-zod.js';
import type { Msg } from '../support/common.js';

const run = promisify(execFile);
const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'older-zod');

test('zod/v4/core is loaded as the ES module instance that `import` gives, not a CommonJS copy', async () => {
  createServer({ name: 'older-zod', version: '1.0.0' }).tool('t', { input: z40.object({ a: z40.string() }) }, () => 'x');
  const imported = await import('zod/v4/core');
  assert.equal(loadedZodCore(), imported);
});

const PROJECTS = [
  { zod: 'zod-4.0', version: { major: 4, minor: 0, patch: 17 } },
  // Zod 3.25's zod/v4 calls itself 4.0.0.
  { zod: 'zod-3.25', version: { major: 4, minor: 0, patch: 0 } },
];

for (const { zod, version } of PROJECTS) {
  test(`a project on ${zod}: its own zod/v4/core converts, and both .describe() and zod/mini registry descriptions reach tools/list`, async () => {
    const { stdout } = await run(process.execPath, ['--import', join(fixtures, 'register.js'), join(fixtures, 'list-tools.js')], {
      env: { ...process.env, JANUS_TEST_ZOD: zod },
      timeout: 20_000,
    });
    const report = JSON.parse(stdout) as { inputSchema: Msg; coreVersion: unknown; sameInstance: boolean };
    assert.deepStrictEqual(report.coreVersion, version, "converted by the project's Zod");
    assert.equal(report.sameInstance, true, 'the ES module instance the project imports');
    const { properties, required, type } = report.inputSchema;
    assert.equal(type, 'object');
    assert.deepStrictEqual(required, ['name']);
    assert.equal(properties.name.description, 'Who to greet');
    assert.equal(properties.mood.description, 'How they feel', 'a zod/mini description lives in the global registry of the Zod instance');
  });
}
