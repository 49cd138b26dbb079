/** The default event store (2025-11-25 transports §Resumability and Redelivery). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryEventStore } from '../../src/transports/http/index.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';
import { withClock } from '../support/wait.js';

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'n', params: { n } });

const numbers = (got: Array<[string, JsonRpcMessage]>) => got.map(([, m]) => (m as unknown as { params: { n: number } }).params.n);

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
    assert.deepEqual(numbers(r.got), [1, 2]);
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

  it('keeps the last maxEventsPerStream events of a stream, the oldest dropped first (default 1000)', () => {
    const s = new InMemoryEventStore({ maxEventsPerStream: 3 });
    const prime = s.append('a', undefined); // a priming event is an event too
    for (let n = 1; n <= 4; n++) s.append('a', note(n));
    // Five events, three kept: the priming event and 1 went. Any other limit keeps another set.
    assert.deepEqual(numbers(replay(s, prime).got), [2, 3, 4]);

    const byDefault = new InMemoryEventStore();
    const first = byDefault.append('a', undefined);
    for (let n = 1; n <= 1001; n++) byDefault.append('a', note(n));
    const kept = numbers(replay(byDefault, first).got);
    assert.deepEqual([kept.length, kept[0], kept.at(-1)], [1000, 2, 1001]);
  });

  it('keeps at most maxStreams streams, the least recently touched dropped first (default 10 000)', () => {
    const s = new InMemoryEventStore({ maxStreams: 2 });
    const a = s.append('a', note(1));
    const b = s.append('b', note(1));
    assert.equal(s.size, 2);
    s.append('a', note(2)); // now 'b' is the least recently touched
    const c = s.append('c', note(1));
    assert.equal(s.size, 2);
    assert.deepEqual([replay(s, a).stream, replay(s, b).stream, replay(s, c).stream], ['a', undefined, 'c']);

    const byDefault = new InMemoryEventStore();
    const oldest = byDefault.append('s0', note(0));
    for (let n = 1; n < 10_000; n++) byDefault.append(`s${n}`, note(n));
    assert.equal(replay(byDefault, oldest).stream, 's0');
    byDefault.append('one-more', note(0));
    assert.equal(byDefault.size, 10_000);
    assert.equal(replay(byDefault, oldest).stream, undefined);
  });

  it('forgets a stream untouched for longer than ttlMs, and not sooner (default 5 minutes)', async () => {
    // The store reads only Date.now(): a clock moved by hand pins ttlMs to the millisecond.
    for (const [options, ttlMs] of [
      [{ ttlMs: 30 }, 30],
      [{}, 5 * 60_000],
    ] as const) {
      await withClock((clock) => {
        const s = new InMemoryEventStore(options);
        const id = s.append('a', note(1));
        clock.now += ttlMs;
        assert.equal(replay(s, id).stream, 'a', `gone after exactly ${ttlMs} ms`);
        clock.now += 1;
        assert.equal(replay(s, id).stream, undefined, `kept after ${ttlMs + 1} ms`);
        assert.equal(s.size, 0);
      });
    }
  });
});
