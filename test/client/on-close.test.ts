/**
 * `client.onClose`: the connection's end, with its reason: a stdio server that exits (a
 * ProcessChannelError with its exit code), a message transport whose other end closes, and the
 * client's own `close()` (no reason).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { ProcessChannelError } from '../../src/errors/index.js';
import { createServer } from '../../src/server/index.js';
import { createMemoryPair } from '../../src/testing/index.js';
import { fixture } from '../support/common.js';
import { deferred } from '../support/wait.js';

test('client.onClose: a stdio server that exits gives a ProcessChannelError with its exit code', { timeout: 30_000 }, async () => {
  const client = await connect({ command: process.execPath, args: [fixture('proxy', 'upstream-stdio.js')], stderr: 'ignore' });
  const closed = deferred<Error | undefined>();
  client.onClose((error) => closed.resolve(error));
  try {
    await client.callTool('crash', {});
    const error = await closed.promise;
    assert.ok(error instanceof ProcessChannelError, String(error));
    assert.equal(error.exitCode, 3);
  } finally {
    await client.close();
  }
});

test('client.onClose: the other end of a message transport closing gives a reason; close() gives none, once', async () => {
  const server = createServer({ name: 'closing', version: '1.0.0' });
  server.tool('noop', () => 'ok');
  const [clientSide, serverSide] = createMemoryPair();
  const connection = await server.connect(serverSide);
  const client = await connect(clientSide, { protocolVersion: '2025-11-25' });
  const reasons: Array<Error | undefined> = [];
  const gone = deferred();
  client.onClose((error) => (reasons.push(error), gone.resolve()));
  await connection.close();
  await gone.promise;
  assert.equal(reasons.length, 1);
  assert.ok(reasons[0] instanceof Error);
  await client.close();
  assert.equal(reasons.length, 1, 'the channel had already ended');

  const [c2, s2] = createMemoryPair();
  await server.connect(s2);
  const other = await connect(c2, { protocolVersion: '2026-07-28' });
  const seen: Array<Error | undefined> = [];
  const removed: Array<Error | undefined> = [];
  other.onClose((error) => seen.push(error));
  other.onClose((error) => removed.push(error))();
  await other.close();
  assert.deepEqual(seen, [undefined]);
  assert.deepEqual(removed, [], 'a removed listener hears nothing');
});
