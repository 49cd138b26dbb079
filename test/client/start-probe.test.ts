/**
 * Era detection over stdio is not fooled by a slow start (docs/2026-07-28/basic/transports/
 * stdio.mdx §Backward Compatibility: a server that "does not respond within a reasonable
 * timeout" is legacy). The probe's clock starts at the server's first sign of life: a
 * `ping` follows server/discover after a second without an answer (legacy revisions allow
 * it before initialize, basic/lifecycle.mdx), and the first message back starts
 * `probeTimeoutMs`; until then the probe waits up to `startTimeoutMs`. Real child processes
 * that sleep before they read stdin, as servers behind npx or tsx do.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JanusError } from '../../src/errors/index.js';
import { connect } from '../../src/client/index.js';
import { FIXTURE_INFO } from '../fixtures/client-server/server.js';
import { fixture, pidAlive } from '../support/common.js';
import { SILENT_LEGACY, spawnFixture, textOf } from './helpers.js';

const SLOW_START = fixture('client-raw', 'slow-start.js');

// Each test waits on its own child for seconds; none shares anything with another, so they run
// side by side (their bounds are on each one's own clock).
describe('stdio start-up probe against slow and silent children', { concurrency: true }, () => {
  test('a modern server that needs 10 s to start is detected as modern, with the default timeouts', async () => {
    const { channel } = spawnFixture(SLOW_START, { SLOW_START_MS: '10000', SLOW_START_AS: 'modern' });
    const started = Date.now();
    const client = await connect(channel);
    try {
      assert.ok(Date.now() - started >= 10_000, 'connected before the server could have read anything');
      assert.equal(client.era, 'modern', 'a clock counting from the spawn (3 s) would have decided "legacy"');
      assert.equal(client.protocolVersion, '2026-07-28');
      assert.deepEqual(client.serverInfo, FIXTURE_INFO);
      assert.equal(textOf(await client.callTool('echo', { text: 'late' })), 'echo: late');
    } finally {
      await client.close();
    }
  });

  test('a silent legacy server that needs 3 s to start is detected as legacy, then initialized with the newest revision', async () => {
    const { channel } = spawnFixture(SLOW_START, { SLOW_START_MS: '3000', SLOW_START_AS: 'silent-legacy' });
    const started = Date.now();
    const client = await connect(channel, { probeTimeoutMs: 500 });
    try {
      assert.ok(Date.now() - started >= 3000 + 500, 'decided before the running server had probeTimeoutMs to answer');
      assert.equal(client.era, 'legacy');
      assert.equal(client.protocolVersion, '2025-11-25');
      assert.deepEqual(client.serverInfo, { name: 'silent-legacy', version: '0.0.1' });
      // What it read, in order: the probe, the ping that showed it alive, then the handshake.
      const seen = JSON.parse(textOf(await client.callTool('received'))) as string[];
      assert.deepEqual(
        seen.filter((m) => m !== 'notifications/cancelled'),
        ['server/discover', 'ping', 'initialize', 'notifications/initialized', 'tools/call'],
      );
    } finally {
      await client.close();
    }
  });

  test('the silent legacy server connects in bounded time with the default probe: the ping answer, not startTimeoutMs, ends the wait', async () => {
    const { channel } = spawnFixture(SILENT_LEGACY);
    const started = Date.now();
    const client = await connect(channel, { startTimeoutMs: 60_000 });
    try {
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 3000, `decided after ${elapsed} ms, before probeTimeoutMs (3000) had passed`);
      assert.ok(elapsed < 20_000, `took ${elapsed} ms: the wait was not ended by the sign of life`);
      assert.equal(client.era, 'legacy');
      assert.equal(client.protocolVersion, '2025-11-25');
    } finally {
      await client.close();
    }
  });

  test('a server that never reads and never answers: a TIMEOUT naming initialize, server/discover and ping, and the durations, within the bounds', async () => {
    const { channel, child } = spawnFixture(SLOW_START, { SLOW_START_AS: 'nothing' });
    const started = Date.now();
    await assert.rejects(connect(channel, { startTimeoutMs: 500, timeoutMs: 500 }), (e: unknown) => {
      assert.ok(e instanceof JanusError && e.code === 'TIMEOUT', `got ${String(e)}`);
      assert.match(
        e.message,
        /^initialize timed out: the server sent nothing at all, no answer to server\/discover or ping in the \d+ ms after it was started, then none to initialize within 500 ms\./,
      );
      assert.match(e.message, /raise startTimeoutMs and timeoutMs/);
      assert.ok(e.cause instanceof JanusError, 'the initialize timeout is the cause');
      return true;
    });
    // 0.5 s start bound + 0.5 s initialize, then close() (stdin EOF, 2 s, SIGTERM): generous for a loaded machine.
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.equal(pidAlive(child.pid!), false, 'the failed connect ended the child');
  });
});
