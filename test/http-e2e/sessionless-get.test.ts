/**
 * The server half of the re-initialize race: a GET without `Mcp-Session-Id` whose
 * Accept names text/event-stream is the deprecated HTTP+SSE endpoint, as 2024-11-05 clients
 * expect (2024-11-05 transports §HTTP with SSE). A client that names a later revision in
 * `MCP-Protocol-Version` (a header 2024-11-05 clients never send) lost or has not yet got its
 * session: it gets 400, as a POST without the header does (2025-11-25 transports §Session
 * Management item 2), not an HTTP+SSE session it cannot use.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpPeer, serve } from './support.js';

test('a GET without a session: HTTP+SSE for 2024-11-05 clients; 400 for a client that names a Streamable HTTP revision', async () => {
  const s = await serve();
  try {
    const old = await new HttpPeer(s.url, '2024-11-05').get();
    assert.equal(old.status, 200);
    assert.equal((await old.next()).event, 'endpoint');
    assert.equal(s.sessions.size, 1);
    old.abort();

    for (const v of ['2025-06-18', '2025-11-25']) {
      const r = await new HttpPeer(s.url, v).get({ 'mcp-protocol-version': v });
      assert.equal(r.status, 400, v);
      assert.match(await r.text(), /Mcp-Session-Id/);
    }
    const named = await new HttpPeer(s.url, '2024-11-05').get({ 'mcp-protocol-version': '2024-11-05' });
    assert.equal(named.status, 200, 'naming 2024-11-05 itself is still HTTP+SSE');
    named.abort();
  } finally {
    await s.close();
  }
});
