/**
 * Errors on the wire (2025-11-25 server/tools.mdx §Error Handling):
 * a tool's unexpected error is masked (an isError result "The tool failed because of an
 * internal error.") and reported in full, with its stack, to `onError`; a `ToolError` is meant
 * for the model and its message is the result's text, verbatim; `toolError(message)` does the
 * same without throwing; an `McpError` is a protocol error the handler chose and goes on the
 * wire as it is (a -32603 one is reported too). Outside tools, an unexpected error is -32603
 * "Internal error", reported. Both eras, the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, toolError, type Server } from '../../src/server/index.js';
import { ErrorCode, McpError, ToolError } from '../../src/errors/index.js';
import { fixture, MODERN, type Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';
import { StdioPeer } from '../support/stdio-peer.js';

const MASKED = { content: [{ type: 'text', text: 'The tool failed because of an internal error.' }], isError: true };
const SECRET = 'database is down at db-7.internal:5432';

function failingServer(errors: unknown[]): Server {
  const server = createServer({ name: 'failing', version: '1.0.0', onError: (e) => errors.push(e) });
  server.tool('outage', () => {
    throw new Error(SECRET);
  });
  server.tool('outage_async', async () => {
    await Promise.resolve();
    throw new TypeError(SECRET);
  });
  server.tool('throws_string', () => {
    throw SECRET;
  });
  server.tool('no_order', () => {
    throw new ToolError('No order 42. Use list_orders to see the open ones.');
  });
  server.tool('no_order_async', async () => {
    throw new ToolError('No order 43.', { cause: new Error(SECRET) });
  });
  server.tool('returns_tool_error', () => toolError('Out of stock.'));
  server.tool('bad_request', () => {
    throw new McpError(ErrorCode.InvalidParams, 'order id must be numeric', { field: 'id' });
  });
  server.tool('internal_mcp', () => {
    throw new McpError(ErrorCode.InternalError, 'replica lag too high');
  });
  server.prompt('broken_prompt', () => {
    throw new Error(SECRET);
  });
  server.resource('broken://resource', { name: 'broken' }, () => {
    throw new Error(SECRET);
  });
  return server;
}

async function withFailing(
  era: 'legacy' | 'modern',
  fn: (call: (method: string, params: Msg) => Promise<Msg>) => Promise<void>,
): Promise<unknown[]> {
  const errors: unknown[] = [];
  await withMemoryPeer(
    failingServer(errors),
    (peer: MemoryPeer) => fn((method, params) => (era === 'modern' ? peer.modern(method, params) : peer.request(method, params))),
    era === 'modern' ? { revision: MODERN } : { revision: '2025-11-25', handshake: {} },
  );
  return errors;
}

const tool = (name: string) => ['tools/call', { name, arguments: {} }] as const;

for (const era of ['legacy', 'modern'] as const) {
  test(`${era}: a tool's unexpected error is masked for the model and reported in full, with its stack, to onError`, async () => {
    const errors = await withFailing(era, async (call) => {
      for (const name of ['outage', 'outage_async', 'throws_string']) {
        const r = await call(...tool(name));
        const { _meta, resultType, ...result } = r.result ?? {};
        assert.deepEqual(result, MASKED, `${name}: ${JSON.stringify(r)}`);
        assert.doesNotMatch(JSON.stringify(r), /database|db-7/);
      }
    });
    assert.equal(errors.length, 3);
    const [sync, async_, thrown] = errors as [Error, Error, unknown];
    assert.equal(sync.message, SECRET);
    assert.match(String(sync.stack), /error-masking\.test\.js/, 'the stack points at the handler');
    assert.ok(async_ instanceof TypeError);
    assert.equal(thrown, SECRET);
  });

  test(`${era}: a ToolError's message, and toolError(message), reach the model verbatim; nothing is reported`, async () => {
    const errors = await withFailing(era, async (call) => {
      const expected: Record<string, string> = {
        no_order: 'No order 42. Use list_orders to see the open ones.',
        no_order_async: 'No order 43.',
        returns_tool_error: 'Out of stock.',
      };
      for (const [name, text] of Object.entries(expected)) {
        const r = await call(...tool(name));
        assert.deepEqual(r.result?.content, [{ type: 'text', text }], name);
        assert.equal(r.result?.isError, true);
      }
    });
    assert.deepEqual(errors, []);
  });

  test(`${era}: an McpError thrown by a tool is the JSON-RPC error it names; -32603 ones are reported, others not`, async () => {
    const errors = await withFailing(era, async (call) => {
      const bad = await call(...tool('bad_request'));
      assert.deepEqual(bad.error, { code: -32602, message: 'order id must be numeric', data: { field: 'id' } });
      const internal = await call(...tool('internal_mcp'));
      assert.deepEqual(internal.error, { code: -32603, message: 'replica lag too high' });
    });
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /replica lag too high/);
  });

  test(`${era}: a prompt or resource handler's unexpected error is -32603 "Internal error", reported in full`, async () => {
    const errors = await withFailing(era, async (call) => {
      const prompt = await call('prompts/get', { name: 'broken_prompt' });
      assert.deepEqual(prompt.error, { code: -32603, message: 'Internal error' });
      const read = await call('resources/read', { uri: 'broken://resource' });
      assert.deepEqual(read.error, { code: -32603, message: 'Internal error' });
    });
    assert.equal(errors.length, 2);
    for (const e of errors) assert.equal((e as Error).message, SECRET);
  });
}

test('ToolError is an Error named ToolError, with its cause', () => {
  const cause = new Error('low level');
  const e = new ToolError('for the model', { cause });
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'ToolError');
  assert.equal(e.cause, cause);
});

test('stdio: the client sees the masked failure; the default onError writes the error and its stack to stderr, never stdout', async () => {
  const peer = new StdioPeer({ revision: MODERN, args: [fixture('failing-stdio.js')] });
  try {
    const r = await peer.modern('tools/call', { name: 'outage', arguments: {} });
    assert.deepEqual(r.result?.content, MASKED.content, JSON.stringify(r));
    assert.equal(r.result.isError, true);
  } finally {
    await peer.close(); // fails on anything but protocol on stdout
  }
  assert.match(peer.stderr, /\[janus-mcp\] Error: database is down at db-7\.internal:5432\n\s+at /);
});

test('the everything fixture fails its error tool with a ToolError: the model reads its message', async () => {
  const peer = new StdioPeer({ revision: MODERN });
  try {
    const r = await peer.modern('tools/call', { name: 'test_error_handling', arguments: {} });
    assert.deepEqual(r.result?.content, [{ type: 'text', text: 'This tool intentionally returns an error for testing' }]);
    assert.equal(r.result.isError, true);
  } finally {
    await peer.close();
  }
  assert.equal(peer.stderr, '');
});
