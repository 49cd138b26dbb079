/**
 * docs/deployment.md, "An npm package that hosts start with npx": the page's package.json,
 * tsconfig.json and src/server.ts in a temporary folder, depending on Janus's own packed tarball,
 * installed, packed with `npm pack` (its prepack builds it with tsc), then started as a host
 * starts it, `npx -y <tarball>` over stdio, by the Janus client.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { packFreshClone, run } from '../package/support.js';
import { writePackage } from './support.js';

const work = mkdtempSync(join(tmpdir(), 'janus-npx-'));
after(() => rmSync(work, { recursive: true, force: true }));

const npmEnv = {
  ...process.env,
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  npm_config_prefer_offline: 'true',
};

test('the packed server runs as `npx -y ./<tarball>` and a client lists and calls its tool over stdio', { timeout: 900_000 }, async () => {
  const janus = await packFreshClone(work);
  const project = join(work, 'my-mcp-server');
  writePackage(project, janus.tarball);
  await run('npm', ['install', '--loglevel=error'], { cwd: project, env: npmEnv });
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: project, env: npmEnv });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.lastIndexOf('\n[') + 1)) as Array<{
    filename: string;
    files: Array<{ path: string; mode: number }>;
  }>;
  // `files` keeps the sources out; prepack built dist/server.js.
  assert.deepEqual(info!.files.map((f) => f.path).sort(), ['dist/server.js', 'package.json']);

  // A host's command, npx -y <package>, with the tarball as the package, as the page runs it
  // before publishing: `./<file>` beside it (an absolute path needs `file:`, or npx runs the file).
  const client = await connect(
    { command: 'npx', args: ['-y', `./${info!.filename}`], cwd: work, env: npmEnv, stderr: 'pipe' },
    { startTimeoutMs: 240_000 },
  );
  try {
    assert.equal(client.serverInfo?.name, 'my-mcp-server');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['add_note'],
    );
    const result = await client.callTool('add_note', { text: 'from npx' });
    assert.deepEqual(result.content, [{ type: 'text', text: '1 note(s)' }]);
  } finally {
    await client.close();
  }
});
