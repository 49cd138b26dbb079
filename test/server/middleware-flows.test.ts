/**
 * Server middleware around the rest of the protocol
 * (src/server/middleware.ts): notifications (cancelled, initialized, others) go through the
 * chain and are dropped when a middleware does not call `next()`; the legacy handshake's
 * refusals and 2025-03-26 batches pass through it; on 2026-07-28 an MRTR round, a cached
 * `resources/read` and `subscriptions/listen` streams do; the transport's principal reaches
 * `ctx`. In memory, both eras, every server message checked against the revision's schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coreOf } from '../../src/spi/index.js';
import { createServer, isInputRequired, type MiddlewareContext, type Server } from '../../src/server/index.js';
import { ErrorCode, McpError } from '../../src/errors/index.js';
import type { ReadResourceResult } from '../../src/protocol/types.js';
import { META_SUB, type Msg } from '../support/common.js';
import { ERAS, LEGACY_ERAS, MODERN_ERA, texts, tool, withClient, type Client, type Era } from '../support/middleware-client.js';
import { CLIENT_INFO, modernMeta } from '../support/peer.js';
import { aborted, deferred, until } from '../support/wait.js';

for (const era of ERAS) {
  test(`${era.label}: notifications/cancelled goes through middleware; passed on, it aborts the request, which gets no answer`, async () => {
    const seen: Array<Record<string, unknown>> = [];
    const started = deferred();
    const stopped = deferred();
    const setup = (server: Server) => {
      server.tool('slow', async (_args, ctx) => {
        started.resolve();
        await aborted(ctx.signal);
        stopped.resolve();
        return 'aborted';
      });
      server.use('notifications/cancelled', (ctx, next) => {
        seen.push({ kind: ctx.kind, id: ctx.id, era: ctx.era, requestId: ctx.params.requestId });
        return next();
      });
    };
    await withClient(era, setup, async (c) => {
      c.send(...tool('slow'), 'slow-1');
      await started.promise;
      c.notify('notifications/cancelled', { requestId: 'slow-1' });
      await stopped.promise;
      await c.peer.assertNone((m) => m.id === 'slow-1', 'an answer to the cancelled request');
      assert.deepEqual(seen, [{ kind: 'notification', id: undefined, era: era.modern ? 'modern' : 'legacy', requestId: 'slow-1' }]);
    });
  });

  test(`${era.label}: a middleware that does not call next() for notifications/cancelled drops it: the request runs on`, async () => {
    const seen: unknown[] = [];
    const started = deferred();
    const release = deferred();
    const setup = (server: Server) => {
      server.tool('slow', async (_args, ctx) => {
        started.resolve();
        return Promise.race([aborted(ctx.signal).then(() => 'aborted'), release.promise.then(() => 'released')]);
      });
      server.use('notifications/cancelled', (ctx) => void seen.push(ctx.params.requestId));
    };
    await withClient(era, setup, async (c) => {
      const answer = c.call(...tool('slow'), 'slow-1');
      await started.promise;
      c.notify('notifications/cancelled', { requestId: 'slow-1' });
      await until(() => seen.length === 1, 'the middleware to see the cancellation');
      release.resolve();
      assert.deepEqual(texts(await answer), ['released']);
      assert.deepEqual(seen, ['slow-1']);
    });
  });
}

for (const era of LEGACY_ERAS) {
  test(`${era.label}: requests before the handshake completes go through the chain and are answered -32600`, async () => {
    const seen: unknown[] = [];
    const setup = (server: Server) => {
      server.tool('work', () => 'done');
      server.use(async (ctx, next) => {
        try {
          return await next();
        } catch (e) {
          seen.push([ctx.method, ctx.protocolVersion, e instanceof McpError ? e.code : e]);
          throw e;
        }
      });
    };
    const opts = { handshake: false };
    await withClient(
      era,
      setup,
      async (c) => {
        const early = await c.call(...tool('work'));
        assert.deepEqual(early.error, { code: -32600, message: 'Session not initialized: send initialize first' });
        const init = await c.call('initialize', { protocolVersion: era.revision, capabilities: {}, clientInfo: CLIENT_INFO });
        assert.equal(init.result.protocolVersion, era.revision);
        const between = await c.call(...tool('work'));
        assert.deepEqual(between.error, { code: -32600, message: 'Session not initialized: send notifications/initialized first' });
        assert.deepEqual(seen, [
          ['tools/call', undefined, -32600],
          ['tools/call', era.revision, -32600],
        ]);
      },
      opts,
    );
  });

  test(`${era.label}: initialize reaches middleware before the session has a revision or a client`, async () => {
    const seen: unknown[] = [];
    const setup = (server: Server) =>
      server.use('initialize', async (ctx, next) => {
        seen.push({ before: ctx.protocolVersion, client: ctx.client.info, params: ctx.params.protocolVersion });
        const r = await next();
        seen.push({ negotiated: r.protocolVersion });
        return r;
      });
    await withClient(era, setup, async () => {
      assert.deepEqual(seen, [{ before: undefined, client: undefined, params: era.revision }, { negotiated: era.revision }]);
    });
  });

  test(`${era.label}: middleware sees notifications/initialized; not calling next() leaves the session uninitialized`, async () => {
    const seen: unknown[] = [];
    let drop = false;
    const setup = (server: Server) => {
      server.tool('work', () => 'done');
      server.use((ctx, next) => {
        if (ctx.kind === 'notification') seen.push({ method: ctx.method, id: ctx.id, era: ctx.era, v: ctx.protocolVersion });
        return drop && ctx.method === 'notifications/initialized' ? undefined : next();
      });
    };
    await withClient(era, setup, async (c) => {
      assert.deepEqual(seen, [{ method: 'notifications/initialized', id: undefined, era: 'legacy', v: era.revision }]);
      assert.deepEqual(texts(await c.call(...tool('work'))), ['done']);
    });
    drop = true;
    await withClient(era, setup, async (c) => {
      const r = await c.call(...tool('work'));
      assert.deepEqual(r.error, { code: -32600, message: 'Session not initialized: send notifications/initialized first' });
    });
  });

  test(`${era.label}: a notification refused with McpError is dropped quietly; any other error is reported`, async () => {
    const failure = new Error('roots cache unavailable');
    const setup = (server: Server) => {
      server.use('notifications/roots/list_changed', (ctx) => {
        if (ctx.params.quiet) throw new McpError(ErrorCode.InvalidRequest, 'not now');
        throw failure;
      });
    };
    await withClient(era, setup, async (c, errors) => {
      c.notify('notifications/roots/list_changed', { quiet: true });
      await c.peer.barrier();
      assert.deepEqual(errors, []);
      c.notify('notifications/roots/list_changed');
      await until(() => errors.length === 1, 'the failure to be reported');
      assert.equal(errors[0], failure);
      await c.peer.assertNone(() => true, 'an answer to a notification');
    });
  });
}

test('legacy 2025-03-26: each request of a batch goes through the chain', async () => {
  const era: Era = { label: 'legacy 2025-03-26', revision: '2025-03-26', modern: false };
  const seen: unknown[] = [];
  const setup = (server: Server) => {
    server.tool('work', () => 'done');
    server.use('tools/call', async (ctx, next) => {
      seen.push(ctx.id);
      const r = await next();
      return { ...r, content: [{ type: 'text', text: `item ${String(ctx.id)}` }] };
    });
  };
  await withClient(era, setup, async (c) => {
    c.peer.sendRaw([
      { jsonrpc: '2.0', id: 'b1', method: 'tools/call', params: { name: 'work', arguments: {} } },
      { jsonrpc: '2.0', id: 'b2', method: 'tools/call', params: { name: 'work', arguments: {} } },
    ]);
    const [b1, b2] = await Promise.all([c.peer.expectResponse('b1'), c.peer.expectResponse('b2')]);
    assert.deepEqual([texts(b1!), texts(b2!)], [['item b1'], ['item b2']]);
    assert.deepEqual(seen.sort(), ['b1', 'b2']);
  });
});

test('modern: a tool that elicits — the first round’s next() resolves to input_required, the retry’s to the final result', async () => {
  const rounds: unknown[] = [];
  const setup = (server: Server) => {
    const requestedSchema = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
    server.tool('ask', async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Your name?', requestedSchema });
      return `Hello, ${String(answer.content?.name)}`;
    });
    server.use('tools/call', async (_ctx, next) => {
      const r = await next();
      rounds.push(structuredClone(r));
      return r;
    });
  };
  await withClient(MODERN_ERA, setup, async (c) => {
    const first = await c.call(...tool('ask'));
    const { _meta, ...round } = first.result;
    assert.equal(round.resultType, 'input_required');
    assert.deepEqual(rounds, [round]);
    assert.ok(isInputRequired(rounds[0]));
    const [key] = Object.keys(round.inputRequests);
    const inputResponses = { [key!]: { action: 'accept', content: { name: 'Ada' } } };
    const retry = await c.call('tools/call', { name: 'ask', arguments: {}, inputResponses, requestState: round.requestState });
    assert.equal(retry.result.resultType, 'complete');
    assert.deepEqual(texts(retry), ['Hello, Ada']);
    assert.deepEqual(rounds[1], { content: [{ type: 'text', text: 'Hello, Ada' }] });
  });
});

test('modern: resources/read keeps its resource’s cache hint when middleware passes the result through; a new result gets the default', async () => {
  const setup = (server: Server) => {
    server.resource('test://kept', { name: 'kept', cache: { ttlMs: 60_000, scope: 'public' } }, 'k');
    server.resource('test://rebuilt', { name: 'rebuilt', cache: { ttlMs: 60_000, scope: 'public' } }, 'r');
    server.use('resources/read', async (ctx, next) => {
      const r = (await next()) as ReadResourceResult;
      return ctx.params.uri === 'test://rebuilt' ? { contents: r.contents } : r;
    });
    server.use(async (_ctx, next) => next());
  };
  await withClient(MODERN_ERA, setup, async (c) => {
    const kept = await c.call('resources/read', { uri: 'test://kept' });
    assert.deepEqual([kept.result.ttlMs, kept.result.cacheScope], [60_000, 'public']);
    const rebuilt = await c.call('resources/read', { uri: 'test://rebuilt' });
    assert.deepEqual([rebuilt.result.ttlMs, rebuilt.result.cacheScope], [0, 'private']);
  });
});

/** Opens a 2026-07-28 listen stream for tool-list changes and returns its acknowledgement. */
async function listen(c: Client, id: string): Promise<Msg> {
  c.send('subscriptions/listen', { notifications: { toolsListChanged: true } }, id);
  return c.peer.next((m) => m.method === 'notifications/subscriptions/acknowledged' && m.params._meta[META_SUB] === id);
}

test('modern: subscriptions/listen through middleware — next() resolves when the stream ends, cancelled or closed by the server', async () => {
  const events: string[] = [];
  const setup = (server: Server) => {
    server.tool('t', () => 'ok');
    server.use('subscriptions/listen', async (ctx, next) => {
      events.push(`open ${String(ctx.id)}`);
      const r = await next();
      events.push(`ended ${String(ctx.id)}`);
      return r;
    });
  };
  await withClient(MODERN_ERA, setup, async (c, _errors, server) => {
    await listen(c, 'L1');
    server.tool('added', () => 'x');
    await c.peer.next((m) => m.method === 'notifications/tools/list_changed' && m.params._meta[META_SUB] === 'L1');
    assert.deepEqual(events, ['open L1']);
    c.notify('notifications/cancelled', { requestId: 'L1' });
    await until(() => events.includes('ended L1'), 'next() to resolve after the cancellation');
    await listen(c, 'L2');
    const final = c.peer.expectResponse('L2', 'subscriptions/listen');
    server.close();
    assert.equal((await final).result.resultType, 'complete');
    await until(() => events.includes('ended L2'), 'next() to resolve after the graceful end');
    assert.deepEqual(events, ['open L1', 'ended L1', 'open L2', 'ended L2']);
  });
});

test('modern: subscriptions/listen refused or answered by middleware gets that answer and opens no stream', async () => {
  const setup = (server: Server) => {
    server.tool('t', () => 'ok');
    server.use('subscriptions/listen', (ctx, next) => {
      if (ctx.id === 'refused') throw new McpError(ErrorCode.InvalidRequest, 'Listening needs a subscription plan');
      if (ctx.id === 'answered') return {};
      return next();
    });
  };
  await withClient(MODERN_ERA, setup, async (c, errors, server) => {
    c.send('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'refused');
    assert.deepEqual((await c.peer.expectResponse('refused', 'subscriptions/listen')).error, {
      code: -32600,
      message: 'Listening needs a subscription plan',
    });
    c.send('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'answered');
    // Answered as a graceful end is (subscriptions.mdx): the peer checks SubscriptionsListenResult.
    const answered = await c.peer.expectResponse('answered', 'subscriptions/listen');
    assert.equal(answered.result._meta[META_SUB], 'answered');
    await c.peer.assertNone((m) => m.method === 'notifications/subscriptions/acknowledged', 'a stream opened');
    assert.equal((coreOf(server) as unknown as { hub: { size: number } }).hub.size, 0);
    assert.deepEqual(errors, []);
  });
});

for (const era of [ERAS[0]!, MODERN_ERA]) {
  test(`${era.label}: ctx.principal and ctx.transport are the transport's (a custom transport driving the core)`, async () => {
    const seen: MiddlewareContext[] = [];
    const server = createServer({ name: 'mw', version: '1.0.0' });
    server.tool('work', () => 'done');
    server.use((ctx, next) => {
      seen.push(ctx);
      return next();
    });
    const core = coreOf(server);
    const sent: Msg[] = [];
    const send = (m: unknown) => void sent.push(m as Msg);
    const channel = era.modern ? undefined : core.openChannel({ send });
    const inbound = { transport: 'memory' as const, principal: 'alice@example.com', send, channel };
    try {
      if (!era.modern) {
        await core.handle(
          { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: era.revision, capabilities: {} } },
          inbound,
        );
        await core.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }, inbound);
      }
      const params = { name: 'work', arguments: {}, ...(era.modern ? { _meta: modernMeta() } : {}) };
      await core.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }, inbound);
      assert.equal(sent.at(-1)?.result?.content?.[0]?.text, 'done');
      for (const ctx of seen) {
        assert.equal(ctx.principal, 'alice@example.com');
        assert.equal(ctx.transport, 'memory');
        assert.equal(ctx.sessionId, channel?.id);
      }
      assert.equal(seen.length, era.modern ? 1 : 3);
    } finally {
      server.close();
    }
  });
}
