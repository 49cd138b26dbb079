/**
 * `npm run docs:api`: builds the HTML API reference of every `exports` entry into
 * dist/docs-api with TypeDoc, failing on any warning (an undocumented export, a broken
 * `{@link}`, a public type that names one no entry exports).
 *
 * TypeDoc needs TypeScript's JavaScript API, which the root's TypeScript 7 (native) does not
 * have, so it is a tool of its own beside this file, installed from its own package-lock.json
 * with a TypeScript 6 (`npm ci --prefix scripts/api-docs`) when what is installed there is not
 * what that lock file pins.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Whether node_modules holds exactly the versions package-lock.json pins. */
function installed() {
  const lock = JSON.parse(readFileSync(join(here, 'package-lock.json'), 'utf8'));
  return Object.entries(lock.packages).every(([path, entry]) => {
    // The root entry is this folder; an optional package may be absent on this platform.
    if (path === '' || entry.optional) return true;
    const manifest = join(here, path, 'package.json');
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === entry.version;
  });
}

function run(command, args) {
  const { status, error } = spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (error) throw error;
  if (status !== 0) process.exit(status ?? 1);
}

if (!installed()) {
  console.log('docs:api: installing TypeDoc and its TypeScript into scripts/api-docs/node_modules');
  run('npm', ['ci', '--prefix', here, '--no-audit', '--no-fund']);
}
run(process.execPath, [
  join(here, 'node_modules', 'typedoc', 'bin', 'typedoc'),
  '--options',
  join(here, 'typedoc.json'),
  ...process.argv.slice(2),
]);
