/**
 * Server middleware end to end: the server of
 * test/support/middleware-server.ts, whose middleware shows what it did in results, errors
 * and a log, served over a REAL stdio child process (test/fixtures/middleware-stdio.ts) and
 * REAL HTTP on 127.0.0.1, on legacy sessions (2025-11-25, and 2024-11-05 on stdio or 2025-03-26,
 * the first Streamable HTTP revision) and on 2026-07-28. Both peers check every server
 * message against the schema of the revision in use. The fine-grained cases are in
 * test/server/middleware.test.ts and middleware-flows.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixture, MODERN, type Id, type Msg } from '../support/common.js';
import { DROP_INITIALIZED, SECRET, createMiddlewareServer } from '../support/middleware-server.js';
import { CLIENT_INFO, isResponse, modernMeta } from '../support/peer.js';
import { StdioPeer } from '../support/stdio-peer.js';
import { until } from '../support/wait.js';
import { HttpPeer, nextMessage, rpc, serve, type Served } from '../http-e2e/support.js';

type Transport = 'stdio' | 'http';

interface Era {
  readonly label: string;
  readonly revision: string;
  readonly modern: boolean;
}

const legacy = (revision: string): Era => ({ label: `legacy ${revision}`, revision, modern: false });
const MODERN_ERA: Era = { label: `modern ${MODERN}`, revision: MODERN, modern: true };
const ERAS: Record<Transport, readonly Era[]> = {
  stdio: [legacy('2025-11-25'), legacy('2024-11-05'), MODERN_ERA],
  // 2024-11-05 has the HTTP+SSE transport, not Streamable HTTP.
  http: [legacy('2025-11-25'), legacy('2025-03-26'), MODERN_ERA],
};

const CAPS = { elicitation: {} };
const MIDDLEWARE_STDIO = fixture('middleware-stdio.js');

/** A request still running: its first server message, and the client giving up on it. */
interface Started {
  first(): Promise<Msg>;
  cancel(): Promise<void>;
}

/** One client of the middleware server, the same to the tests on both transports. */
interface Wire {
  readonly transport: Transport;
  readonly era: Era;
  /** The legacy session id as the client knows it (HTTP: Mcp-Session-Id); undefined where it has none to see. */
  readonly sessionId: string | undefined;
  /** Sends `initialize` (legacy) as a client named `name`. */
  initialize(name?: string): Promise<Msg>;
  /** Sends a request (with the `_meta` envelope on 2026-07-28) and resolves with its response. */
  call(method: string, params?: Record<string, unknown>, id?: Id): Promise<Msg>;
  start(method: string, params: Record<string, unknown>, id: Id): Promise<Started>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Everything the server's middleware logged so far (the `seen` tool). */
  seen(): Promise<string[]>;
  /** What the server reported to `onError` so far. */
  reported(): string;
  close(): Promise<void>;
}

const withEnvelope = (era: Era, params: Record<string, unknown>) =>
  era.modern ? { ...params, _meta: { ...modernMeta(CAPS), ...(params._meta as object | undefined) } } : params;
const clientInfo = (name = CLIENT_INFO.name) => ({ ...CLIENT_INFO, name });

function logOf(wire: Pick<Wire, 'call'>, log: string[]): () => Promise<string[]> {
  return async () => {
    const r = await wire.call('tools/call', { name: 'seen', arguments: {} });
    log.push(...(JSON.parse(r.result.content[0].text) as string[]));
    return log;
  };
}

function stdioWire(era: Era): Wire {
  const peer = new StdioPeer({ args: [MIDDLEWARE_STDIO], revision: era.revision });
  const call = (method: string, params: Record<string, unknown> = {}, id?: Id) =>
    era.modern ? peer.modern(method, params, { caps: CAPS, id }) : peer.request(method, params, { id });
  const notify = async (method: string, params: Record<string, unknown> = {}) => peer.notify(method, withEnvelope(era, params));
  return {
    transport: 'stdio',
    era,
    sessionId: undefined,
    initialize: (name) => peer.request('initialize', { protocolVersion: era.revision, capabilities: CAPS, clientInfo: clientInfo(name) }),
    call,
    async start(method, params, id) {
      peer.sendRaw({ jsonrpc: '2.0', id, method, params: withEnvelope(era, params) });
      return { first: () => peer.next(), cancel: () => notify('notifications/cancelled', { requestId: id }) };
    },
    notify,
    seen: logOf({ call }, []),
    reported: () => peer.stderr,
    close: () => peer.close(),
  };
}

function httpWire(era: Era, s: Served): Wire {
  const peer = new HttpPeer(s.url, era.revision);
  const call = async (method: string, params: Record<string, unknown> = {}, id: Id = peer.id()) => {
    const o = era.modern ? await peer.modern(method, params, { id, caps: CAPS }) : await peer.request(method, params, { id });
    const answer = o.messages.find((m) => isResponse(m) && m.id === id);
    if (!answer) throw new assert.AssertionError({ message: `no response to ${method} in ${JSON.stringify(o.messages)}` });
    return answer;
  };
  const notify = async (method: string, params: Record<string, unknown> = {}) => {
    const o = await peer.notify(method, params);
    assert.equal(o.status, 202, `${method}: ${JSON.stringify(o)}`);
  };
  return {
    transport: 'http',
    era,
    get sessionId() {
      return peer.sessionId;
    },
    async initialize(name) {
      const o = await peer.request('initialize', { protocolVersion: era.revision, capabilities: CAPS, clientInfo: clientInfo(name) });
      peer.sessionId = o.headers['mcp-session-id'] as string;
      return o.messages[0]!;
    },
    call,
    async start(method, params, id) {
      if (era.modern) {
        const reply = await peer.openModern(method, params, { id, caps: CAPS });
        // 2026-07-28 HTTP: the client cancels by closing the request's stream (no notification).
        return { first: () => nextMessage(reply), cancel: async () => reply.abort() };
      }
      // The reply may not start before the answer: it is not waited for.
      const reply = peer.open(rpc(id, method, params));
      return {
        first: async () => nextMessage(await reply),
        cancel: async () => {
          await notify('notifications/cancelled', { requestId: id });
          void reply.then((r) => r.abort());
        },
      };
    },
    notify,
    seen: logOf({ call }, []),
    reported: () => s.errors.map((e) => (e instanceof Error ? (e.stack ?? e.message) : String(e))).join('\n'),
    async close() {
      peer.assertClean();
      await s.close({ allowErrors: true });
    },
  };
}

/** Runs `fn` with a client of `era` on `transport` (after the legacy handshake unless `handshake: false`). */
async function withWire(
  transport: Transport,
  era: Era,
  fn: (wire: Wire) => Promise<void>,
  opts: { handshake?: boolean; name?: string } = {},
): Promise<void> {
  const wire = transport === 'stdio' ? stdioWire(era) : httpWire(era, await serve(createMiddlewareServer()));
  try {
    if (!era.modern && opts.handshake !== false) {
      const init = await wire.initialize(opts.name);
      assert.equal(init.result?.protocolVersion, era.revision, JSON.stringify(init));
      await wire.notify('notifications/initialized');
    }
    await fn(wire);
  } finally {
    await wire.close();
  }
}

const texts = (r: Msg): string[] => {
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.result.content.map((b: Msg) => b.text);
};
const tool = (name: string, args: Record<string, unknown> = {}) => ['tools/call', { name, arguments: args }] as const;

for (const transport of ['stdio', 'http'] as const) {
  for (const era of ERAS[transport]) {
    describe(`${transport}, ${era.label}`, () => {
      test('order, result transform, state, retry, pass-through, and next() resolving to the era-neutral result', async () => {
        await withWire(transport, era, async (w) => {
          assert.deepEqual(texts(await w.call(...tool('order'))), ['done', 'g1> call1> g2> call2> handler <call2 <g2 <call1 <g1']);
          assert.deepEqual(texts(await w.call(...tool('whoami'))), ['user ada']);
          assert.deepEqual(texts(await w.call(...tool('twice'))), ['run 2']);
          assert.deepEqual(texts(await w.call(...tool('quiet'))), ['quiet result']);
          assert.deepEqual(JSON.parse(texts(await w.call(...tool('neutral')))[0]!), {
            content: [
              { type: 'text', text: 'see' },
              { type: 'resource_link', uri: 'test://doc', name: 'doc' },
            ],
            structuredContent: { n: 1 },
          });
        });
      });

      test('short-circuit shaped for the revision, McpError refusal, masked and reported failures', async () => {
        await withWire(transport, era, async (w) => {
          const r = await w.call(...tool('short_circuit'));
          const { _meta, resultType, ...result } = r.result;
          // Resource links and structuredContent came in 2025-06-18; the peer checked the revision's schema.
          assert.deepEqual(
            result,
            era.revision < '2025-06-18'
              ? {
                  content: [
                    { type: 'text', text: 'from middleware' },
                    { type: 'text', text: 'doc: test://doc' },
                  ],
                }
              : {
                  content: [
                    { type: 'text', text: 'from middleware' },
                    { type: 'resource_link', uri: 'test://doc', name: 'doc' },
                  ],
                  structuredContent: { answer: 42 },
                },
          );
          assert.equal(resultType, era.modern ? 'complete' : undefined);
          assert.deepEqual((await w.call(...tool('forbidden'))).error, { code: -32600, message: 'Sign in first', data: { need: 'login' } });
          assert.doesNotMatch(w.reported(), /Sign in first/);
          const exploded = await w.call(...tool('explode'));
          assert.deepEqual(exploded.error, { code: -32603, message: 'Internal error' });
          assert.doesNotMatch(JSON.stringify(exploded), /db-7/);
          assert.deepEqual((await w.call(...tool('forgot'))).error, { code: -32603, message: 'Internal error' });
          await until(
            () => w.reported().includes(SECRET) && /neither returned a result nor called next\(\)/.test(w.reported()),
            'both reports',
          );
        });
      });

      test('ctx names the request: kind, method, params, id, era, revision, client, _meta, session, transport, principal', async () => {
        await withWire(transport, era, async (w) => {
          const r = await w.call('tools/call', { name: 'context', arguments: { a: 1 }, _meta: { progressToken: 'p-1' } }, 'ctx-1');
          const seen = JSON.parse(texts(r)[0]!);
          const meta = era.modern ? { ...modernMeta(CAPS), progressToken: 'p-1' } : { progressToken: 'p-1' };
          if (!era.modern) assert.equal(typeof seen.sessionId, 'string');
          assert.deepEqual(seen, {
            kind: 'request',
            method: 'tools/call',
            params: { name: 'context', arguments: { a: 1 }, _meta: meta },
            id: 'ctx-1',
            era: era.modern ? 'modern' : 'legacy',
            protocolVersion: era.revision,
            client: { info: CLIENT_INFO, capabilities: CAPS },
            meta,
            // stdio: the client never sees its session's id.
            sessionId: era.modern ? null : (w.sessionId ?? seen.sessionId),
            transport,
            principal: null,
            signal: true,
          });
        });
      });

      test('arguments rewritten by middleware reach the tool, and are validated after middleware', async () => {
        await withWire(transport, era, async (w) => {
          assert.deepEqual(texts(await w.call(...tool('greet', { alias: 'Ada' }))), ['hello Ada']);
          const invalid = await w.call(...tool('greet', { alias: 42 }));
          assert.equal(invalid.result.isError, true);
          assert.match(invalid.result.content[0].text, /Invalid arguments for tool greet/);
        });
      });

      test('a request answered with an error goes through the chain (unknown method -32601)', async () => {
        await withWire(transport, era, async (w) => {
          assert.equal((await w.call('nope/nothing')).error?.code, -32601);
          assert.ok((await w.seen()).includes(`${era.modern ? 'modern' : 'legacy'} request nope/nothing failed -32601`));
        });
      });

      if (!era.modern) {
        test('tools/call before the handshake completes goes through the chain and is answered -32600', async () => {
          await withWire(
            transport,
            era,
            async (w) => {
              // Over HTTP a request without a session never reaches the server's core (no session to belong to).
              if (transport === 'stdio') {
                const early = await w.call(...tool('order'));
                assert.deepEqual(early.error, { code: -32600, message: 'Session not initialized: send initialize first' });
              }
              await w.initialize();
              const between = await w.call(...tool('order'));
              assert.deepEqual(between.error, { code: -32600, message: 'Session not initialized: send notifications/initialized first' });
              await w.notify('notifications/initialized');
              const failed = (await w.seen()).filter((l) => l.endsWith('failed -32600'));
              assert.deepEqual(failed, Array(transport === 'stdio' ? 2 : 1).fill('legacy request tools/call failed -32600'));
            },
            { handshake: false },
          );
        });

        test('middleware sees notifications/initialized; one that does not call next() leaves the session uninitialized', async () => {
          await withWire(transport, era, async (w) => {
            assert.ok((await w.seen()).includes('legacy notification notifications/initialized'));
          });
          await withWire(
            transport,
            era,
            async (w) => {
              const r = await w.call(...tool('order'));
              assert.deepEqual(r.error, { code: -32600, message: 'Session not initialized: send notifications/initialized first' });
            },
            { name: DROP_INITIALIZED },
          );
        });
      }

      // 2026-07-28 over HTTP cancels by closing the request's stream: there is no notification to see.
      if (transport === 'stdio' || !era.modern) {
        test('notifications/cancelled goes through middleware and aborts the request, which gets no answer', async () => {
          await withWire(transport, era, async (w) => {
            const slow = await w.start(...tool('slow'), 'slow-1');
            await until(async () => (await w.seen()).includes(`${era.modern ? 'modern' : 'legacy'} request tools/call`), 'the call');
            await slow.cancel();
            await until(async () => (await w.seen()).includes('slow aborted'), 'the tool to see its cancellation');
            // The cancellation carries the 2026-07-28 envelope on that wire: the middleware sees it as modern.
            const cancelled = (await w.seen()).find((l) => l.endsWith('notification notifications/cancelled'));
            assert.equal(cancelled, `${era.modern ? 'modern' : 'legacy'} notification notifications/cancelled`);
          });
        });
      }

      if (era.modern) {
        test('MRTR through middleware: the first round’s next() is input_required, the retry’s the result', async () => {
          await withWire(transport, era, async (w) => {
            const first = await w.call(...tool('ask'));
            assert.equal(first.result.resultType, 'input_required');
            const [key] = Object.keys(first.result.inputRequests);
            const retry = await w.call('tools/call', {
              name: 'ask',
              arguments: {},
              inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } },
              requestState: first.result.requestState,
            });
            assert.deepEqual(texts(retry), ['Hello, Ada']);
            assert.deepEqual(
              (await w.seen()).filter((l) => l.startsWith('ask next')),
              ['ask next input_required', 'ask next result'],
            );
          });
        });

        test('resources/read passed through middleware keeps its resource’s cache hint', async () => {
          await withWire(transport, era, async (w) => {
            const r = await w.call('resources/read', { uri: 'test://cached' });
            assert.deepEqual([r.result.ttlMs, r.result.cacheScope], [60_000, 'public']);
          });
        });

        test('subscriptions/listen: next() resolves when the stream ends; a refusal by McpError is the answer', async () => {
          await withWire(transport, era, async (w) => {
            const listen = await w.start('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L1');
            assert.equal((await listen.first()).method, 'notifications/subscriptions/acknowledged');
            assert.ok(!(await w.seen()).includes('modern request subscriptions/listen ended'));
            await listen.cancel();
            await until(async () => (await w.seen()).includes('modern request subscriptions/listen ended'), 'next() to resolve');
            const refused = await w.call('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'refused');
            assert.deepEqual(refused.error, { code: -32600, message: 'Listening needs a subscription plan' });
          });
        });
      }
    });
  }
}
