/**
 * Redis unreachable at start (docs/scale-out.md §Failure behaviour: it fails fast, with a clear error):
 * `redisCluster` rejects well within its connect timeout with a `JanusError` naming the URL
 * (not its password) and what to check, and leaves nothing running that keeps the process alive.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from './support.js';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'unreachable.js');
const CONNECT_TIMEOUT_MS = 5000; // the default, which the fixture keeps
/** A refused connection is the answer: no waiting out the connect timeout for it. */
const FAST_MS = 1500;

test('redisCluster on a closed port rejects fast with a JanusError naming the URL without its password, and the process then exits by itself', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [FIXTURE, `redis://janus:hunter2@127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), CONNECT_TIMEOUT_MS + 5000);
  try {
    const code = await exited;
    assert.equal(code, 0, `the process exits by itself once redisCluster has rejected (output: ${out})`);
  } finally {
    clearTimeout(timer);
  }
  const result = JSON.parse(out) as { name: string; code: string; message: string; ms: number };
  assert.equal(result.name, 'JanusError');
  assert.equal(result.code, 'CONNECTION');
  assert.ok(result.ms < FAST_MS, `rejected after ${Math.round(result.ms)} ms`);
  assert.match(result.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
  assert.match(result.message, /redis-server/);
  assert.doesNotMatch(result.message, /hunter2/);
});
