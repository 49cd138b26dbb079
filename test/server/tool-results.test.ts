/**
 * What a tool handler returns becomes the result the client gets, never coerced
 * (server/tools.mdx §Tool Result, §Structured Content, §Output Schema):
 * - a value JSON cannot carry as it is (a function, a Date, NaN, Infinity, a bigint, a Map, a
 *   class instance, undefined in an array, a cycle) or a content block without the fields its
 *   type requires is the handler's bug: the model gets the masked failure, `onError` gets what
 *   was wrong and where;
 * - with an output schema, a string is the structured content as JSON text: parsed, checked,
 *   and sent as structuredContent plus its JSON text; a string that is not JSON is -32603;
 * - a request cancelled while its arguments are validated never starts its handler
 *   (cancellation.mdx: the receiver SHOULD stop processing).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { createServer, type Server, type StandardSchema } from '../../src/server/index.js';
import { JanusError } from '../../src/errors/index.js';
import { MODERN, type Msg } from '../support/common.js';
import { withMemoryPeer } from '../support/peer.js';
import { deferred } from '../support/wait.js';

const MASKED = [{ type: 'text', text: 'The tool failed because of an internal error.' }];

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

/** Each returns something JSON cannot carry as it is, and where the report must say it is. */
const UNSENDABLE: Record<string, [() => unknown, RegExp]> = {
  function: [() => () => 1, /a function at \$$/],
  date: [() => ({ when: new Date(0) }), /a Date at \$\.when$/],
  nan: [() => ({ ratio: Number.NaN }), /NaN at \$\.ratio$/],
  infinity: [() => [1, Number.POSITIVE_INFINITY], /Infinity at \$\[1\]$/],
  bigint: [() => ({ big: 10n }), /a bigint at \$\.big$/],
  map: [() => ({ m: new Map([['a', 1]]) }), /a Map at \$\.m$/],
  instance: [() => ({ p: new Point(1, 2) }), /a Point at \$\.p$/],
  hole: [() => ({ list: [1, undefined, 3] }), /undefined at \$\.list\[1\]$/],
  cycle: [
    () => {
      const o: Record<string, unknown> = {};
      o.self = o;
      return o;
    },
    /nested deeper than 256 levels \(or a cycle\)/,
  ],
  text_without_text: [() => [{ type: 'text' }], /content\[0\] is a text block without a string "text"/],
  text_of_function: [() => ({ content: [{ type: 'text', text: () => 'x' }] }), /content\[0\] is a text block without a string "text"/],
  image_without_data: [() => ({ content: [{ type: 'image', mimeType: 'image/png' }] }), /image block without string "data" and "mimeType"/],
  date_in_structured: [
    () => ({ content: [{ type: 'text', text: 'x' }], structuredContent: { at: new Date(0) } }),
    /a Date at \$\.structuredContent\.at$/,
  ],
};

function resultsServer(errors: unknown[]): Server {
  const server = createServer({ name: 'results', version: '1.0.0', onError: (e) => errors.push(e) });
  for (const [name, [make]] of Object.entries(UNSENDABLE)) server.tool(name, () => make() as never);
  server.tool('plain_data', () => ({ items: [{ type: 'fruit', name: 'apple' }], note: undefined, nothing: null }));
  server.tool('data_list', () => [{ type: 'fruit', name: 'apple' }]);
  const output = z.object({ sum: z.number() });
  server.tool('json_text', { output }, () => '{"sum": 3}' as never);
  server.tool('not_json_text', { output }, () => 'three' as never);
  return server;
}

for (const era of ['legacy', 'modern'] as const) {
  const options = era === 'modern' ? { revision: MODERN } : { revision: '2025-11-25', handshake: {} };
  const call = (peer: Parameters<Parameters<typeof withMemoryPeer>[1]>[0], name: string): Promise<Msg> =>
    era === 'modern' ? peer.modern('tools/call', { name, arguments: {} }) : peer.request('tools/call', { name, arguments: {} });

  test(`${era}: a result JSON cannot carry as it is, or a malformed content block, is the masked failure; onError says what and where`, async () => {
    const errors: unknown[] = [];
    await withMemoryPeer(
      resultsServer(errors),
      async (peer) => {
        for (const name of Object.keys(UNSENDABLE)) {
          const r = await call(peer, name);
          assert.deepEqual(r.result?.content, MASKED, `${name}: ${JSON.stringify(r)}`);
          assert.equal(r.result.isError, true);
        }
      },
      options,
    );
    const names = Object.keys(UNSENDABLE);
    assert.equal(errors.length, names.length);
    errors.forEach((e, i) => {
      const [, where] = UNSENDABLE[names[i]!]!;
      assert.match(String(e), new RegExp(`tool "${names[i]}" returned a result that cannot be sent as it is: `), names[i]);
      assert.match(String(e), where, names[i]);
    });
  });

  test(`${era}: plain data is sent as it is, undefined properties left out; objects with a "type" that is not a content type are data`, async () => {
    await withMemoryPeer(
      resultsServer([]),
      async (peer) => {
        const plain = await call(peer, 'plain_data');
        const data = { items: [{ type: 'fruit', name: 'apple' }], nothing: null };
        assert.deepEqual(plain.result?.content, [{ type: 'text', text: JSON.stringify(data) }]);
        assert.deepEqual(plain.result.structuredContent, data);
        const list = await call(peer, 'data_list');
        assert.deepEqual(list.result?.content, [{ type: 'text', text: '[{"type":"fruit","name":"apple"}]' }]);
      },
      options,
    );
  });

  test(`${era}: with an output schema, a string is the structured content as JSON text: parsed, checked, sent as both`, async () => {
    const errors: unknown[] = [];
    await withMemoryPeer(
      resultsServer(errors),
      async (peer) => {
        const r = await call(peer, 'json_text');
        assert.deepEqual(r.result?.content, [{ type: 'text', text: '{"sum":3}' }], JSON.stringify(r));
        assert.deepEqual(r.result.structuredContent, { sum: 3 });
        const bad = await call(peer, 'not_json_text');
        assert.equal(bad.error?.code, -32603, JSON.stringify(bad));
        assert.match(bad.error.message, /tool "not_json_text" declares an output schema but returned a string that is not JSON/);
      },
      options,
    );
    assert.equal(errors.length, 1, 'the -32603 is reported');
  });
}

test('a request cancelled while its arguments are being validated never starts its handler (cancellation.mdx)', async () => {
  const validating = deferred();
  const release = deferred();
  let started = 0;
  // A Standard Schema whose validation is asynchronous and held until the test releases it.
  const slow: StandardSchema = {
    '~standard': {
      version: 1,
      vendor: 'test-async',
      validate: async (value: unknown) => {
        validating.resolve();
        await release.promise;
        return { value };
      },
      jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
    },
  } as StandardSchema;
  const server = createServer({ name: 'slow', version: '1.0.0' });
  server.tool('slow', { input: slow }, () => {
    started++;
    return 'ran';
  });
  await withMemoryPeer(
    server,
    async (peer) => {
      const id = peer.id();
      peer.sendRaw({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {} } });
      await validating.promise;
      peer.notify('notifications/cancelled', { requestId: id, reason: 'changed my mind' });
      await peer.barrier(); // the cancellation has been handled
      release.resolve();
      await peer.barrier();
      assert.equal(started, 0, 'the handler did not start');
      await peer.assertNone((m) => m.id === id, 'a response to the cancelled request');
      // The next call is not cancelled: it runs.
      assert.deepEqual((await peer.request('tools/call', { name: 'slow', arguments: {} })).result?.content, [
        { type: 'text', text: 'ran' },
      ]);
      assert.equal(started, 1);
    },
    { revision: '2025-11-25', handshake: {} },
  );
});

test('a definition that JSON cannot carry fails at registration (a Date in a tool _meta, a function in a prompt _meta, a URL object as an icon), not when a list is sent', () => {
  const server = createServer({ name: 'defs', version: '1.0.0' });
  assert.throws(
    () => server.tool('dated', { _meta: { at: new Date(0) } as never }, () => 'x'),
    (e: unknown) =>
      e instanceof JanusError && e.code === 'REGISTRATION' && /tool "dated" cannot be sent: a Date at \$\._meta\.at/.test(e.message),
  );
  assert.throws(
    () => server.prompt('fn', { _meta: { f: () => 1 } as never }, () => 'x'),
    (e: unknown) => e instanceof JanusError && /prompt "fn" cannot be sent: a function at \$\._meta\.f/.test(e.message),
  );
  assert.throws(() => createServer({ name: 'n', version: '1', icons: [{ src: new URL('https://x.example/i.png') as never }] }), JanusError);
});
