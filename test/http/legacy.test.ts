/**
 * Legacy Streamable HTTP (docs/2025-11-25/basic/transports.mdx §Streamable HTTP, and the
 * 2025-03-26/2025-06-18 pages): sessions, lazy JSON/SSE, priming and retry, SSE polling with
 * closeStream + GET Last-Event-ID, the standalone GET stream, DELETE, batches.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryEventStore, type EventStore, type HttpServerHandle } from '../../src/transports/http/index.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';
import type { FakeSession } from './support.js';
import { JSON_HEADERS } from '../support/http.js';
import { delay, until, withClock } from '../support/wait.js';
import { FakeCore, fire, initialize, open, post, send, sessionHeaders, start } from './support.js';

let core: FakeCore;
let srv: HttpServerHandle;
before(async () => {
  core = new FakeCore();
  srv = await start(core);
});
after(() => srv.close());

const req = (method: string, params: Record<string, unknown> = {}, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
const sessionOf = (sid: string) => core.sessions.find((s) => s.host && (s.host as { id?: string }).id === sid) as FakeSession;

describe('session management (§Session Management)', () => {
  it('initialize returns a visible-ASCII Mcp-Session-Id on a JSON response; initialized gets 202', async () => {
    const r = await post(srv.url, req('initialize', { protocolVersion: '2025-11-25' }, 0));
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const sid = r.headers['mcp-session-id'];
    assert.equal(typeof sid, 'string');
    assert.match(sid as string, /^[\x21-\x7e]+$/);
    const n = await post(srv.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid as string });
    assert.equal(n.status, 202);
    assert.equal(n.text, '');
    assert.equal(sessionOf(sid as string).initialized, true);
  });

  it('requests without a session id get 400; unknown ids get 404', async () => {
    const a = await post(srv.url, req('tools/list'));
    assert.equal(a.status, 400);
    assert.equal(a.json.error.code, -32600);
    const b = await post(srv.url, req('tools/list'), { 'mcp-session-id': 'nope' });
    assert.equal(b.status, 404);
  });

  it('a session works without MCP-Protocol-Version (assumed 2025-03-26) and with its version', async () => {
    const sid = await initialize(srv.url);
    const a = await post(srv.url, req('tools/list'), { 'mcp-session-id': sid });
    assert.equal(a.status, 200);
    const b = await post(srv.url, req('tools/list'), sessionHeaders(sid));
    assert.deepEqual(b.json.result, { echo: 'tools/list' });
  });

  it('a present MCP-Protocol-Version must name a supported legacy revision (2025-06-18 §Protocol Version Header → 400)', async () => {
    const sid = await initialize(srv.url);
    const r = await post(srv.url, req('tools/list', {}, 3), { 'mcp-session-id': sid, 'mcp-protocol-version': 'v999.0.0' });
    assert.equal(r.status, 400);
    assert.equal(r.json.id, 3);
    const g = await send(srv.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' },
    });
    assert.equal(g.status, 400);
  });

  it('the core learns the wire each POST was classified on (Inbound.wire)', async () => {
    const sid = await initialize(srv.url);
    await post(srv.url, req('tools/list', {}, 'w1'), sessionHeaders(sid));
    assert.equal(core.seen.find((x) => x.id === 'w1')!.inbound.wire, 'legacy');
  });

  it('DELETE ends the session: 200, then 404 for it; the core session is closed', async () => {
    const sid = await initialize(srv.url);
    const d = await send(srv.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
    assert.equal(d.status, 200);
    assert.equal(sessionOf(sid).closed, true);
    const r = await post(srv.url, req('tools/list'), sessionHeaders(sid));
    assert.equal(r.status, 404);
    const again = await send(srv.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
    assert.equal(again.status, 404);
  });

  it('initialize carrying an existing session id is refused with 400', async () => {
    const sid = await initialize(srv.url);
    const r = await post(srv.url, req('initialize', { protocolVersion: '2025-11-25' }, 5), { 'mcp-session-id': sid });
    assert.equal(r.status, 400);
    assert.equal(r.json.id, 5);
  });

  it('a failed initialize mints no session id and closes the core session', async () => {
    const n = core.sessions.length;
    const r = await post(srv.url, req('initialize', { protocolVersion: '2025-11-25', fail: true }, 0));
    assert.equal(r.status, 200); // a JSON-RPC error is 200 on legacy
    assert.equal(r.json.error.code, -32602);
    assert.equal(r.headers['mcp-session-id'], undefined);
    assert.equal(core.sessions[n]!.closed, true);
  });

  it('maxSessions caps the count (503); a session idle longer than sessionIdleMs makes room, one idle exactly that long or with an open stream does not', async () => {
    const idleMs = 60_000;
    // The registry reads Date.now(): a clock moved by hand pins sessionIdleMs to the millisecond.
    await withClock(async (clock) => {
      const s = await start(new FakeCore(), { maxSessions: 1, sessionIdleMs: idleMs });
      const initializeStatus = async () => (await post(s.url, req('initialize', { protocolVersion: '2025-11-25' }, 0))).status;
      try {
        const first = await initialize(s.url);
        clock.now += idleMs;
        assert.equal(await initializeStatus(), 503, 'a session idle exactly sessionIdleMs keeps its place');
        clock.now += 1;
        const second = await initialize(s.url);
        assert.equal((await post(s.url, req('tools/list'), sessionHeaders(first))).status, 404, 'the idle session is gone');

        const get = await open(s.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': second } });
        clock.now += 10 * idleMs;
        assert.equal(await initializeStatus(), 503, 'a session with an open stream is never idle');
        get.close();
        // Once the server has seen the stream close, the session has been idle since its last request.
        await until(async () => (await initializeStatus()) === 200, 'room once the stream closed');
        assert.equal((await post(s.url, req('tools/list'), sessionHeaders(second))).status, 404);
      } finally {
        await s.close();
      }
    });
  });
});

describe('lazy responses and priming (§Sending Messages to the Server)', () => {
  it('2025-11-25: the SSE stream starts with a priming event (id, retry, empty data); every event has an id', async () => {
    const sid = await initialize(srv.url);
    const s = await open(srv.url, { body: req('notify', { n: 2 }), headers: sessionHeaders(sid) });
    assert.equal(s.res.headers['content-type'], 'text/event-stream');
    const events = await s.waitEnd();
    assert.equal(events[0]!.data, '');
    assert.equal(events[0]!.retry, 1000);
    assert.ok(events[0]!.id);
    assert.equal(events.length, 4);
    assert.ok(events.every((e) => e.id !== undefined));
    assert.equal(new Set(events.map((e) => e.id)).size, 4);
    assert.deepEqual(s.messages().at(-1), { jsonrpc: '2.0', id: 1, result: { done: 2 } });
  });

  it('2025-06-18: no priming event (older clients may choke on empty data), ids still given', async () => {
    const sid = await initialize(srv.url, '2025-06-18');
    const s = await open(srv.url, { body: req('notify', { n: 1 }), headers: sessionHeaders(sid, '2025-06-18') });
    const events = await s.waitEnd();
    assert.equal(events.length, 2);
    assert.ok(events.every((e) => e.data !== '' && e.id !== undefined && e.retry === undefined));
  });

  it('a JSON-RPC error on a session is HTTP 200', async () => {
    const sid = await initialize(srv.url);
    const r = await post(srv.url, req('error', { code: -32601 }), sessionHeaders(sid));
    assert.equal(r.status, 200);
    assert.equal(r.json.error.code, -32601);
  });

  it('a server-to-client request goes down the POST stream; the client answers with a POST (202)', async () => {
    const sid = await initialize(srv.url);
    const s = await open(srv.url, { body: req('ask', {}, 9), headers: sessionHeaders(sid) });
    await until(() => s.messages().find((m) => 'method' in m && m.method === 'roots/list'));
    const r = await post(srv.url, { jsonrpc: '2.0', id: 's1', result: { roots: [] } }, sessionHeaders(sid));
    assert.equal(r.status, 202);
    await s.waitEnd();
    assert.deepEqual(s.messages().at(-1), { jsonrpc: '2.0', id: 9, result: { answer: { roots: [] } } });
  });

  it('a request that gets no response (e.g. cancelled) gets an event stream that ends without one, never 202 (§Sending Messages items 4-5)', async () => {
    const sid = await initialize(srv.url);
    const s = await open(srv.url, { body: req('silent'), headers: sessionHeaders(sid) });
    assert.equal(s.res.statusCode, 200);
    assert.equal(s.res.headers['content-type'], 'text/event-stream');
    const events = await s.waitEnd();
    assert.deepEqual(s.messages(), [], 'no response for a cancelled request (cancellation.mdx)');
    assert.equal(events.length, 1, 'only the priming event of 2025-11-25');
    // A client that accepts only JSON gets an error it ignores as the answer to a cancelled request.
    const json = await post(srv.url, req('silent', {}, 7), { ...sessionHeaders(sid), accept: 'application/json' });
    assert.equal(json.status, 200);
    assert.equal(json.json.id, 7);
    assert.equal(json.json.error.code, -32600);
  });
});

describe('SSE polling and resumption (§Resumability and Redelivery)', () => {
  it('closeStream ends the POST stream after the priming event; GET + Last-Event-ID delivers the rest', async () => {
    const sid = await initialize(srv.url);
    const s = await open(srv.url, { body: req('close-stream', { ms: 60 }, 'r1'), headers: sessionHeaders(sid) });
    const first = await s.waitEnd();
    assert.equal(first.length, 1);
    assert.equal(first[0]!.data, '');
    assert.equal(first[0]!.retry, 1000);
    const g = await open(srv.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': first[0]!.id! },
    });
    assert.equal(g.status, 200);
    await g.waitEnd();
    const msgs = g.messages();
    assert.deepEqual(msgs.at(-1), { jsonrpc: '2.0', id: 'r1', result: { reconnected: true } });
    assert.equal(msgs.length, 2);
  });

  it('resuming after the request completed replays what was missed and ends', async () => {
    const sid = await initialize(srv.url);
    const s = await open(srv.url, { body: req('close-stream', { ms: 5, before: true }, 'r2'), headers: sessionHeaders(sid) });
    const events = await s.waitEnd();
    assert.equal(events.length, 2); // priming + "before"
    await until(() => core.seen.find((x) => x.id === 'r2')?.finished, 'the result, produced while nobody listens');
    const g = await open(srv.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': events[1]!.id! },
    });
    await g.waitEnd();
    assert.deepEqual(
      g.messages().map((m) => ('method' in m ? (m.params as { data: string }).data : 'result')),
      ['after', 'result'],
    );
  });

  it('a legacy client disconnect does not cancel: the handler runs on and its messages can be resumed', async () => {
    const sid = await initialize(srv.url);
    const s = await open(srv.url, { body: req('notify', { n: 4 }, 'r3'), headers: sessionHeaders(sid) });
    await s.waitFor(2);
    const lastId = s.events.at(-1)!.id!;
    s.close();
    const seen = await until(() => core.seen.find((x) => x.id === 'r3' && x.inbound.channel && sessionOf(sid) === x.inbound.channel));
    assert.equal(seen.inbound.signal, undefined);
    await until(() => seen.finished, 'the handler to run to its end');
    const g = await open(srv.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': lastId },
    });
    await g.waitEnd();
    assert.deepEqual(g.messages().at(-1), { jsonrpc: '2.0', id: 'r3', result: { done: 4 } });
    const before = s.messages().length;
    assert.equal(before + g.messages().length, 5); // 4 notifications + result, none twice
  });

  it('a legacy request that is disconnected before any byte keeps running without a signal', async () => {
    const sid = await initialize(srv.url);
    const r = fire(srv.url, { body: req('wait', { ms: 50 }, 'r4'), headers: sessionHeaders(sid) });
    const seen = await until(() => core.seen.find((x) => x.id === 'r4'));
    r.destroy();
    await until(() => seen.aborted !== undefined);
    assert.equal(seen.aborted, false);
  });

  it('an unknown Last-Event-ID opens a fresh standalone stream', async () => {
    const sid = await initialize(srv.url);
    const g = await open(srv.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': 'bogus#1' },
    });
    assert.equal(g.status, 200);
    g.close();
  });
});

describe('the standalone GET stream (§Listening for Messages from the Server)', () => {
  it('delivers the session host messages; a second GET gets 409; stored messages resume by Last-Event-ID', async () => {
    const sid = await initialize(srv.url);
    const host = sessionOf(sid).host;
    const g = await open(srv.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid } });
    assert.equal(g.status, 200);
    const priming = (await g.waitFor(1))[0]!;
    assert.equal(priming.data, '');
    const second = await send(srv.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid } });
    assert.equal(second.status, 409);
    host.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await g.waitFor(2);
    const cursor = g.events[1]!.id!;
    g.close();
    await until(() => !(host as unknown as { busy: boolean }).busy, 'the server to notice the disconnect');
    host.send({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' }); // nobody listening: stored
    const g2 = await open(srv.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': cursor },
    });
    await g2.waitFor(1);
    assert.deepEqual(g2.messages(), [{ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' }]);
    g2.close();
  });

  it('GET needs Accept: text/event-stream (406) and a session id (400 without HTTP+SSE)', async () => {
    const sid = await initialize(srv.url);
    assert.equal((await send(srv.url, { method: 'GET', headers: { accept: 'application/json', 'mcp-session-id': sid } })).status, 406);
    const s2 = await start(new FakeCore(), { legacySse: false });
    try {
      assert.equal((await send(s2.url, { method: 'GET', headers: { accept: 'text/event-stream' } })).status, 400);
    } finally {
      await s2.close();
    }
  });
});

describe('JSON-RPC batches (2025-03-26 only)', () => {
  it('a 2025-03-26 session gets a JSON array of responses', async () => {
    const sid = await initialize(srv.url, '2025-03-26');
    const r = await post(
      srv.url,
      [req('a', {}, 1), { jsonrpc: '2.0', method: 'notifications/x' }, req('b', {}, 2)],
      sessionHeaders(sid, '2025-03-26'),
    );
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, [
      { jsonrpc: '2.0', id: 1, result: { echo: 'a' } },
      { jsonrpc: '2.0', id: 2, result: { echo: 'b' } },
    ]);
  });

  it('a batch whose handling sends notifications becomes an SSE stream of all its messages', async () => {
    const sid = await initialize(srv.url, '2025-03-26');
    const s = await open(srv.url, { body: [req('a', {}, 1), req('notify', {}, 2)], headers: sessionHeaders(sid, '2025-03-26') });
    assert.equal(s.res.headers['content-type'], 'text/event-stream');
    await s.waitEnd();
    assert.deepEqual(
      s.messages().map((m) => ('method' in m ? m.method : m.id)),
      [1, 'notifications/progress', 2],
    );
  });

  it('other sessions get the single -32600 error the core refuses the batch with', async () => {
    const sid = await initialize(srv.url);
    const r = await post(srv.url, [req('a', {}, 1)], sessionHeaders(sid));
    assert.equal(r.status, 200);
    assert.equal(r.json.error.code, -32600);
  });

  it('a batch of notifications only is 202', async () => {
    const sid = await initialize(srv.url, '2025-03-26');
    const r = await post(srv.url, [{ jsonrpc: '2.0', method: 'notifications/x' }], { ...JSON_HEADERS, 'mcp-session-id': sid });
    assert.equal(r.status, 202);
  });
});

/** An event store that answers asynchronously (as a Redis-backed one would). */
class SlowStore implements EventStore {
  readonly inner = new InMemoryEventStore();
  async append(streamId: string, message: JsonRpcMessage | undefined): Promise<string> {
    await delay(3);
    return this.inner.append(streamId, message);
  }
  async replayAfter(lastEventId: string, sink: (id: string, m: JsonRpcMessage) => void): Promise<string | undefined> {
    await delay(3);
    return this.inner.replayAfter(lastEventId, sink);
  }
}

describe('an asynchronous event store', () => {
  it('keeps events in order, and closeStream + resumption still deliver everything once', async () => {
    const c = new FakeCore();
    const s = await start(c, { eventStore: new SlowStore() });
    try {
      const sid = await initialize(s.url);
      const a = await open(s.url, { body: req('notify', { n: 3 }), headers: sessionHeaders(sid) });
      const events = await a.waitEnd();
      assert.equal(events[0]!.data, '');
      assert.deepEqual(
        a.messages().map((m) => ('method' in m ? (m.params as { progress: number }).progress : 'result')),
        [0, 1, 2, 'result'],
      );
      const ids = events.map((e) => Number(e.id!.split('#')[1]));
      assert.deepEqual(
        ids,
        [...ids].sort((x, y) => x - y),
      );

      const b = await open(s.url, { body: req('close-stream', { ms: 40, before: true }, 'a2'), headers: sessionHeaders(sid) });
      const first = await b.waitEnd();
      assert.equal(first[0]!.data, '');
      const g = await open(s.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': first.at(-1)!.id! },
      });
      await g.waitEnd();
      const seen = [...b.messages(), ...g.messages()].map((m) => ('method' in m ? (m.params as { data: string }).data : 'result'));
      assert.deepEqual(
        seen.filter((x) => x === 'after' || x === 'result'),
        ['after', 'result'],
      );
      assert.equal(seen.filter((x) => x === 'before').length, 1);
    } finally {
      await s.close();
    }
  });
});
