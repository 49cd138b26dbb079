/**
 * Names a client chooses are looked up as the client's strings, never through
 * Object.prototype: methods (-32601, JSON-RPC 2.0 §5.1), tool and prompt names (-32602,
 * server/tools.mdx and server/prompts.mdx §Error Handling), completion argument names, prompt
 * argument names, `inputResponses` keys (mrtr.mdx) and `_meta` keys. A client's mistake is
 * answered with its code and reported nowhere: nothing reaches `onError`, nothing is printed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type Server } from '../../src/server/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { withMemoryPeer, type MemoryPeer } from '../support/peer.js';
import { StdioPeer } from '../support/stdio-peer.js';
import { HttpPeer, serve } from '../http-e2e/support.js';

const KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
const CAPS = { elicitation: {} };
const ACCEPT = (name: string) => ({ action: 'accept', content: { name } });

function keysServer(errors: unknown[]): Server {
  const server = createServer({ name: 'keys', version: '1.0.0', onError: (e) => errors.push(e) });
  server.tool('echo', () => 'ok');
  server.prompt(
    'greet',
    {
      arguments: [{ name: 'who' }, { name: 'constructor', required: true }],
      complete: { who: ({ value }) => ['ada', 'alan'].filter((n) => n.startsWith(value)) },
    },
    (args) => `hello ${String(args.who)}`,
  );
  server.resourceTemplate('file:///{name}', { name: 'file', complete: { name: () => ['a.txt'] } }, (uri) => uri);
  // Two rounds keyed by names that Object.prototype also has.
  server.tool('two_rounds', async (_a, ctx) => {
    const nameSchema = { type: 'object', properties: { name: { type: 'string' } } };
    const first = await ctx.elicit({ message: 'first?', requestedSchema: nameSchema }, { key: '__proto__' });
    const second = await ctx.elicit({ message: 'second?', requestedSchema: nameSchema }, { key: 'constructor' });
    return `${JSON.stringify(first.content)} ${JSON.stringify(second.content)}`;
  });
  return server;
}

async function withKeys(
  era: 'legacy' | 'modern',
  fn: (peer: MemoryPeer, call: (method: string, params?: Msg) => Promise<Msg>) => Promise<void>,
) {
  const errors: unknown[] = [];
  await withMemoryPeer(
    keysServer(errors),
    (peer) =>
      fn(peer, (method, params = {}) => (era === 'modern' ? peer.modern(method, params, { caps: CAPS }) : peer.request(method, params))),
    era === 'modern' ? { revision: MODERN } : { revision: '2025-11-25', handshake: CAPS },
  );
  assert.deepEqual(errors, [], 'client mistakes are not reported');
}

for (const era of ['legacy', 'modern'] as const) {
  test(`${era}: methods named like Object.prototype members are -32601 Method not found`, async () => {
    await withKeys(era, async (_peer, call) => {
      for (const method of KEYS) {
        const r = await call(method);
        assert.deepEqual(r.error, { code: -32601, message: `Method not found: ${method}` }, method);
      }
    });
  });

  test(`${era}: tools and prompts named like Object.prototype members are -32602 unknown names`, async () => {
    await withKeys(era, async (_peer, call) => {
      for (const name of KEYS) {
        assert.equal((await call('tools/call', { name, arguments: {} })).error?.code, -32602, `tool ${name}`);
        assert.equal((await call('prompts/get', { name })).error?.code, -32602, `prompt ${name}`);
        const ref = { type: 'ref/prompt', name };
        assert.equal((await call('completion/complete', { ref, argument: { name: 'who', value: '' } })).error?.code, -32602);
      }
    });
  });

  test(`${era}: a completion argument named like an Object.prototype member has no completer: no values, not -32603`, async () => {
    await withKeys(era, async (_peer, call) => {
      for (const name of KEYS) {
        for (const ref of [
          { type: 'ref/prompt', name: 'greet' },
          { type: 'ref/resource', uri: 'file:///{name}' },
        ]) {
          const r = await call('completion/complete', { ref, argument: { name, value: '' }, context: { arguments: { [name]: 'x' } } });
          assert.deepEqual(r.result?.completion, { values: [], total: 0, hasMore: false }, `${name} on ${ref.type}: ${JSON.stringify(r)}`);
        }
      }
      const real = await call('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } });
      assert.deepEqual(real.result?.completion.values, ['ada', 'alan']);
    });
  });

  test(`${era}: a required prompt argument named "constructor" must be sent: Object.prototype does not supply it`, async () => {
    await withKeys(era, async (_peer, call) => {
      const missing = await call('prompts/get', { name: 'greet', arguments: { who: 'ada' } });
      assert.equal(missing.error?.code, -32602, JSON.stringify(missing));
      assert.match(missing.error.message, /missing required argument "constructor"/);
      const given = await call('prompts/get', { name: 'greet', arguments: { who: 'ada', constructor: 'x' } });
      assert.equal(given.result?.messages[0].content.text, 'hello ada');
    });
  });
}

test('modern: inputResponses keyed "__proto__" and "constructor" are ordinary answers, and survive into the next round', async () => {
  await withKeys('modern', async (_peer, call) => {
    const r1 = await call('tools/call', { name: 'two_rounds', arguments: {} });
    assert.deepEqual(Object.keys(r1.result.inputRequests), ['__proto__']);
    // Sent as raw JSON text would be: "__proto__" as an own key of inputResponses.
    const inputResponses = JSON.parse('{"__proto__": {"action": "accept", "content": {"name": "Ada"}}}');
    const r2 = await call('tools/call', { name: 'two_rounds', arguments: {}, requestState: r1.result.requestState, inputResponses });
    assert.equal(r2.result?.resultType, 'input_required', JSON.stringify(r2));
    assert.deepEqual(Object.keys(r2.result.inputRequests), ['constructor'], 'the first answer is kept; only the second is asked');
    const r3 = await call('tools/call', {
      name: 'two_rounds',
      arguments: {},
      requestState: r2.result.requestState,
      inputResponses: { constructor: ACCEPT('Alan') },
    });
    assert.deepEqual(r3.result?.content, [{ type: 'text', text: '{"name":"Ada"} {"name":"Alan"}' }], JSON.stringify(r3));
  });
});

test('values whose own "toString" is null (String(v) throws) are answered as the client mistakes they are: -32602, nothing reported', async () => {
  const POISON = JSON.parse('{"toString": null, "valueOf": null}');
  await withKeys('legacy', async (peer, call) => {
    assert.equal((await call('logging/setLevel', { level: POISON })).error?.code, -32602);
    assert.equal(
      (await call('completion/complete', { ref: { type: 'ref/prompt', name: POISON }, argument: { name: 'who', value: '' } })).error?.code,
      -32602,
    );
    assert.equal(
      (await call('completion/complete', { ref: { type: 'ref/resource', uri: POISON }, argument: { name: 'name', value: '' } })).error
        ?.code,
      -32602,
    );
    peer.notify('notifications/cancelled', { requestId: 99, reason: POISON });
    await peer.barrier();
  });
  await withKeys('modern', async (_peer, call) => {
    const r1 = await call('tools/call', { name: 'two_rounds', arguments: {} });
    const r = await call('tools/call', { name: POISON, arguments: {}, requestState: r1.result.requestState });
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    assert.equal(
      (await call('tools/call', { name: 'two_rounds', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': POISON } })).error?.code,
      -32602,
    );
  });
});

test('_meta keys named like Object.prototype members change nothing', async () => {
  await withKeys('modern', async (peer) => {
    const meta = JSON.parse('{"__proto__": {"progressToken": "p"}, "constructor": 1, "toString": 2}');
    const r = await peer.modern('tools/call', { name: 'echo', arguments: {} }, { meta });
    assert.deepEqual(r.result?.content, [{ type: 'text', text: 'ok' }]);
    await peer.assertNone((m) => m.method === 'notifications/progress', 'progress for a token only the prototype names');
  });
});

test('HTTP: prototype method names get 404 with -32601 on 2026-07-28 (streamable-http.mdx), and the server reports nothing', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    for (const method of KEYS) {
      const o = await peer.modern(method);
      assert.equal(o.status, 404, method);
      assert.equal(o.messages[0]?.error?.code, -32601, method);
    }
  } finally {
    await s.close();
  }
});

test('stdio: completing a prompt argument named "constructor" prints nothing on stderr (no stack for a client mistake)', async () => {
  const peer = new StdioPeer({ revision: MODERN });
  try {
    for (const name of KEYS) {
      const r = await peer.modern('completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name, value: '' },
      });
      assert.deepEqual(r.result?.completion.values, [], `${name}: ${JSON.stringify(r)}`);
    }
  } finally {
    await peer.close();
  }
  assert.equal(peer.stderr, '');
});
