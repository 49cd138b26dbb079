/**
 * Requests that used to get no proper answer:
 * - A 2026-07-28 `subscriptions/listen` from a client that accepts only JSON: its answer is a
 *   stream that never becomes one JSON object (streamable-http.mdx §Receiving Messages; §Sending
 *   Messages item 2: clients MUST accept both), so 406 at once, naming text/event-stream.
 * - A legacy request cancelled by notifications/cancelled gets no response
 *   (utilities/cancellation.mdx §Behavior Requirements), but its POST was a request, which is
 *   answered with an event stream or JSON and never 202 (2025-11-25 transports §Sending Messages
 *   items 4-5): the event stream ends without a response.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { MODERN } from '../support/common.js';
import { until } from '../support/wait.js';
import { HttpPeer, rpc, serve } from './support.js';

test('2026-07-28 subscriptions/listen with Accept: application/json only → 406 at once, naming text/event-stream', {
  timeout: 20_000,
}, async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const o = await peer.modern(
      'subscriptions/listen',
      { notifications: { toolsListChanged: true } },
      {
        id: 'l1',
        headers: { accept: 'application/json' },
      },
    );
    assert.equal(o.status, 406);
    assert.equal(o.kind, 'json');
    assert.equal(o.messages[0]?.id, 'l1');
    assert.match(String(o.messages[0]?.error?.message), /text\/event-stream/);
    assert.equal(s.core.hub.size, 0, 'no listen stream was opened');
    // With both media types it is the usual stream.
    const ok = await peer.openModern('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'l2' });
    assert.equal(ok.status, 200);
    assert.equal(ok.isSse, true);
    ok.abort();
    peer.assertClean();
  } finally {
    await s.close();
  }
});

function waitingServer(started: string[]) {
  const server = createServer({ name: 'waits', version: '1.0.0' });
  server.tool('wait', async (_args, ctx) => {
    started.push('wait');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'never sent';
  });
  return server;
}

for (const v of ['2025-06-18', '2025-11-25'] as const) {
  test(`${v}: a request cancelled by notifications/cancelled ends its POST's event stream without a response, never 202`, {
    timeout: 20_000,
  }, async () => {
    const started: string[] = [];
    const s = await serve(waitingServer(started));
    const peer = new HttpPeer(s.url, v);
    try {
      await peer.initialize();
      // Nothing precedes the result, so the answer has not started when the tool runs: no await here.
      const call = peer.open(rpc(5, 'tools/call', { name: 'wait', arguments: {} }));
      await until(() => started.length === 1, 'the tool to start');
      const cancelled = await peer.notify('notifications/cancelled', { requestId: 5, reason: 'user' });
      assert.equal(cancelled.status, 202);
      const o = await peer.finish(await call);
      assert.equal(o.status, 200);
      assert.equal(o.kind, 'sse', 'a request is answered with a stream (or JSON), not 202');
      assert.deepEqual(o.messages, [], 'no response for the cancelled request');
      assert.equal(o.events.length, v === '2025-11-25' ? 1 : 0, 'only the priming event of 2025-11-25');
      peer.assertClean();
    } finally {
      await s.close();
    }
  });
}
