/**
 * Structured logs to stderr or a user logger, with a level, never on a stdio server's
 * stdout: `consoleLogger` (levels, JSON and text lines, fields that
 * cannot be serialised), `logRequests` (one line per inbound message, in both eras, with its
 * outcome), `ServerOptions.logger` receiving what `onError` would, and the HTTP transport's
 * configuration warning. The stdio half (stdout stays protocol only) is test/stdio/logging.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  consoleLogger,
  createServer,
  logRequests,
  toolError,
  type ConsoleLoggerOptions,
  type Logger,
  type Server,
} from '../../src/server/index.js';
import { ErrorCode, McpError } from '../../src/errors/index.js';
import { createFetchHandler } from '../../src/transports/http/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { withMemoryPeer } from '../support/peer.js';
import { deferred, until } from '../support/wait.js';

type Entry = Record<string, any>;

/** A consoleLogger whose lines are kept (and parsed, for JSON). */
function recorder(options: ConsoleLoggerOptions = {}) {
  const lines: string[] = [];
  const logger = consoleLogger({ level: 'debug', ...options, write: (line) => void lines.push(line) });
  return { logger, lines, entries: (): Entry[] => lines.map((l) => JSON.parse(l) as Entry) };
}

// ---------------------------------------------------------------------------------------------
// consoleLogger

test('consoleLogger writes its level and the ones above it; below it nothing, and isLevelEnabled agrees', () => {
  const all = (logger: Logger) => {
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
  };
  const expected: Record<string, string[]> = {
    debug: ['debug', 'info', 'warn', 'error'],
    info: ['info', 'warn', 'error'],
    warn: ['warn', 'error'],
    error: ['error'],
    silent: [],
  };
  for (const [level, levels] of Object.entries(expected)) {
    const r = recorder({ level: level as ConsoleLoggerOptions['level'] });
    all(r.logger);
    assert.deepEqual(
      r.entries().map((e) => e.level),
      levels,
      `level ${level}`,
    );
    for (const l of ['debug', 'info', 'warn', 'error'] as const)
      assert.equal(r.logger.isLevelEnabled?.(l), levels.includes(l), `${level}: ${l}`);
  }
  // The default is info.
  const lines: string[] = [];
  all(consoleLogger({ write: (l) => void lines.push(l) }));
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).level),
    ['info', 'warn', 'error'],
  );
  assert.throws(() => consoleLogger({ level: 'verbose' as never }), TypeError);
});

test('consoleLogger JSON lines: {"time","level","name","msg",...fields}, Errors with message, name and stack', () => {
  const r = recorder({ name: 'orders' });
  const failure = Object.assign(new TypeError('bad order'), { code: 'E_ORDER' });
  r.logger.info('order placed', { order: 42, items: ['a', 'b'], nested: { ok: true }, missing: undefined, msg: 'mine', failure });
  assert.equal(r.lines.length, 1);
  assert.doesNotMatch(r.lines[0]!, /\n/, 'one line');
  const entry = r.entries()[0]!;
  assert.deepEqual(Object.keys(entry).slice(0, 4), ['time', 'level', 'name', 'msg']);
  assert.equal(new Date(entry.time).toISOString(), entry.time, 'an ISO time');
  assert.equal(entry.level, 'info');
  assert.equal(entry.name, 'orders');
  assert.equal(entry.msg, 'order placed', 'a field cannot replace the message');
  assert.equal(entry._msg, 'mine', '… it is kept under _msg');
  assert.equal(entry.order, 42);
  assert.deepEqual(entry.items, ['a', 'b']);
  assert.deepEqual(entry.nested, { ok: true });
  assert.equal('missing' in entry, false, 'undefined fields are left out');
  assert.equal(entry.failure.name, 'TypeError');
  assert.equal(entry.failure.message, 'bad order');
  assert.equal(entry.failure.code, 'E_ORDER');
  assert.match(entry.failure.stack, /logging\.test\.js/);
  // The default name.
  const d = recorder();
  d.logger.warn('x');
  assert.equal(d.entries()[0]!.name, 'janus-mcp');
});

test('consoleLogger text lines: "<time> <LEVEL> <name>: <msg> key=value", stacks below the line', () => {
  const r = recorder({ format: 'text' });
  r.logger.warn('slow tool', { tool: 'search', durationMs: 1234.5, query: 'two words', opts: { deep: true } });
  assert.match(
    r.lines[0]!,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z WARN {2}janus-mcp: slow tool tool=search durationMs=1234\.5 query="two words" opts=\{"deep":true\}$/,
  );
  r.logger.error('failed', { error: new Error('disk full') });
  const [first, ...rest] = r.lines[1]!.split('\n');
  assert.match(first!, /ERROR janus-mcp: failed error="Error: disk full"$/);
  assert.match(rest.join('\n'), /^ {2}error\.stack:\n {4}Error: disk full\n {8}at /);
});

test('consoleLogger never throws: cycles, BigInts, throwing getters and toJSON, deep nesting, a failing sink', () => {
  const r = recorder();
  const cycle: Record<string, unknown> = { name: 'loop' };
  cycle.self = cycle;
  const shared = { v: 1 };
  const errorLoop = new Error('outer');
  (errorLoop as { cause?: unknown }).cause = errorLoop;
  let deep: Record<string, unknown> = {};
  const root = deep;
  for (let i = 0; i < 10_000; i++) deep = deep.next = {};
  const hostile = {
    get boom() {
      throw new Error('getter exploded');
    },
    fine: 1,
  };
  const fields = {
    cycle,
    twice: [shared, shared],
    big: 2n ** 70n,
    hostile,
    badJson: {
      toJSON: () => {
        throw new Error('toJSON exploded');
      },
    },
    errorLoop,
    root,
    sym: Symbol('s'),
    fn: () => 1,
    nan: Number.NaN,
    proto: JSON.parse('{"__proto__": {"polluted": true}}'),
  };
  assert.doesNotThrow(() => r.logger.info('hostile fields', fields));
  const e = r.entries()[0]!;
  assert.equal(e.cycle.self, '[Circular]');
  assert.deepEqual(e.twice, [{ v: 1 }, { v: 1 }], 'a repeated object is not a cycle');
  assert.equal(e.big, (2n ** 70n).toString());
  assert.equal(e.hostile.fine, 1);
  assert.match(e.hostile.boom, /^\[unserializable: getter exploded\]$/);
  assert.match(e.badJson, /^\[unserializable: toJSON exploded\]$/);
  assert.equal(e.errorLoop.message, 'outer');
  assert.equal(e.errorLoop.cause, '[Circular]');
  assert.match(JSON.stringify(e.root), /"\[…\]"/, 'deep structures are cut');
  assert.equal('sym' in e, false);
  assert.equal('fn' in e, false);
  assert.equal(e.nan, 'NaN');
  assert.deepEqual(Object.getOwnPropertyNames(e.proto), ['__proto__'], '__proto__ stays data');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  // Text too, and a sink that throws.
  const t = recorder({ format: 'text' });
  assert.doesNotThrow(() => t.logger.info('hostile fields', fields));
  assert.match(t.lines[0]!, /cycle=\{"name":"loop","self":"\[Circular\]"\}/);
  const failing = consoleLogger({
    write: () => {
      throw new Error('EPIPE');
    },
  });
  assert.doesNotThrow(() => failing.error('nowhere to go', { cycle }));
});

// ---------------------------------------------------------------------------------------------
// logRequests

/** A server with one tool per outcome, logging every message through `logger`. */
function loggedServer(logger: Logger, started?: () => void): Server {
  const server = createServer({ name: 'logged', version: '1.0.0', onError: () => {} });
  server.use(logRequests(logger));
  server.tool('echo', () => 'echo');
  server.tool('refuse', () => {
    throw new McpError(ErrorCode.InvalidParams, 'order id must be numeric');
  });
  server.tool('out_of_stock', () => toolError('Out of stock.'));
  server.tool('crash', () => {
    throw new Error('database is down');
  });
  server.tool('ask_name', async (_args, ctx) => {
    const r = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `Hello, ${String(r.content?.name)}`;
  });
  server.tool('wait_for_cancel', async (_args, ctx) => {
    started?.();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    throw new McpError(ErrorCode.InvalidRequest, 'cancelled');
  });
  server.prompt('greet', () => 'Hello');
  server.resource('memo://one', { name: 'one' }, 'text');
  return server;
}

const lineFor = (entries: Entry[], id: number | string) => entries.find((e) => e.id === id);

test('logRequests, legacy session: one info line per request and a debug line per notification, with its outcome', async () => {
  const r = recorder();
  const started = deferred();
  await withMemoryPeer(
    loggedServer(r.logger, started.resolve),
    async (peer) => {
      const sessionId = peer.connection.channel.id;
      await until(() => r.entries().some((e) => e.method === 'notifications/initialized'), 'the initialized line');
      const [init, initialized] = r.entries();
      assert.deepEqual(
        { ...init, time: 0, durationMs: 0 },
        {
          time: 0,
          level: 'info',
          name: 'janus-mcp',
          msg: 'request',
          method: 'initialize',
          id: 1,
          outcome: 'ok',
          durationMs: 0,
          era: 'legacy',
          sessionId,
          transport: 'memory', // an in-memory pair says so (Transport.kind)
        },
      );
      assert.equal(typeof init!.durationMs, 'number');
      assert.deepEqual(
        { ...initialized, time: 0, durationMs: 0 },
        {
          time: 0,
          level: 'debug',
          name: 'janus-mcp',
          msg: 'notification',
          method: 'notifications/initialized',
          outcome: 'ok',
          durationMs: 0,
          era: 'legacy',
          protocolVersion: '2025-11-25',
          sessionId,
          transport: 'memory', // an in-memory pair says so (Transport.kind)
        },
      );

      // The line is written before the answer goes out.
      const logged = async (answer: Promise<Msg>) => {
        const { id } = await answer;
        return lineFor(r.entries(), id);
      };
      const call = (name: string) => logged(peer.request('tools/call', { name, arguments: {} }));
      const ok = await call('echo');
      assert.deepEqual(
        { ...ok, time: 0, durationMs: 0 },
        {
          time: 0,
          level: 'info',
          name: 'janus-mcp',
          msg: 'request',
          method: 'tools/call',
          id: ok!.id,
          target: 'echo',
          outcome: 'ok',
          durationMs: 0,
          era: 'legacy',
          protocolVersion: '2025-11-25',
          sessionId,
          transport: 'memory', // an in-memory pair says so (Transport.kind)
        },
      );
      const refused = await call('refuse');
      assert.equal(refused!.outcome, 'error');
      assert.equal(refused!.errorCode, -32602);
      assert.equal(refused!.errorMessage, 'order id must be numeric');
      assert.equal((await call('out_of_stock'))!.outcome, 'tool_error');
      assert.equal((await call('crash'))!.outcome, 'tool_error', 'a masked tool failure is a tool error');
      const unknown = await logged(peer.request('nope/nothing'));
      assert.deepEqual([unknown!.outcome, unknown!.errorCode, unknown!.method], ['error', -32601, 'nope/nothing']);
      const invalid = await logged(peer.request('prompts/get', { name: 'nope' }));
      assert.deepEqual([invalid!.outcome, invalid!.errorCode, invalid!.target], ['error', -32602, 'nope']);
      const read = await logged(peer.request('resources/read', { uri: 'memo://one' }));
      assert.deepEqual([read!.outcome, read!.target], ['ok', 'memo://one']);

      // Cancelled (cancellation.mdx): no answer, and the line says so.
      peer.sendRaw({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'wait_for_cancel', arguments: {} } });
      await started.promise;
      peer.notify('notifications/cancelled', { requestId: 'c1', reason: 'user gave up' });
      const cancelled = await until(() => lineFor(r.entries(), 'c1'), 'the cancelled line');
      assert.equal(cancelled.outcome, 'cancelled');
      assert.equal('errorCode' in cancelled, false);
      assert.ok(r.entries().some((e) => e.method === 'notifications/cancelled' && e.level === 'debug'));
    },
    { revision: '2025-11-25', handshake: {} },
  );
});

test('logRequests, 2026-07-28: era, protocolVersion, no session; an input_required round, then the retry', async () => {
  const r = recorder();
  await withMemoryPeer(
    loggedServer(r.logger),
    async (peer) => {
      const caps = { elicitation: {} };
      const first = await peer.modern('tools/call', { name: 'ask_name', arguments: {} }, { caps });
      assert.equal(first.result.resultType, 'input_required');
      const round = lineFor(r.entries(), first.id);
      assert.deepEqual(
        { ...round, time: 0, durationMs: 0 },
        {
          time: 0,
          level: 'info',
          name: 'janus-mcp',
          msg: 'request',
          method: 'tools/call',
          id: first.id,
          target: 'ask_name',
          outcome: 'input_required',
          durationMs: 0,
          era: 'modern',
          protocolVersion: MODERN,
          transport: 'memory', // an in-memory pair says so (Transport.kind)
        },
      );
      const [key] = Object.keys(first.result.inputRequests);
      const retry = await peer.modern(
        'tools/call',
        {
          name: 'ask_name',
          arguments: {},
          requestState: first.result.requestState,
          inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } },
        },
        { caps },
      );
      assert.deepEqual(retry.result.content, [{ type: 'text', text: 'Hello, Ada' }]);
      assert.equal(lineFor(r.entries(), retry.id)!.outcome, 'ok');

      const outcomes: Record<string, [string, number?]> = { echo: ['ok'], refuse: ['error', -32602], out_of_stock: ['tool_error'] };
      for (const [name, [outcome, code]] of Object.entries(outcomes)) {
        const m: Msg = await peer.modern('tools/call', { name, arguments: {} });
        const line = lineFor(r.entries(), m.id)!;
        assert.deepEqual([line.outcome, line.errorCode, line.target], [outcome, code, name]);
      }
      const missing = await peer.modern('resources/read', { uri: 'memo://none' });
      assert.equal(missing.error.code, -32602);
      assert.deepEqual([lineFor(r.entries(), missing.id)!.errorCode, lineFor(r.entries(), missing.id)!.target], [-32602, 'memo://none']);
    },
    { revision: MODERN },
  );
});

test('logRequests only observes: what next() resolved to, and the error it threw, go on as they are', async () => {
  const r = recorder();
  const server = createServer({ name: 'observed', version: '1.0.0' });
  const seen: unknown[] = [];
  const made: unknown[] = [];
  server.use('tools/call', async (_ctx, next) => {
    try {
      const result = await next();
      seen.push(result);
      return result;
    } catch (e) {
      seen.push(e);
      throw e;
    }
  });
  server.use(logRequests(r.logger));
  server.use('tools/call', (ctx) => {
    if (ctx.params.name === 'fails') {
      const e = new McpError(ErrorCode.InvalidRequest, 'refused by policy');
      made.push(e);
      throw e;
    }
    const result = { content: [{ type: 'text' as const, text: 'from middleware' }] };
    made.push(result);
    return result;
  });
  server.tool('fails', () => 'unreached');
  server.tool('passes', () => 'unreached');
  await withMemoryPeer(
    server,
    async (peer) => {
      const ok = await peer.request('tools/call', { name: 'passes', arguments: {} });
      assert.deepEqual(ok.result.content, [{ type: 'text', text: 'from middleware' }]);
      const refused = await peer.request('tools/call', { name: 'fails', arguments: {} });
      assert.deepEqual(refused.error, { code: -32600, message: 'refused by policy' });
    },
    { revision: '2025-11-25', handshake: {} },
  );
  assert.equal(seen.length, 2);
  assert.equal(seen[0], made[0], 'the same result object');
  assert.equal(seen[1], made[1], 'the same error object');
  assert.deepEqual(
    r
      .entries()
      .filter((e) => e.method === 'tools/call')
      .map((e) => e.outcome),
    ['ok', 'error'],
  );
});

test('logRequests adds nothing to a long-lived channel: no abort listener per request (no MaxListenersExceededWarning)', async () => {
  const r = recorder();
  const warnings: Error[] = [];
  const onWarning = (w: Error) => void warnings.push(w);
  process.on('warning', onWarning);
  try {
    await withMemoryPeer(
      loggedServer(r.logger),
      async (peer) => {
        for (let i = 0; i < 30; i++) await peer.call('tools/call', { name: 'echo', arguments: {} });
        await peer.modern('tools/call', { name: 'echo', arguments: {} });
      },
      { revision: '2025-11-25', handshake: {} },
    );
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  } finally {
    process.off('warning', onWarning);
  }
  assert.equal(r.entries().filter((e) => e.method === 'tools/call').length, 31);
  assert.deepEqual(
    warnings.map((w) => w.message),
    [],
  );
});

test("logRequests' level: request lines at options.level, nothing below the logger's level", async () => {
  const quiet = recorder({ level: 'info' });
  const server = createServer({ name: 'quiet', version: '1.0.0' });
  server.use(logRequests(quiet.logger, { level: 'debug' }));
  server.tool('echo', () => 'echo');
  const loud = recorder({ level: 'warn' });
  const other = createServer({ name: 'loud', version: '1.0.0' });
  other.use(logRequests(loud.logger, { level: 'warn' }));
  other.tool('echo', () => 'echo');
  for (const s of [server, other]) {
    await withMemoryPeer(s, async (peer) => void (await peer.call('tools/call', { name: 'echo', arguments: {} })), {
      revision: '2025-11-25',
      handshake: {},
    });
  }
  assert.deepEqual(quiet.lines, [], 'debug request lines and debug notification lines, on an info logger');
  assert.deepEqual(
    loud.entries().map((e) => [e.level, e.method]),
    [
      ['warn', 'initialize'],
      ['warn', 'tools/call'],
    ],
  );
  assert.throws(() => logRequests(quiet.logger, { level: 'loud' as never }), TypeError);
});

// ---------------------------------------------------------------------------------------------
// The server's own reports

test('ServerOptions.logger gets what onError would (message, name, code, stack as fields); onError, when given, still wins', async () => {
  const failing = (options: { logger?: Logger; onError?: (e: unknown) => void }) => {
    const server = createServer({ name: 'failing', version: '1.0.0', ...options });
    server.tool('crash', () => {
      throw Object.assign(new RangeError('disk full'), { code: 'ENOSPC' });
    });
    return server;
  };
  const call = (server: Server) =>
    withMemoryPeer(server, async (peer) => void (await peer.call('tools/call', { name: 'crash', arguments: {} })), {
      revision: '2025-11-25',
      handshake: {},
    });

  const r = recorder();
  await call(failing({ logger: r.logger }));
  const errors = r.entries().filter((e) => e.level === 'error');
  assert.equal(errors.length, 1, JSON.stringify(r.entries()));
  const e = errors[0]!;
  assert.equal(e.msg, 'disk full');
  assert.equal(e.errorName, 'RangeError');
  assert.equal(e.errorMessage, 'disk full');
  assert.equal(e.errorCode, 'ENOSPC');
  assert.match(e.stack, /RangeError: disk full\n\s+at .*logging\.test\.js/);

  const both = recorder();
  const reported: unknown[] = [];
  await call(failing({ logger: both.logger, onError: (x) => reported.push(x) }));
  assert.equal(reported.length, 1);
  assert.equal((reported[0] as Error).message, 'disk full');
  assert.deepEqual(both.lines, []);

  // A logger that throws is not the server's failure: the request is still answered.
  const throwing: Logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: () => {
      throw new Error('logger down');
    },
  };
  await call(failing({ logger: throwing }));
});

test("the HTTP transport's configuration warning goes to the server's logger; onWarning, when given, still wins", async () => {
  const r = recorder();
  const server = createServer({ name: 'warned', version: '1.0.0', logger: r.logger });
  const handler = createFetchHandler(server, { dnsRebindingProtection: false });
  const warnings: string[] = [];
  const other = createFetchHandler(server, { dnsRebindingProtection: false, onWarning: (m) => void warnings.push(m) });
  try {
    const entries = r.entries();
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.level, 'warn');
    assert.match(entries[0]!.msg, /dnsRebindingProtection is off/);
    assert.equal(warnings.length, 1);
  } finally {
    await handler.close();
    await other.close();
    server.close();
  }
});
