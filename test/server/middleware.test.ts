/**
 * Server middleware (src/server/middleware.ts): a `(ctx, next)`
 * chain around every inbound request, the same in both eras. Order, short-circuit, errors,
 * the context and its state, params and results, each pinned on a legacy session
 * (2025-11-25 and 2024-11-05) and on the stateless wire (2026-07-28, envelope in `_meta`),
 * over an in-memory pair whose peer checks every message the server writes against the
 * official schema of the revision in use (test/support/peer.ts). Notifications, the
 * handshake, MRTR and listen streams: middleware-flows.test.ts; a real stdio child and real
 * HTTP: middleware-e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { test } from 'node:test';
import { ErrorCode, McpError, ToolError } from '../../src/errors/index.js';
import type { Middleware, MiddlewareContext, Server } from '../../src/server/index.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import { META_SERVER, type Msg } from '../support/common.js';
import { CAPS, ERAS, texts, tool, withClient } from '../support/middleware-client.js';
import { CLIENT_INFO, modernMeta } from '../support/peer.js';
import { wireValidator } from '../support/wire-schema.js';

/** A middleware that brackets the rest of the chain with markers. */
const bracket =
  (trace: string[], name: string): Middleware =>
  async (ctx, next) => {
    trace.push(`${ctx.method} ${name}>`);
    const r = await next();
    trace.push(`${ctx.method} <${name}`);
    return r;
  };

for (const era of ERAS) {
  test(`${era.label}: global and per-method middleware run interleaved in registration order, the first outermost`, async () => {
    const trace: string[] = [];
    const setup = (server: Server) => {
      server.use(bracket(trace, 'g1'));
      server.use('tools/call', bracket(trace, 'call1'));
      server.use('tools/list', bracket(trace, 'list'));
      server.use(bracket(trace, 'g2'));
      server.use('tools/call', bracket(trace, 'call2'));
      server.tool('work', () => {
        trace.push('tools/call handler');
        return 'done';
      });
    };
    await withClient(era, setup, async (c, _errors, server) => {
      trace.length = 0;
      assert.deepEqual(texts(await c.call(...tool('work'))), ['done']);
      assert.deepEqual(trace, [
        'tools/call g1>',
        'tools/call call1>',
        'tools/call g2>',
        'tools/call call2>',
        'tools/call handler',
        'tools/call <call2',
        'tools/call <g2',
        'tools/call <call1',
        'tools/call <g1',
      ]);
      trace.length = 0;
      await c.call('tools/list');
      assert.deepEqual(trace, [
        'tools/list g1>',
        'tools/list list>',
        'tools/list g2>',
        'tools/list <g2',
        'tools/list <list',
        'tools/list <g1',
      ]);
      // One added later joins the chain, innermost.
      server.use('tools/call', bracket(trace, 'late'));
      trace.length = 0;
      await c.call(...tool('work'));
      assert.deepEqual(trace.slice(3, 6), ['tools/call call2>', 'tools/call late>', 'tools/call handler']);
    });
  });

  test(`${era.label}: a middleware answering tools/call itself skips the tool; its result is shaped for the revision`, async () => {
    let ran = 0;
    const setup = (server: Server) => {
      server.tool('real', () => {
        ran++;
        return 'from the tool';
      });
      server.use('tools/call', () => ({
        content: [
          { type: 'text', text: 'from middleware' },
          { type: 'resource_link', uri: 'test://doc', name: 'doc' },
        ],
        structuredContent: { answer: 42 },
      }));
    };
    await withClient(era, setup, async (c) => {
      const r = await c.call(...tool('real'));
      assert.equal(ran, 0);
      // The peer has checked the answer against the revision's CallToolResult (schema/<rev>).
      if (era.revision === '2024-11-05') {
        // No resource links nor structuredContent before 2025-06-18.
        assert.deepEqual(r.result, {
          content: [
            { type: 'text', text: 'from middleware' },
            { type: 'text', text: 'doc: test://doc' },
          ],
        });
      } else {
        const { _meta, resultType, ...rest } = r.result;
        assert.deepEqual(rest, {
          content: [
            { type: 'text', text: 'from middleware' },
            { type: 'resource_link', uri: 'test://doc', name: 'doc' },
          ],
          structuredContent: { answer: 42 },
        });
        assert.equal(resultType, era.modern ? 'complete' : undefined);
        assert.equal(_meta?.[META_SERVER]?.name, era.modern ? 'mw' : undefined);
      }
    });
  });

  test(`${era.label}: an McpError thrown by a middleware is the answer, code, message and data; nothing is reported`, async () => {
    let ran = 0;
    const setup = (server: Server) => {
      server.tool('delete', () => {
        ran++;
        return 'deleted';
      });
      server.use('tools/call', (ctx, next) => {
        if (ctx.params.name === 'delete') throw new McpError(ErrorCode.InvalidRequest, 'Sign in first', { need: 'login' });
        return next();
      });
    };
    await withClient(era, setup, async (c, errors) => {
      const r = await c.call(...tool('delete'));
      assert.deepEqual(r.error, { code: -32600, message: 'Sign in first', data: { need: 'login' } });
      assert.equal(ran, 0);
      assert.deepEqual(errors, []);
    });
  });

  test(`${era.label}: a ToolError thrown by a tools/call middleware is a tool result the model reads, not a protocol error`, async () => {
    const setup = (server: Server) => {
      server.tool('charge', () => 'charged');
      server.use('tools/call', () => {
        throw new ToolError('Over the daily quota: try again tomorrow.');
      });
    };
    await withClient(era, setup, async (c, errors) => {
      const r = await c.call(...tool('charge'));
      const { _meta, resultType, ...result } = r.result;
      assert.deepEqual(result, { content: [{ type: 'text', text: 'Over the daily quota: try again tomorrow.' }], isError: true });
      assert.equal(resultType, era.modern ? 'complete' : undefined);
      assert.deepEqual(errors, []);
    });
  });

  test(`${era.label}: any other error thrown by a middleware, before or after next(), is masked as -32603 and reported`, async () => {
    const before = new Error('vault at db-7.internal is down');
    const after = new TypeError('audit log db-7.internal full');
    let ran = 0;
    const setup = (server: Server) => {
      server.tool('before', () => 'never');
      server.tool('after', () => {
        ran++;
        return 'lost';
      });
      server.use('tools/call', async (ctx, next) => {
        if (ctx.params.name === 'before') throw before;
        await next();
        throw after;
      });
    };
    await withClient(era, setup, async (c, errors) => {
      for (const name of ['before', 'after']) {
        const r = await c.call(...tool(name));
        assert.deepEqual(r.error, { code: -32603, message: 'Internal error' });
      }
      assert.equal(ran, 1);
      assert.deepEqual(errors, [before, after]);
    });
  });

  test(`${era.label}: a middleware that neither returns a result nor calls next() is a server failure: -32603, reported`, async () => {
    const setup = (server: Server) => {
      server.tool('work', () => 'done');
      server.use('tools/call', () => undefined);
    };
    await withClient(era, setup, async (c, errors) => {
      assert.deepEqual((await c.call(...tool('work'))).error, { code: -32603, message: 'Internal error' });
      assert.equal(errors.length, 1);
      assert.match(String(errors[0]), /middleware for tools\/call neither returned a result nor called next\(\)/);
    });
  });

  test(`${era.label}: ctx names the request: kind, method, params, id, era, revision, client, _meta, session, principal, signal`, async () => {
    const seen: MiddlewareContext[] = [];
    const setup = (server: Server) => {
      server.tool('work', () => 'done');
      server.use((ctx, next) => {
        if (ctx.method === 'tools/call') seen.push(ctx);
        return next();
      });
    };
    await withClient(era, setup, async (c) => {
      const r = await c.call('tools/call', { name: 'work', arguments: { a: 1 }, _meta: { progressToken: 'p-1' } }, 'req-7');
      assert.equal(r.id, 'req-7');
      const ctx = seen[0]!;
      const meta = era.modern ? { ...modernMeta(CAPS), progressToken: 'p-1' } : { progressToken: 'p-1' };
      assert.equal(ctx.kind, 'request');
      assert.equal(ctx.method, 'tools/call');
      assert.deepEqual(ctx.params, { name: 'work', arguments: { a: 1 }, _meta: meta });
      assert.equal(ctx.id, 'req-7');
      assert.equal(ctx.era, era.modern ? 'modern' : 'legacy');
      assert.equal(ctx.protocolVersion, era.revision);
      assert.deepEqual(ctx.client, { info: CLIENT_INFO, capabilities: CAPS });
      assert.deepEqual(ctx.meta, meta);
      assert.equal(ctx.sessionId, era.modern ? undefined : c.peer.connection.channel.id);
      assert.equal(ctx.principal, undefined);
      assert.ok(ctx.signal instanceof AbortSignal);
      assert.equal(ctx.signal.aborted, false);
    });
  });

  test(`${era.label}: ctx.state set by middleware reaches the next middleware and the handler; each request starts with {}`, async () => {
    const fresh: unknown[] = [];
    const setup = (server: Server) => {
      server.use((ctx, next) => {
        fresh.push({ ...ctx.state });
        ctx.state.user = 'ada';
        return next();
      });
      server.use('tools/call', (ctx, next) => {
        ctx.state.role = `${String(ctx.state.user)}:admin`;
        return next();
      });
      server.tool('whoami', (_args, ctx) => `${String(ctx.state.user)} as ${String(ctx.state.role)}`);
    };
    await withClient(era, setup, async (c) => {
      fresh.length = 0;
      assert.deepEqual(texts(await c.call(...tool('whoami'))), ['ada as ada:admin']);
      assert.deepEqual(texts(await c.call(...tool('whoami'))), ['ada as ada:admin']);
      assert.deepEqual(fresh, [{}, {}]);
    });
  });

  test(`${era.label}: params replaced by a middleware reach the handler, and arguments are validated after middleware`, async () => {
    const setup = (server: Server) => {
      const input = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
      server.tool('greet', { input }, ({ name }) => `hello ${String(name)}`);
      server.tool('other', () => 'the other tool');
      server.use('tools/call', (ctx, next) => {
        const args = ctx.params.arguments ?? {};
        if (args.alias !== undefined) ctx.params = { ...ctx.params, arguments: { name: args.alias } };
        if (args.redirect) ctx.params = { ...ctx.params, name: 'other', arguments: {} };
        return next();
      });
    };
    await withClient(era, setup, async (c) => {
      // { alias } alone would fail greet's schema (name is required): the rewrite is what reached it.
      assert.deepEqual(texts(await c.call(...tool('greet', { alias: 'Ada' }))), ['hello Ada']);
      assert.deepEqual(texts(await c.call(...tool('greet', { redirect: true }))), ['the other tool']);
      const invalid = await c.call(...tool('greet', { alias: 42 }));
      assert.equal(invalid.result.isError, true);
      assert.match(invalid.result.content[0].text, /Invalid arguments for tool greet/);
    });
  });

  test(`${era.label}: next() resolves to the era-neutral result, the same in every revision`, async () => {
    const results: Record<string, unknown> = {};
    const setup = (server: Server) => {
      server.tool('rich', () => ({
        content: [
          { type: 'text', text: 'see' },
          { type: 'resource_link', uri: 'test://doc', name: 'doc' },
        ],
        structuredContent: { n: 1 },
      }));
      server.resource('test://doc', { name: 'doc', mimeType: 'text/plain' }, 'the doc');
      server.use(async (ctx, next) => {
        const r = await next();
        results[ctx.method] = structuredClone(r);
        return r;
      });
    };
    await withClient(era, setup, async (c) => {
      await c.call(...tool('rich'));
      await c.call('resources/read', { uri: 'test://doc' });
      await c.call('tools/list');
      assert.deepEqual(results['tools/call'], {
        content: [
          { type: 'text', text: 'see' },
          { type: 'resource_link', uri: 'test://doc', name: 'doc' },
        ],
        structuredContent: { n: 1 },
      });
      assert.deepEqual(results['resources/read'], { contents: [{ uri: 'test://doc', mimeType: 'text/plain', text: 'the doc' }] });
      assert.deepEqual(results['tools/list'], { tools: [{ name: 'rich', inputSchema: { type: 'object', properties: {} } }] });
    });
  });

  test(`${era.label}: a result a middleware transforms is what the client gets`, async () => {
    const setup = (server: Server) => {
      server.tool('work', () => 'done');
      server.use('tools/call', async (_ctx, next) => {
        const r = (await next()) as CallToolResult;
        return { ...r, content: [...r.content, { type: 'text', text: 'audited' }] };
      });
    };
    await withClient(era, setup, async (c) => {
      assert.deepEqual(texts(await c.call(...tool('work'))), ['done', 'audited']);
    });
  });

  test(`${era.label}: calling next() again runs the handler again (retry)`, async () => {
    let calls = 0;
    const setup = (server: Server) => {
      server.tool('flaky', () => {
        calls++;
        if (calls === 1) throw new McpError(ErrorCode.InvalidRequest, 'busy, try again');
        return `call ${calls}`;
      });
      server.tool('twice', () => {
        calls++;
        return `call ${calls}`;
      });
      server.use('tools/call', async (ctx, next) => {
        if (ctx.params.name === 'twice') {
          await next();
          return next();
        }
        try {
          return await next();
        } catch {
          return next();
        }
      });
    };
    await withClient(era, setup, async (c) => {
      assert.deepEqual(texts(await c.call(...tool('flaky'))), ['call 2']);
      assert.deepEqual(texts(await c.call(...tool('twice'))), ['call 4']);
      assert.equal(calls, 4);
    });
  });

  test(`${era.label}: a middleware that calls next() and returns nothing passes the result (or the error) on`, async () => {
    const setup = (server: Server) => {
      server.tool('work', () => 'done');
      server.tool('refused', () => {
        throw new McpError(ErrorCode.InvalidParams, 'no such order');
      });
      server.use(async (_ctx, next) => {
        await next();
      });
      // Not awaiting next() is the same: its outcome is still what the request gets.
      server.use((_ctx, next) => {
        void next();
      });
      // Nor calling it a microtask later: the middleware's outcome is judged a turn after it returned, as an await would.
      server.use((_ctx, next) => {
        queueMicrotask(() => void next());
      });
      // Nor does catching a failure to log it turn it into an empty answer.
      server.use(async (_ctx, next) => {
        try {
          await next();
        } catch {
          // logged
        }
      });
    };
    await withClient(era, setup, async (c, errors) => {
      assert.deepEqual(texts(await c.call(...tool('work'))), ['done']);
      assert.deepEqual((await c.call(...tool('refused'))).error, { code: -32602, message: 'no such order' });
      assert.deepEqual(errors, []);
    });
  });

  test(`${era.label}: middleware that hand back next() cost no promise per link, and no wait: eight make as many as one`, async () => {
    const promisesFor = async (links: number): Promise<number> => {
      let promises = 0;
      const hook = createHook({
        init: (_id, type) => {
          if (type === 'PROMISE') promises++;
        },
      });
      const setup = (server: Server) => {
        server.tool('work', () => 'done');
        for (let i = 0; i < links; i++) server.use((_ctx, next) => next());
      };
      await withClient(era, setup, async (c) => {
        await c.call(...tool('work'));
        hook.enable();
        const answer = await c.call(...tool('work'));
        hook.disable();
        assert.deepEqual(texts(answer), ['done']);
      });
      return promises;
    };
    const one = await promisesFor(1);
    assert.equal(await promisesFor(8), one);
    assert.equal(await promisesFor(1), one, 'the count is the same from call to call');
    // A synchronous tool: the answer goes out at once, as without middleware; next() still made its promise.
    assert.equal(one, (await promisesFor(0)) + 1);
  });

  test(`${era.label}: requests answered with errors go through the chain too (unknown method, missing capability)`, async () => {
    const seen: Array<[string, unknown]> = [];
    const setup = (server: Server) => {
      server.tool('work', () => 'done');
      server.use(async (ctx, next) => {
        try {
          return await next();
        } catch (e) {
          seen.push([ctx.method, e instanceof McpError ? e.code : e]);
          throw e;
        }
      });
    };
    await withClient(era, setup, async (c) => {
      assert.deepEqual((await c.call('nope/nothing')).error, { code: -32601, message: 'Method not found: nope/nothing' });
      assert.equal((await c.call('prompts/list')).error?.code, -32601);
      assert.deepEqual(seen, [
        ['nope/nothing', -32601],
        ['prompts/list', -32601],
      ]);
    });
  });

  test(`${era.label}: a middleware may answer a method the server does not know (an extension's)`, async () => {
    const setup = (server: Server) => {
      server.use('acme/status', (ctx) => ({ status: 'green', era: ctx.era }));
    };
    await withClient(era, setup, async (c) => {
      c.peer.allowInvalid((m) => m.id === 'ext', 'the revision has no result type for an extension method: checked as a Result below');
      const r = await c.call('acme/status', {}, 'ext');
      const expected: Msg = { status: 'green', era: era.modern ? 'modern' : 'legacy' };
      // 2026-07-28: every result carries resultType and (SHOULD) serverInfo (basic/index.mdx §ResultType).
      if (era.modern) Object.assign(expected, { resultType: 'complete', _meta: { [META_SERVER]: { name: 'mw', version: '1.0.0' } } });
      assert.deepEqual(r.result, expected);
      assert.deepEqual(wireValidator().checkDefinition(era.revision, 'Result', r.result), []);
    });
  });
}

test('a middleware result that is not an object is a server failure: -32603, reported', async () => {
  for (const era of ERAS) {
    const setup = (server: Server) => {
      server.tool('work', () => 'done');
      server.use('tools/call', () => 'not a result');
    };
    await withClient(era, setup, async (c, errors) => {
      assert.deepEqual((await c.call(...tool('work'))).error, { code: -32603, message: 'Internal error' }, era.label);
      assert.equal(errors.length, 1);
    });
  }
});
