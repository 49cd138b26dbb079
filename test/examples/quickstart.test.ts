/**
 * The README's examples run as written (examples/quickstart mirrors them): the greeter over
 * stdio and over HTTP, reached by the quickstart client in each era it detects.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dist = (p: string) => path.join(root, 'dist/examples/quickstart', p);

test('README quickstart: the client spawns the stdio greeter, detects the modern era and gets an elicited greeting', async () => {
  const { stdout } = await run(process.execPath, [dist('client.js'), `${process.execPath} ${dist('stdio.js')}`], { cwd: root, timeout: 20_000 });
  assert.match(stdout, /^modern 2026-07-28$/m);
  assert.match(stdout, /hello Ada/);
});

test('README quickstart: the same greeter over HTTP (serveHttp) answers the same client', async () => {
  const server = spawn(process.execPath, [dist('http.js')], { cwd: root, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    let banner = '';
    server.stderr!.setEncoding('utf8');
    while (!/greeter on (\S+)/.test(banner)) {
      const [chunk] = (await once(server.stderr!, 'data')) as [string];
      banner += chunk;
    }
    const url = /greeter on (\S+)/.exec(banner)![1]!;
    const { stdout } = await run(process.execPath, [dist('client.js'), url], { cwd: root, timeout: 20_000 });
    assert.match(stdout, /^modern 2026-07-28$/m);
    assert.match(stdout, /hello Ada/);
  } finally {
    server.kill('SIGTERM');
  }
});
