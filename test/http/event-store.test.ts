/** The default event store (2025-11-25 transports §Resumability and Redelivery). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryEventStore } from '../../src/transports/http/index.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'n', params: { n } });

function replay(store: InMemoryEventStore, after: string): { stream: string | undefined; got: Array<[string, JsonRpcMessage]> } {
  const got: Array<[string, JsonRpcMessage]> = [];
  const stream = store.replayAfter(after, (id, m) => got.push([id, m])) as string | undefined;
  return { stream, got };
}

describe('InMemoryEventStore', () => {
  it('replays only later events of the same stream, skipping priming entries', () => {
    const s = new InMemoryEventStore();
    const prime = s.append('a', undefined);
    const a1 = s.append('a', note(1));
    s.append('b', note(9));
    s.append('a', note(2));
    const r = replay(s, prime);
    assert.equal(r.stream, 'a');
    assert.deepEqual(r.got.map(([, m]) => (m as unknown as { params: { n: number } }).params.n), [1, 2]);
    assert.deepEqual(replay(s, a1).got.length, 1);
  });

  it('event ids are unique across streams and name their stream', () => {
    const s = new InMemoryEventStore();
    const ids = [s.append('x.1', note(1)), s.append('x.2', note(1)), s.append('x.1', note(2))];
    assert.equal(new Set(ids).size, 3);
    assert.ok(ids[0]!.startsWith('x.1#'));
  });

  it('unknown, malformed or future ids replay nothing', () => {
    const s = new InMemoryEventStore();
    s.append('a', note(1));
    for (const id of ['nope', 'a#', 'a#x', 'a#99', 'b#1']) assert.equal(replay(s, id).stream, undefined, id);
  });

  it('bounds events per stream, streams in total, and expires by time', async () => {
    const s = new InMemoryEventStore({ maxEventsPerStream: 2, maxStreams: 2, ttlMs: 30 });
    const first = s.append('a', note(1));
    s.append('a', note(2));
    s.append('a', note(3));
    assert.deepEqual(replay(s, first).got.length, 2); // events 2 and 3; 1 was dropped
    s.append('b', note(1));
    s.append('c', note(1));
    assert.equal(s.size, 2); // 'a' (least recently touched) went
    await new Promise((r) => setTimeout(r, 50));
    const late = s.append('d', note(1));
    assert.equal(s.size, 1);
    assert.equal(replay(s, late).stream, 'd');
  });
});
