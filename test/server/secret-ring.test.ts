/**
 * `requestState.secrets` as a `SecretRing` (src/server/modern/secret-ring.ts): the codec
 * follows a set of secrets that changes while the server runs, and derives a key once per
 * secret, not once per request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import type { Secret, SecretRing } from '../../src/spi/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';

const CAPS = { roots: {} };
const ANSWER = { r: { roots: [] } };

/** A ring the test turns by hand. */
class HandRing implements SecretRing {
  #opening: readonly Secret[];
  constructor(first: Secret) {
    this.#opening = [first];
  }
  sealing(): Secret {
    return this.#opening[0]!;
  }
  opening(): readonly Secret[] {
    return this.#opening;
  }
  set(opening: readonly Secret[]): void {
    this.#opening = opening;
  }
}

/** Counts HKDF key imports (one per derived key) while `fn` runs. */
async function countingDerivations(fn: (count: () => number) => Promise<void>): Promise<void> {
  const subtle = crypto.subtle;
  type ImportKey = typeof subtle.importKey;
  const importKey = subtle.importKey;
  let n = 0;
  subtle.importKey = function (this: typeof subtle, ...args: Parameters<ImportKey>) {
    if (args[2] === 'HKDF') n++;
    return (importKey as (...a: unknown[]) => ReturnType<ImportKey>).apply(this, args);
  } as ImportKey;
  try {
    await fn(() => n);
  } finally {
    subtle.importKey = importKey;
  }
}

test('a SecretRing: each secret is derived once however many requests; a new sealing secret seals, the old still opens, a dropped one does not', async () => {
  const ring = new HandRing('first-secret');
  const server = createServer({ name: 'ring', version: '1.0.0', requestState: { secrets: ring } });
  server.tool('ask', async (_a, ctx) => `got ${String((await ctx.roots({ key: 'r' })).length)}`);
  const call = (peer: MemoryPeer, extra: Record<string, unknown> = {}) =>
    peer.modern('tools/call', { name: 'ask', arguments: {}, ...extra }, { caps: CAPS });
  const issue = async (peer: MemoryPeer): Promise<string> => {
    const r: Msg = await call(peer);
    assert.equal(r.result?.resultType, 'input_required', JSON.stringify(r));
    return r.result.requestState;
  };
  const retry = (peer: MemoryPeer, requestState: string) => call(peer, { requestState, inputResponses: ANSWER });

  await countingDerivations(async (derived) => {
    await withMemoryPeer(
      server,
      async (peer) => {
        const old: string[] = [];
        for (let i = 0; i < 5; i++) old.push(await issue(peer));
        assert.deepEqual((await retry(peer, old.pop()!)).result?.content, [{ type: 'text', text: 'got 0' }]);
        assert.equal(derived(), 1, 'one secret, derived once for five seals and an open');

        ring.set(['second-secret', 'first-secret']);
        const fresh = await issue(peer);
        assert.deepEqual((await retry(peer, old.pop()!)).result?.content, [{ type: 'text', text: 'got 0' }], 'the old secret still opens');
        assert.deepEqual((await retry(peer, fresh)).result?.content, [{ type: 'text', text: 'got 0' }]);
        assert.equal(derived(), 2, 'only the new secret was derived');

        ring.set(['second-secret']);
        const refused: Msg = await retry(peer, old.pop()!);
        assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
        assert.match(refused.error.message, /does not verify/);
        assert.equal(derived(), 2, 'dropping a secret derives nothing');
      },
      { revision: MODERN },
    );
  });
});
