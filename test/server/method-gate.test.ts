/**
 * The revisions table decides what exists (src/protocol/revisions.ts): a request is admitted
 * only if its revision's table has its method; otherwise it gets -32601 before any handler
 * runs, in both eras and on every transport (in memory, a stdio child process, Streamable HTTP
 * on 127.0.0.1). The walk covers every revision × every client request any revision has,
 * against a server with every core capability (test/support/gate-server.ts), so a -32601
 * can only come from the table.
 *
 * A method only the stateless era has (`server/discover`, `subscriptions/listen`) claims the
 * 2026-07-28 wire wherever it is sent (2026-07-28 basic/versioning.mdx §Backward
 * Compatibility): on a handshake-era session it is never session traffic, so it is checked
 * to be refused there rather than admitted.
 *
 * Extensions declare the revisions their methods exist in, and the same gate applies to them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CLIENT_REQUEST_METHODS } from '../../src/protocol/methods.js';
import { isModernOnlyMethod, REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import { createServer } from '../../src/server/index.js';
import { ErrorCode } from '../../src/errors/index.js';
import { fixture, MODERN, type Msg } from '../support/common.js';
import { createGateServer } from '../support/gate-server.js';
import { handshake, type TestPeer, withMemoryPeer } from '../support/peer.js';
import { StdioPeer } from '../support/stdio-peer.js';
import { HttpPeer, nextMessage, serve, type Served } from '../http-e2e/support.js';

/** Every client request some revision has: the catalogue, which the table's lists are checked against. */
const METHODS: readonly string[] = CLIENT_REQUEST_METHODS;

/** What a request answered: admitted (a result, or any error but -32601) or not. */
type Verdict = 'admitted' | 'not found' | 'refused';

function verdictOf(m: Msg): Verdict {
  if (m.result !== undefined) return 'admitted';
  if (m.error?.code === ErrorCode.MethodNotFound) return 'not found';
  return 'refused';
}

/** What the walk expects of method `m` on revision `r`. */
function expected(r: Revision, method: string): Verdict | 'not session traffic' {
  if (r.era === 'legacy' && isModernOnlyMethod(method)) return 'not session traffic';
  return r.methods.clientRequests.has(method) ? 'admitted' : 'not found';
}

function check(r: Revision, method: string, got: Verdict, answer: unknown): void {
  const want = expected(r, method);
  const where = `${method} on ${r.version}: ${JSON.stringify(answer)}`;
  if (want === 'not session traffic') assert.notEqual(got, 'admitted', where);
  else if (want === 'admitted') assert.notEqual(got, 'not found', where);
  else assert.equal(got, 'not found', where);
}

const LISTEN = 'subscriptions/listen';

/** Walks one revision over a message channel (memory or stdio); the peer is fresh and, for the handshake era, initialized. */
async function walk(peer: TestPeer, r: Revision): Promise<void> {
  for (const method of METHODS) {
    if (method === LISTEN && r.era === 'modern' && r.methods.clientRequests.has(method)) {
      // Admitted: the stream opens with its acknowledgement; the test then cancels it (stdio cancels by notification).
      const id = `listen-${r.version}`;
      peer.sendRaw({ jsonrpc: '2.0', id, method, params: { notifications: {}, _meta: modernEnvelope(r) } });
      await peer.next(
        (m) =>
          m.method === 'notifications/subscriptions/acknowledged' && m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === id,
      );
      peer.notify('notifications/cancelled', { requestId: id, reason: 'the walk goes on' });
      continue;
    }
    const answer = r.era === 'modern' ? await peer.request(method, { _meta: modernEnvelope(r) }) : await peer.request(method, {});
    check(r, method, verdictOf(answer), answer);
  }
}

function modernEnvelope(r: Revision): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': r.version,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'gate-walk', version: '1.0.0' },
  };
}

describe('every revision × every method: admitted ⇔ the revision’s table has it', () => {
  for (const r of REVISIONS) {
    test(`in memory, ${r.version}`, async () => {
      await withMemoryPeer(
        createGateServer(),
        (peer) => walk(peer, r),
        r.era === 'legacy' ? { revision: r.version, handshake: {} } : { revision: r.version },
      );
    });

    test(`over stdio (a child process), ${r.version}`, async () => {
      const peer = new StdioPeer({ args: [fixture('gate-stdio.js')], revision: r.version });
      try {
        if (r.era === 'legacy') await handshake(peer, r.version);
        await walk(peer, r);
      } finally {
        await peer.close();
      }
    });
  }

  describe('over Streamable HTTP', () => {
    let served: Served;
    before(async () => {
      served = await serve(createGateServer());
    });
    after(() => served.close());

    for (const r of REVISIONS) {
      test(r.version, async () => {
        const peer = new HttpPeer(served.url, r.version);
        if (r.era === 'legacy') await peer.initialize();
        for (const method of METHODS) {
          if (r.era === 'modern') {
            const body = peer.modernBody(method, method === LISTEN ? { notifications: {} } : {});
            body.params._meta['io.modelcontextprotocol/protocolVersion'] = r.version;
            const reply = await peer.open(body, { ...peer.modernHeaders(body), 'mcp-protocol-version': r.version });
            if (method === LISTEN && reply.isSse) {
              const first = await nextMessage(reply);
              assert.equal(first.method, 'notifications/subscriptions/acknowledged', `${method} on ${r.version}`);
              reply.abort(); // closing the stream ends the subscription (2026-07-28 cancellation.mdx)
              continue;
            }
            const outcome = await peer.finish(reply);
            const answer = outcome.messages[0]!;
            check(r, method, verdictOf(answer), answer);
            if (verdictOf(answer) === 'not found') assert.equal(outcome.status, 404, `${method}: -32601 is HTTP 404 on 2026-07-28`);
          } else {
            const outcome = await peer.request(method, {});
            const answer = outcome.messages[0] ?? { status: outcome.status };
            check(r, method, answer.result !== undefined || answer.error !== undefined ? verdictOf(answer) : 'refused', answer);
          }
        }
        peer.assertClean();
      });
    }
  });
});

describe('extension methods: the revisions they declare, and no other', () => {
  const ONLY_MODERN = 'com.example/only-modern';
  const server = () =>
    createServer({ name: 'gate-ext', version: '1.0.0' }).extend({
      id: 'com.example/gate',
      methods: {
        [ONLY_MODERN]: { revisions: (v) => v === MODERN, run: () => ({ ok: true }) },
        'com.example/only-2025-11-25': { revisions: (v) => v === '2025-11-25', run: () => ({ ok: true }) },
      },
    });

  test('a method declared for 2026-07-28 only: served there, -32601 on every handshake revision', async () => {
    await withMemoryPeer(
      server(),
      async (peer) => {
        peer.allowInvalid((m) => m.result?.ok === true, 'the extension’s own result: no schema defines it');
        assert.equal((await peer.modern(ONLY_MODERN)).result.ok, true);
        assert.equal((await peer.modern('com.example/only-2025-11-25')).error.code, ErrorCode.MethodNotFound);
      },
      { revision: MODERN },
    );
    for (const v of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      await withMemoryPeer(
        server(),
        async (peer) => {
          peer.allowInvalid((m) => m.result?.ok === true, 'the extension’s own result: no schema defines it');
          assert.equal((await peer.request(ONLY_MODERN, {})).error.code, ErrorCode.MethodNotFound, v);
          const other = await peer.request('com.example/only-2025-11-25', {});
          if (v === '2025-11-25') assert.equal(other.result.ok, true);
          else assert.equal(other.error.code, ErrorCode.MethodNotFound, v);
        },
        { revision: v, handshake: {} },
      );
    }
  });

  test('an extension method without its revisions is refused when it is added', () => {
    assert.throws(
      () =>
        createServer({ name: 'x', version: '1' }).extend({
          id: 'com.example/careless',
          // @ts-expect-error: revisions is required
          methods: { 'careless/call': { run: () => ({}) } },
        }),
      /careless\/call needs revisions\(v\)/,
    );
  });
});
