/**
 * The default event store's memory bounds (2025-11-25
 * transports §Resumability and Redelivery makes replay a MAY, so a bounded store is free to
 * forget): bytes per stream and in total, expiry on a timer with no traffic, and freeing a
 * session's streams when it ends.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';
import { InMemoryEventStore } from '../../src/transports/http/index.js';
import { until, withClock } from '../support/wait.js';

/** A notification whose JSON text is exactly `bytes` long. */
function sized(bytes: number, n = 0): JsonRpcMessage {
  const bare = JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { n, pad: '' } }).length;
  return { jsonrpc: '2.0', method: 'n', params: { n, pad: 'x'.repeat(bytes - bare) } };
}

function replayed(store: InMemoryEventStore, after: string): number[] {
  const got: number[] = [];
  store.replayAfter(after, (_id, m) => got.push((m as unknown as { params: { n: number } }).params.n));
  return got;
}

const KiB = 1024;
const MiB = 1024 * KiB;

describe('InMemoryEventStore byte limits', () => {
  it('keeps at most maxBytesPerStream of JSON per stream, the oldest events dropped first (default 4 MiB)', () => {
    const s = new InMemoryEventStore({ maxBytesPerStream: 10 * KiB });
    const prime = s.append('a', undefined);
    for (let n = 1; n <= 4; n++) s.append('a', sized(4 * KiB, n));
    assert.deepEqual(replayed(s, prime), [3, 4], 'two 4 KiB events fit in 10 KiB, three do not');
    assert.equal(s.bytes, 8 * KiB);

    const byDefault = new InMemoryEventStore();
    const first = byDefault.append('a', undefined);
    for (let n = 1; n <= 5; n++) byDefault.append('a', sized(MiB, n));
    assert.deepEqual(replayed(byDefault, first), [2, 3, 4, 5]);
    assert.equal(byDefault.bytes, 4 * MiB);
  });

  it('an event larger than maxBytesPerStream gets its id but is not kept', () => {
    const s = new InMemoryEventStore({ maxBytesPerStream: 4 * KiB });
    const prime = s.append('a', undefined);
    const big = s.append('a', sized(5 * KiB, 1));
    assert.match(big, /^a#\d+$/);
    s.append('a', sized(KiB, 2));
    assert.deepEqual(replayed(s, prime), [2]);
    assert.equal(s.bytes, KiB);
  });

  it('keeps at most maxBytes over all streams, the least recently touched streams dropped first (default 64 MiB)', () => {
    const s = new InMemoryEventStore({ maxBytes: 10 * KiB });
    const a = s.append('a', sized(4 * KiB, 1));
    const b = s.append('b', sized(4 * KiB, 1));
    s.append('a', sized(KiB, 2)); // 'b' is now the least recently touched
    assert.equal(s.bytes, 9 * KiB);
    s.append('c', sized(4 * KiB, 1));
    assert.equal(s.bytes, 9 * KiB);
    assert.deepEqual([s.replayAfter(a, () => {}), s.replayAfter(b, () => {})], ['a', undefined]);

    const byDefault = new InMemoryEventStore();
    for (let n = 0; n < 65; n++) byDefault.append(`s${n}`, sized(MiB, n));
    assert.equal(byDefault.size, 64);
    assert.equal(byDefault.bytes, 64 * MiB);
  });

  it('deleteStreams frees the named streams and their bytes', () => {
    const s = new InMemoryEventStore();
    s.append('x.0', sized(KiB));
    const kept = s.append('y.1', sized(KiB));
    s.append('x.1', sized(2 * KiB));
    s.deleteStreams(['x.0', 'x.1', 'x.2']);
    assert.equal(s.size, 1);
    assert.equal(s.bytes, KiB);
    assert.equal(
      s.replayAfter(kept, () => {}),
      'y.1',
    );
  });
});

describe('InMemoryEventStore expiry without traffic', () => {
  it('a timer forgets streams past ttlMs although nothing is appended or replayed any more', async () => {
    // The store reads Date.now(): the clock moved by hand makes the streams expire; the timer
    // (real time, every max(100 ms, ttlMs)) then has to notice on its own.
    await withClock(async (clock) => {
      const s = new InMemoryEventStore({ ttlMs: 50 });
      s.append('a', sized(KiB));
      s.append('b', sized(KiB));
      clock.now += 51;
      await until(() => s.size === 0, 'the expiry timer', 10_000);
      assert.equal(s.bytes, 0);
    });
  });

  it('the expiry timer does not keep the process alive', async () => {
    const { spawnSync } = await import('node:child_process');
    const url = new URL('../../src/transports/http/index.js', import.meta.url).href;
    const program = `const { InMemoryEventStore } = await import(${JSON.stringify(url)}); new InMemoryEventStore().append('a', { jsonrpc: '2.0', method: 'n' });`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { timeout: 20_000 });
    assert.equal(r.status, 0, `the process exits by itself (${r.signal ?? ''} ${String(r.stderr)})`);
  });
});
