/**
 * Session limits per client address (without them, one client that
 * opened 10,000 sessions in 2.7 s left every other client's initialize at 503 for up to 30
 * minutes). One address holds at most `maxSessionsPerClient` sessions (429 beyond, with a
 * JSON-RPC error naming the limit); the server as a whole holds `maxSessions` (503, naming that
 * limit). Both the 2025 Streamable HTTP sessions and the 2024-11-05 HTTP+SSE ones count.
 *
 * All traffic here comes from 127.0.0.1, so the tests tell clients apart with `clientAddress`
 * reading a test header, as a deployment behind a proxy would read X-Forwarded-For.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { clientKey } from '../../src/transports/http/legacy/sessions.js';
import { createFetchHandler } from '../../src/transports/http/index.js';
import { JSON_HEADERS } from '../support/http.js';
import { HttpPeer, serve, type Outcome } from './support.js';

const byHeader = (req: IncomingMessage) => req.headers['x-test-client']?.toString();

function initialize(peer: HttpPeer, client: string): Promise<Outcome> {
  return peer.request(
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: client, version: '1' } },
    { headers: { 'x-test-client': client } },
  );
}

test('one address holds at most maxSessionsPerClient sessions (429 naming the limit); other addresses still get theirs', async () => {
  const s = await serve(createEverythingServer(), { maxSessionsPerClient: 3, clientAddress: byHeader });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await initialize(new HttpPeer(s.url, '2025-11-25'), '203.0.113.7')).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const refused = await initialize(new HttpPeer(s.url, '2025-11-25'), '203.0.113.7');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['mcp-session-id'], undefined);
    assert.equal(refused.messages[0]?.error?.code, -32600);
    assert.match(String(refused.messages[0]?.error?.message), /maxSessionsPerClient/);
    assert.match(String(refused.messages[0]?.error?.message), /\b3\b/);

    // Another client is not affected.
    const other = await initialize(new HttpPeer(s.url, '2025-11-25'), '198.51.100.1');
    assert.equal(other.status, 200);

    // An HTTP+SSE (2024-11-05) stream counts as a session of its address too.
    const sse = await new HttpPeer(s.url, '2024-11-05').get({ 'x-test-client': '203.0.113.7' });
    assert.equal(sse.status, 429);
    await sse.text();
    const sseOther = await new HttpPeer(s.url, '2024-11-05').get({ 'x-test-client': '198.51.100.2' });
    assert.equal(sseOther.status, 200);
    sseOther.abort();
  } finally {
    await s.close();
  }
});

test('a DELETE gives the address its room back', async () => {
  const s = await serve(createEverythingServer(), { maxSessionsPerClient: 1, clientAddress: byHeader });
  try {
    const first = new HttpPeer(s.url, '2025-11-25');
    const o = await initialize(first, '203.0.113.9');
    first.sessionId = o.headers['mcp-session-id'] as string;
    assert.equal((await initialize(new HttpPeer(s.url, '2025-11-25'), '203.0.113.9')).status, 429);
    assert.equal((await first.send({ method: 'DELETE', headers: first.sessionHeaders() })).status, 200);
    assert.equal((await initialize(new HttpPeer(s.url, '2025-11-25'), '203.0.113.9')).status, 200);
  } finally {
    await s.close();
  }
});

test('the server-wide limit answers 503 naming maxSessions', async () => {
  const s = await serve(createEverythingServer(), { maxSessions: 2, clientAddress: byHeader });
  try {
    assert.equal((await initialize(new HttpPeer(s.url, '2025-11-25'), 'a')).status, 200);
    assert.equal((await initialize(new HttpPeer(s.url, '2025-11-25'), 'b')).status, 200);
    const full = await initialize(new HttpPeer(s.url, '2025-11-25'), 'c');
    assert.equal(full.status, 503);
    assert.match(String(full.messages[0]?.error?.message), /maxSessions\b/);
  } finally {
    await s.close();
  }
});

test('concurrent handshakes from one address cannot overshoot the limit: a session counts from its initialize on', async () => {
  const s = await serve(createEverythingServer(), { maxSessionsPerClient: 5, clientAddress: byHeader });
  try {
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => initialize(new HttpPeer(s.url, '2025-11-25'), '203.0.113.20')));
    const statuses = outcomes.map((o) => o.status).sort();
    assert.equal(statuses.filter((x) => x === 200).length, 5);
    assert.equal(statuses.filter((x) => x === 429).length, 15);
    assert.equal(s.sessions.size, 5);
  } finally {
    await s.close();
  }
});

test('by default the socket address counts, except loopback peers (this machine, or a reverse proxy speaking for everyone)', async () => {
  const s = await serve(createEverythingServer(), { maxSessionsPerClient: 2 });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await initialize(new HttpPeer(s.url, '2025-11-25'), 'x')).status);
    assert.deepEqual(statuses, [200, 200, 200, 200]);
  } finally {
    await s.close();
  }
});

test('the fetch handler counts clients by its clientAddress option', async () => {
  const s = await serve();
  const handler = createFetchHandler(s.server, {
    maxSessionsPerClient: 1,
    clientAddress: (request) => request.headers.get('x-test-client') ?? undefined,
  });
  const init = (client: string) =>
    handler(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'x-test-client': client },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'f', version: '1' } },
        }),
      }),
    );
  try {
    assert.equal((await init('203.0.113.1')).status, 200);
    const refused = await init('203.0.113.1');
    assert.equal(refused.status, 429);
    assert.match(await refused.text(), /maxSessionsPerClient/);
    assert.equal((await init('203.0.113.2')).status, 200);
  } finally {
    await handler.close();
    await s.close();
  }
});

test('clientKey: IPv4 as is (also mapped into IPv6), IPv6 by its /64', () => {
  assert.equal(clientKey('203.0.113.7'), '203.0.113.7');
  assert.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientKey(undefined), undefined);
  assert.equal(clientKey(''), undefined);
});
