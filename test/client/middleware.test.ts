/**
 * Client middleware (src/client/middleware.ts: a typed (ctx, next) chain around the client's
 * outbound requests), in memory against a real Janus server whose own middleware
 * records what arrives: the chain's order and per-method registration, short-circuit,
 * transforms, errors, retry, `_meta` reaching the server in both eras alongside the
 * 2026-07-28 envelope (basic/index.mdx §_meta), one chain run per call however many
 * input_required rounds it takes (basic/patterns/mrtr.mdx), and the requests of era
 * detection going through it too.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClientMiddleware, ClientMiddlewareContext, ConnectOptions } from '../../src/client/index.js';
import type { Era } from '../../src/protocol/versions.js';
import { buildMetaServer } from '../fixtures/client-middleware/server.js';
import { META_CLIENT, META_VERSION } from '../support/common.js';
import { until } from '../support/wait.js';
import { inMemory, textOf } from './helpers.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** A server of one era (the client detects it), with the requests it got recorded. */
async function pair(
  era: Era,
  options: ConnectOptions = {},
  server = buildMetaServer({ eras: { legacy: true, modern: era === 'modern' } }),
) {
  const memory = await inMemory(server.server, options);
  assert.equal(memory.client.era, era);
  return { ...memory, seen: server.seen };
}

/** Puts `traceparent` into every request's `_meta`, keeping what is there. */
const tracing: ClientMiddleware = (ctx, next) => {
  ctx.params = { ...ctx.params, _meta: { ...ctx.params._meta, traceparent: TRACEPARENT } };
  return next();
};

/** A middleware that records the context of every call it sees. */
function recorder(
  into: Array<Pick<ClientMiddlewareContext, 'method' | 'era' | 'protocolVersion' | 'transport' | 'serverUrl' | 'sessionId'>>,
) {
  const run: ClientMiddleware = ({ method, era, protocolVersion, transport, serverUrl, sessionId }, next) => {
    into.push({ method, era, protocolVersion, transport, serverUrl, sessionId });
    return next();
  };
  return run;
}

for (const era of ['modern', 'legacy'] as const) {
  describe(`client middleware (${era} era, in memory)`, () => {
    test('run in registration order, the first outermost; one that returns nothing after next() passes its result on', async () => {
      const { client, close } = await pair(era);
      const order: string[] = [];
      try {
        for (const name of ['a', 'b', 'c']) {
          client.use(async (_ctx, next) => {
            order.push(`>${name}`);
            const result = await next();
            order.push(`<${name}`);
            return name === 'b' ? undefined : result;
          });
        }
        assert.equal(textOf(await client.callTool('echo', { text: 'hi' })), 'echo: hi');
        assert.deepEqual(order, ['>a', '>b', '>c', '<c', '<b', '<a']);
      } finally {
        await close();
      }
    });

    test('one that calls next() without waiting for it and returns nothing passes on its outcome: the result, or the error', async () => {
      const { client, close } = await pair(era);
      try {
        client.use((_ctx, next) => {
          // Fire and forget, or only log a failure: the call still gets what next() gives.
          next().catch(() => {});
        });
        assert.equal(textOf(await client.callTool('echo', { text: 'late' })), 'echo: late');
        await assert.rejects(client.callTool('no_such_tool', {}), (e: { code?: number }) => e.code === -32602);
      } finally {
        await close();
      }
    });

    test('use(method, …) runs for that method only, interleaved with the global ones as registered', async () => {
      const ran: string[] = [];
      const mark =
        (name: string): ClientMiddleware =>
        (ctx, next) => {
          ran.push(`${name}:${ctx.method}`);
          return next();
        };
      const { client, close } = await pair(era, { middleware: [mark('options')] });
      try {
        ran.length = 0; // what era detection sent
        client.use('tools/call', (ctx, next) => {
          ran.push(`call:${ctx.method}:${ctx.params.name}`);
          return next();
        });
        client.use(mark('late'));
        await client.callTool('echo', { text: 'x' });
        await client.listTools();
        assert.deepEqual(ran, ['options:tools/call', 'call:tools/call:echo', 'late:tools/call', 'options:tools/list', 'late:tools/list']);
      } finally {
        await close();
      }
    });

    test('a middleware that returns a result without calling next() answers the call; nothing is sent', async () => {
      const { client, wire, seen, close } = await pair(era);
      try {
        client.use('tools/call', () => ({ content: [{ type: 'text', text: 'from middleware' }] }));
        assert.equal(textOf(await client.callTool('echo', { text: 'x' })), 'from middleware');
        assert.deepEqual(wire.sent('tools/call'), []);
        assert.equal(seen.filter((s) => s.method === 'tools/call').length, 0);
      } finally {
        await close();
      }
    });

    test('params replaced before next() are what the server gets; the result it returns is what the caller gets', async () => {
      const { client, close } = await pair(era);
      try {
        client.use('tools/call', async (ctx, next) => {
          ctx.params = { ...ctx.params, arguments: { text: 'changed' } };
          const result = await next();
          return { ...result, content: [{ type: 'text', text: textOf(result).toUpperCase() }] };
        });
        assert.equal(textOf(await client.callTool('echo', { text: 'original' })), 'ECHO: CHANGED');
      } finally {
        await close();
      }
    });

    test('an error thrown by a middleware fails the call with that error, before anything is sent', async () => {
      const { client, wire, close } = await pair(era);
      const refused = new Error('refused by middleware');
      try {
        client.use('tools/call', () => {
          throw refused;
        });
        await assert.rejects(client.callTool('echo', { text: 'x' }), (e) => e === refused);
        client.use('tools/list', async () => Promise.reject(refused));
        await assert.rejects(client.listTools(), (e) => e === refused);
        assert.deepEqual(wire.sent('tools/call'), []);
        assert.deepEqual(wire.sent('tools/list'), []);
      } finally {
        await close();
      }
    });

    test('calling next() again retries: the request is sent again and the second answer is the result', async () => {
      const { client, seen, close } = await pair(era);
      const failures: unknown[] = [];
      try {
        client.use('tools/call', async (_ctx, next) => {
          try {
            return await next();
          } catch (e) {
            failures.push(e);
            return next();
          }
        });
        assert.equal(textOf(await client.callTool('flaky')), 'steady');
        assert.equal(failures.length, 1);
        assert.match(String((failures[0] as Error).message), /flaky: try again/);
        assert.equal(seen.filter((s) => s.method === 'tools/call').length, 2);
      } finally {
        await close();
      }
    });

    test('_meta set by a middleware reaches the server on every request, era detection included, with the era’s own keys', async () => {
      const { client, seen, close } = await pair(era, { middleware: [tracing] });
      try {
        await client.listTools();
        await client.request('tools/list', { _meta: { mine: 1 } });
        const handlerMeta = JSON.parse(textOf(await client.callTool('meta')));
        assert.equal(handlerMeta.traceparent, TRACEPARENT, 'the tool handler’s ctx.meta');
        assert.ok(seen.length >= 4);
        assert.ok(
          seen.some((s) => s.method === (era === 'modern' ? 'server/discover' : 'initialize')),
          'the era detection request',
        );
        for (const { method, meta } of seen) {
          assert.equal(meta?.traceparent, TRACEPARENT, method);
          // The probe is a 2026-07-28 request whatever the server turns out to speak.
          if (era === 'modern' || method === 'server/discover') {
            assert.equal(meta?.[META_VERSION], '2026-07-28', `${method}: the modern envelope is still there`);
            assert.ok(meta?.[META_CLIENT], method);
          } else {
            assert.equal(META_VERSION in (meta ?? {}), false, method);
          }
        }
        assert.equal(seen.find((s) => s.meta?.mine === 1)?.method, 'tools/list', 'a caller’s own _meta is kept');
      } finally {
        await close();
      }
    });

    test('the context reports the era (undefined while detecting), the revision and the channel', async () => {
      const calls: Parameters<typeof recorder>[0] = [];
      const { client, close } = await pair(era, { middleware: [recorder(calls)] });
      try {
        await client.listTools();
        const version = era === 'modern' ? '2026-07-28' : '2025-11-25';
        const detection = era === 'modern' ? ['server/discover'] : ['server/discover', 'initialize'];
        assert.deepEqual(
          calls.map((c) => c.method),
          [...detection, 'tools/list'],
        );
        for (const c of calls.slice(0, detection.length)) assert.deepEqual([c.era, c.protocolVersion], [undefined, undefined], c.method);
        assert.deepEqual(calls.at(-1), {
          method: 'tools/list',
          era,
          protocolVersion: version,
          transport: 'memory',
          serverUrl: undefined,
          sessionId: undefined,
        });
      } finally {
        await close();
      }
    });
  });
}

test('modern: a tool that elicits takes two requests on the wire and one run of the chain; each round carries the middleware’s _meta', async () => {
  let runs = 0;
  const counting: ClientMiddleware = (_ctx, next) => (runs++, next());
  const { client, seen, close } = await pair('modern', {
    middleware: [tracing],
    onElicit: () => ({ action: 'accept', content: { name: 'Ada' } }),
  });
  try {
    client.use('tools/call', counting);
    assert.equal(textOf(await client.callTool('ask')), 'hello Ada');
    assert.equal(runs, 1);
    const calls = seen.filter((s) => s.method === 'tools/call');
    assert.equal(calls.length, 2, 'the first round and the retry with inputResponses');
    for (const c of calls) assert.equal(c.meta?.traceparent, TRACEPARENT);
  } finally {
    await close();
  }
});

test('modern: each subscriptions/listen request goes through the chain with the middleware’s _meta', async () => {
  const methods: string[] = [];
  const { client, seen, close } = await pair('modern', { middleware: [tracing] });
  const stop = new AbortController();
  try {
    client.use((ctx, next) => (methods.push(ctx.method), next()));
    const stream = client.listen({ toolsListChanged: true }, { signal: stop.signal });
    const listen = await until(() => seen.find((s) => s.method === 'subscriptions/listen'), 'the listen request');
    assert.equal(listen.meta?.traceparent, TRACEPARENT);
    assert.deepEqual(methods, ['subscriptions/listen']);
    stop.abort();
    await stream.return?.();
  } finally {
    await close();
  }
});

test('modern: a cached answer goes through the chain too, so a transform applies to it as to a fresh one', async () => {
  const { client, seen, close } = await pair(
    'modern',
    { cache: true },
    buildMetaServer({ cache: { 'tools/list': { ttlMs: 60_000, scope: 'public' } } }),
  );
  let runs = 0;
  try {
    client.use('tools/list', async (_ctx, next) => {
      runs++;
      const page = await next();
      return { ...page, tools: page.tools.filter((t) => t.name !== 'flaky') };
    });
    for (let i = 0; i < 2; i++) {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.equal(names.includes('flaky'), false, `call ${i + 1}`);
      assert.equal(names.includes('echo'), true, `call ${i + 1}`);
    }
    assert.equal(runs, 2);
    assert.equal(seen.filter((s) => s.method === 'tools/list').length, 1, 'the second answer came from the cache');
  } finally {
    await close();
  }
});

test('use() refuses what is not a middleware', async () => {
  const { client, close } = await pair('modern');
  try {
    assert.throws(() => client.use('tools/call', 'nope' as never), TypeError);
    assert.throws(() => client.use('' as never, (_c, n) => n()), TypeError);
    assert.equal(
      client.use((_c, n) => n()),
      client,
    );
  } finally {
    await close();
  }
});
