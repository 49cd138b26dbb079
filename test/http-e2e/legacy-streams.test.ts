/**
 * Legacy Streamable HTTP streams with the real core (docs/<rev>/basic/transports.mdx):
 * - §Sending Messages item 6: notifications (progress, logs) and server-to-client requests
 *   of a request travel on that POST's SSE stream before its response; from 2025-11-25 the
 *   stream opens with a priming event (an id, `retry`, empty data).
 * - §Listening for Messages: the standalone GET stream carries unsolicited messages
 *   (list_changed, resources/updated).
 * - 2025-11-25 §Resumability and Redelivery / SSE polling: the server closes the connection
 *   after a priming event; GET + Last-Event-ID resumes the stream and delivers the result.
 * - Batches: answered in 2025-03-26 (docs/2025-03-26/changelog.mdx), refused with -32600 from
 *   2025-06-18 (docs/2025-06-18/changelog.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEverythingServer } from '../fixtures/everything/server.js';
import type { Msg } from '../support/common.js';
import { delay } from '../support/wait.js';
import { HttpPeer, nextMessage, rpc, serve, type SseEvent } from './support.js';

/** The events of a stream as [id present?, retry, message or '' for a priming event]. */
function shape(events: SseEvent[]): Array<[boolean, number | undefined, Msg | '']> {
  return events.map((e) => [e.id !== undefined, e.retry, e.message ?? (e.data as '')]);
}

for (const v of ['2025-03-26', '2025-11-25'] as const) {
  test(`${v}: progress notifications arrive on the POST's SSE stream before the result (§Sending Messages item 6${v === '2025-11-25' ? ', priming event first' : ''})`, async () => {
    const s = await serve();
    const peer = new HttpPeer(s.url, v);
    try {
      await peer.initialize();
      const o = await peer.request(
        'tools/call',
        { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'tok-1' } },
        { id: 7 },
      );
      assert.equal(o.status, 200);
      assert.equal(o.kind, 'sse');
      assert.equal(o.headers['x-accel-buffering'], 'no');
      const progress = (p: number) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok-1', progress: p, total: 100, message: `step ${p}` },
      });
      const messages: Array<[boolean, number | undefined, Msg | '']> = [
        [true, undefined, progress(0)],
        [true, undefined, progress(50)],
        [true, undefined, progress(100)],
        [true, undefined, { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'Progress test completed' }] } }],
      ];
      // Every revision's events carry resumable ids (an event store is on by default).
      assert.deepEqual(shape(o.events), v === '2025-11-25' ? [[true, 1000, ''], ...messages] : messages);
      peer.assertClean();
    } finally {
      await s.close();
    }
  });
}

test('2025-06-18: after logging/setLevel info, notifications/message precede the result on the POST stream; at warning none are sent (server/utilities/logging.mdx)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-06-18');
  try {
    await peer.initialize();
    const set = await peer.request('logging/setLevel', { level: 'info' }, { id: 2 });
    assert.deepEqual(set.messages, [{ jsonrpc: '2.0', id: 2, result: {} }]);
    const o = await peer.request('tools/call', { name: 'test_tool_with_logging', arguments: {} }, { id: 3 });
    const log = (data: string) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });
    assert.equal(o.kind, 'sse');
    assert.deepEqual(o.messages, [
      log('Tool execution started'),
      log('Tool processing data'),
      log('Tool execution completed'),
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'Logging test completed' }] } },
    ]);

    await peer.request('logging/setLevel', { level: 'warning' }, { id: 4 });
    const quiet = await peer.request('tools/call', { name: 'test_tool_with_logging', arguments: {} }, { id: 5 });
    assert.equal(quiet.kind, 'json', 'nothing precedes the result, so a plain JSON answer');
    assert.deepEqual(quiet.messages, [{ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'Logging test completed' }] } }]);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('2025-11-25: test_elicitation sends elicitation/create on the POST stream; the answer is POSTed back (202) and the result ends the original stream (client/elicitation.mdx)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-11-25');
  try {
    await peer.initialize({ elicitation: { form: {} } });
    const stream = await peer.open(rpc(9, 'tools/call', { name: 'test_elicitation', arguments: { message: 'Who are you?' } }));
    assert.equal(stream.status, 200);
    assert.equal(stream.isSse, true);
    const priming = await stream.next();
    assert.equal(priming.data, '');
    const ask = await nextMessage(stream);
    assert.deepEqual(ask, {
      jsonrpc: '2.0',
      id: ask.id,
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'Who are you?',
        requestedSchema: {
          type: 'object',
          properties: { username: { type: 'string', description: 'Your username' }, email: { type: 'string', description: 'Your email' } },
          required: ['username', 'email'],
        },
      },
    });
    const answer = await peer.post({
      jsonrpc: '2.0',
      id: ask.id,
      result: { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } },
    });
    assert.equal(answer.status, 202);
    assert.equal(answer.kind, 'empty');
    const rest = await stream.rest();
    assert.deepEqual(
      rest.map((e) => e.message),
      [
        {
          jsonrpc: '2.0',
          id: 9,
          result: {
            content: [{ type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' }],
          },
        },
      ],
    );
    peer.assertClean();
  } finally {
    await s.close();
  }
});

for (const v of ['2025-03-26', '2025-11-25'] as const) {
  test(`${v}: the standalone GET stream gets notifications/tools/list_changed when a tool is added, and resources/updated for a subscribed resource only (§Listening for Messages)`, async () => {
    const s = await serve();
    const peer = new HttpPeer(s.url, v);
    const get = await (async () => {
      await peer.initialize();
      return peer.get();
    })();
    try {
      assert.equal(get.status, 200);
      assert.equal(get.isSse, true);
      if (v === '2025-11-25') assert.equal((await get.next()).data, '', 'priming event first');
      s.server.tool('added_at_runtime', { description: 'added by the test' }, () => 'hi');
      assert.deepEqual(await nextMessage(get), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

      const sub = await peer.request('resources/subscribe', { uri: 'test://watched-resource' }, { id: 20 });
      assert.deepEqual(sub.messages, [{ jsonrpc: '2.0', id: 20, result: {} }]);
      s.server.resourceUpdated('test://static-text'); // not subscribed: not sent
      s.server.resourceUpdated('test://watched-resource');
      assert.deepEqual(await nextMessage(get), {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'test://watched-resource' },
      });

      // No response ever travels on the standalone stream (§Listening item 4).
      const ping = await peer.request('ping', undefined, { id: 21 });
      assert.deepEqual(ping.messages, [{ jsonrpc: '2.0', id: 21, result: {} }]);
      await delay(20);
      assert.ok(get.events.every((e) => e.message === undefined || 'method' in e.message));
      peer.assertClean();
    } finally {
      get.abort();
      await s.close();
    }
  });
}

test('2025-11-25 SSE polling: test_reconnection ends its POST connection after a priming event with retry; GET + Last-Event-ID delivers the result (§Resumability and Redelivery)', async () => {
  const s = await serve(createEverythingServer(), { retryMs: 40 });
  const peer = new HttpPeer(s.url, '2025-11-25');
  try {
    await peer.initialize();
    const post = await peer.open(rpc(3, 'tools/call', { name: 'test_reconnection', arguments: {} }));
    assert.equal(post.isSse, true);
    const events = await post.rest();
    assert.equal(events.length, 1, `only the priming event before the server closed the connection: ${JSON.stringify(events)}`);
    const priming = events[0]!;
    assert.equal(priming.data, '');
    assert.equal(priming.retry, 40, 'the retry field tells the client how long to wait');
    assert.ok(priming.id !== undefined && priming.id !== '');

    await delay(priming.retry!); // the client MUST respect retry before polling
    const resumed = await peer.get({ 'last-event-id': priming.id });
    assert.equal(resumed.status, 200);
    assert.equal(resumed.isSse, true);
    const rest = await resumed.rest();
    assert.deepEqual(
      rest.map((e) => e.message),
      [{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'Reconnection test completed' }] } }],
    );
    assert.ok(rest[0]!.id !== undefined && rest[0]!.id !== priming.id, 'the result has its own event id on the same stream');
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('2025-03-26: a JSON-RPC batch of requests and a notification is answered with an array of the responses', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-03-26');
  try {
    await peer.initialize();
    const o = await peer.post([
      rpc(10, 'ping'),
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      rpc(11, 'tools/call', { name: 'test_simple_text', arguments: {} }),
    ]);
    assert.equal(o.status, 200);
    assert.equal(o.kind, 'json');
    const batch = o.messages[0] as unknown as Msg[];
    assert.ok(Array.isArray(batch), 'the answer to a batch is an array');
    assert.deepEqual(
      [...batch].sort((a, b) => a.id - b.id),
      [
        { jsonrpc: '2.0', id: 10, result: {} },
        { jsonrpc: '2.0', id: 11, result: { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] } },
      ],
    );
    const notes = await peer.post([{ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }]);
    assert.equal(notes.status, 202, 'a batch of notifications only is accepted with 202');
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('2025-06-18: a JSON-RPC batch is refused with one -32600 error and none of its requests runs', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-06-18');
  try {
    await peer.initialize();
    const o = await peer.post([rpc(10, 'ping'), rpc(11, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })]);
    assert.equal(o.kind, 'json');
    const error = o.messages[0]!;
    assert.ok(!Array.isArray(error), 'one error object, not an array');
    assert.equal(error.error.code, -32600);
    assert.equal(error.id, undefined);
    assert.ok(o.status === 200 || o.status === 400, `status ${o.status}`);
    const tools = await peer.request('tools/list', undefined, { id: 12 });
    assert.ok(!tools.messages[0]!.result.tools.some((t: Msg) => t.name === 'test_dynamic_tool'), 'the batched tools/call did not run');
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('2025-11-25: a Last-Event-ID of another session replays nothing of it — the GET opens the own standalone stream (§Resumability: MUST NOT replay other streams)', async () => {
  const s = await serve();
  const a = new HttpPeer(s.url, '2025-11-25');
  const b = new HttpPeer(s.url, '2025-11-25');
  try {
    await a.initialize();
    await b.initialize();
    const foreign = await a.request('tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'a' } });
    const cursor = foreign.events[1]!.id!; // after the first progress: the rest would replay
    const get = await b.get({ 'last-event-id': cursor });
    assert.equal(get.status, 200);
    const first = await get.next();
    assert.equal(first.data, '', 'a fresh priming event');
    assert.ok(first.id?.startsWith(`${b.sessionId}.`), `the cursor belongs to session B: ${first.id}`);
    s.server.tool('barrier_tool', () => 'x');
    assert.deepEqual(
      await nextMessage(get),
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      'nothing of session A came first',
    );
    get.abort();
    a.assertClean();
    b.assertClean();
  } finally {
    await s.close();
  }
});

test('2025-11-25: a second standalone GET while one is open → 409, so no message is sent on two streams (§Multiple Connections)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, '2025-11-25');
  try {
    await peer.initialize();
    const one = await peer.get();
    await one.next();
    const two = await peer.get();
    assert.equal(two.status, 409);
    await two.text();
    one.abort();
  } finally {
    await s.close();
  }
});
