/**
 * `server.extend` (src/server/extension.ts): an extension's settings are advertised under
 * `capabilities.extensions` where the revision has it (2026-07-28), its methods are served in
 * both eras after the core's, a method that needs the client's declaration answers -32021
 * without it (SEP-2575 §Missing Required Capabilities), and adding twice is refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { ErrorCode, JanusError, McpError } from '../../src/errors/index.js';
import type { ServerExtension } from '../../src/spi/index.js';
import { MODERN } from '../support/common.js';
import { withMemoryPeer } from '../support/peer.js';

const ID = 'com.example/echo';

function echo(): ServerExtension {
  return {
    id: ID,
    settings: () => ({ maxLength: 5 }),
    methods: {
      'echo/say': {
        revisions: () => true,
        needsClientExtension: true,
        run(params, ctx) {
          if (typeof params.text !== 'string' || params.text.length > 5)
            throw new McpError(ErrorCode.InvalidParams, 'text: 1-5 characters');
          return { text: params.text, era: ctx.era };
        },
      },
    },
  };
}

test('2026-07-28: settings in server/discover; the method answers a declaring client, -32021 (naming the extension) otherwise', async () => {
  const server = createServer({ name: 'e', version: '1' }).extend(echo());
  await withMemoryPeer(
    server,
    async (peer) => {
      peer.allowInvalid((m) => m.result?.text !== undefined, 'echo/say is this test’s own method: no schema defines its result');
      const caps = { extensions: { [ID]: {} } };
      const discovered = await peer.modern('server/discover', {}, { caps });
      assert.deepStrictEqual(discovered.result.capabilities.extensions, { [ID]: { maxLength: 5 } });
      const said = await peer.modern('echo/say', { text: 'hi' }, { caps });
      assert.equal(said.result.text, 'hi');
      assert.equal(said.result.era, 'modern');
      assert.equal(said.result.resultType, 'complete');
      assert.ok(said.result._meta['io.modelcontextprotocol/serverInfo']);
      const refused = await peer.modern('echo/say', { text: 'hi' }, { caps: {} });
      assert.equal(refused.error.code, ErrorCode.MissingRequiredClientCapability);
      assert.deepStrictEqual(refused.error.data, { requiredCapabilities: { extensions: { [ID]: {} } } });
      assert.equal((await peer.modern('echo/say', { text: 'too long' }, { caps })).error.code, ErrorCode.InvalidParams);
      assert.equal((await peer.modern('echo/other', {}, { caps })).error.code, ErrorCode.MethodNotFound);
    },
    { revision: MODERN },
  );
});

test('a handshake-era session reaches the method too; nothing is advertised where the revision has no capabilities.extensions', async () => {
  const server = createServer({ name: 'e', version: '1' }).extend(echo());
  await withMemoryPeer(
    server,
    async (peer) => {
      peer.allowInvalid((m) => m.result?.text !== undefined, 'echo/say is this test’s own method: no schema defines its result');
      const said = await peer.call('echo/say', { text: 'yo' });
      assert.deepStrictEqual(said, { text: 'yo', era: 'legacy' });
    },
    { revision: '2025-11-25', handshake: {} },
  );
});

test('adding an extension twice, or a method another extension serves, is refused at once', () => {
  const server = createServer({ name: 'e', version: '1' }).extend(echo());
  assert.throws(
    () => server.extend(echo()),
    (e) => e instanceof JanusError && e.code === 'REGISTRATION',
  );
  assert.throws(
    () => server.extend({ ...echo(), id: 'com.example/other' }),
    (e) => e instanceof JanusError && /already served by com\.example\/echo/.test(e.message),
  );
});

test('a method may answer with any thenable, not only a native promise, in both eras', async () => {
  const thenable = (value: object): PromiseLike<object> => ({
    // biome-ignore lint/suspicious/noThenProperty: this is the thenable under test.
    then: (resolve) => Promise.resolve(resolve?.(value)) as never,
  });
  for (const revision of [MODERN, '2025-11-25'] as const) {
    const server = createServer({ name: 'e', version: '1' }).extend({
      id: ID,
      methods: { 'echo/later': { revisions: () => true, run: (params, ctx) => thenable({ text: params.text, era: ctx.era }) as never } },
    });
    await withMemoryPeer(
      server,
      async (peer) => {
        peer.allowInvalid((m) => m.result?.text !== undefined, 'echo/later is this test’s own method: no schema defines its result');
        const said =
          revision === MODERN ? (await peer.modern('echo/later', { text: 'hi' })).result : await peer.call('echo/later', { text: 'hi' });
        assert.equal(said.text, 'hi');
        assert.equal(said.era, revision === MODERN ? 'modern' : 'legacy');
        assert.equal(said.then, undefined, 'the thenable was awaited, not sent');
      },
      revision === MODERN ? { revision } : { revision, handshake: {} },
    );
  }
});
