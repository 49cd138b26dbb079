/**
 * Client ↔ this project's server over a real stdio child process
 * (test/fixtures/client-server/stdio.ts, served with serveStdio), one child per revision
 * with the client pinned. stdio framing per docs/<rev>/basic/transports.mdx; on 2026-07-28
 * stdio, cancellation MUST be a notifications/cancelled (basic/transports/stdio.mdx), which
 * the server handler sees as ctx.signal aborting.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { asks, cancellation, completion, elicitationDefaults, features, progress } from './battery.js';
import { MODERN, REVISIONS, pidAlive } from '../support/common.js';
import { FIXTURE_STDIO, askHandlers, hasElicitation, spawnFixture } from './helpers.js';

for (const rev of REVISIONS) {
  test(`[${rev}] stdio child: pinned round trips, progress, cancellation and the ask handlers`, async (t) => {
    const { channel, child } = spawnFixture(FIXTURE_STDIO);
    const h = askHandlers();
    const client = await connect(channel, { protocolVersion: rev, ...h.options });
    try {
      assert.equal(client.transportKind, 'stdio');
      await t.test('era, version and features', () => features(client, rev));
      // 2024-11-05 completion is pinned by the memory suite (the server answers -32601 there).
      if (rev !== '2024-11-05') await t.test('completion/complete', () => completion(client));
      await t.test('progress reaches onProgress and resets the timeout', () => progress(client, rev));
      await t.test(`AbortSignal → notifications/cancelled → ctx.signal aborts (${rev === MODERN ? 'modern' : 'legacy'} stdio)`, () =>
        cancellation(client),
      );
      await t.test(rev === MODERN ? 'handlers answer input_required rounds' : 'handlers answer server-to-client requests', () =>
        asks(client, rev, h),
      );
      if (hasElicitation(rev)) await t.test('accepting with {} sends the schema defaults', () => elicitationDefaults(client, h));
    } finally {
      await client.close();
    }
    assert.equal(pidAlive(child.pid!), false, `child ${child.pid} still running after close()`);
  });
}
