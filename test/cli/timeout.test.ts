/**
 * The command's timeout message names its own flag (`--timeout`), not the library's option
 * (`timeoutMs`), while the library keeps naming its option. Against an HTTP server on 127.0.0.1
 * that takes requests and never answers.
 */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { JanusError } from '../../src/errors/index.js';
import { runCli } from './support.js';

const held = new Set<ServerResponse>();
const silent = createServer((req, res) => {
  req.resume();
  held.add(res);
});
let url: string;
before(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
});
after(async () => {
  for (const res of held) res.destroy();
  silent.closeAllConnections();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

test('janus-mcp: a request that times out says to raise --timeout', async () => {
  const r = await runCli(['discover', url, '--timeout', '1']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /timed out/);
  assert.match(r.stderr, /raise --timeout SECONDS/);
  assert.doesNotMatch(r.stderr, /timeoutMs/);
});

test('the library: the same timeout names its option, timeoutMs', async () => {
  const error = await connect(url, { timeoutMs: 500 }).then(
    () => assert.fail('connected to a server that never answers'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof JanusError && error.code === 'TIMEOUT', String(error));
  assert.match(error.message, /raise timeoutMs/);
});
