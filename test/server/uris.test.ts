/**
 * Resource URIs a client sends are URIs (the schemas' `format: "uri"`, RFC 3986): they are
 * echoed back in read results, subscription acknowledgements and `resources/updated`, so a
 * string that is not one (a space, a bare path, a broken `%`) is refused with -32602 rather
 * than read, and a listen stream leaves it out of what it honours.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEverythingServer } from '../fixtures/everything/server.js';
import { MODERN } from '../support/common.js';
import { modernMeta, withMemoryPeer } from '../support/peer.js';

const NOT_URIS = ['test://template/ /data', 'test://template/%zz/data', 'relative/path', 'test://a"b', ''];

test('resources/read of a string that is not a URI is -32602 in both eras, never a template read', async () => {
  await withMemoryPeer(
    createEverythingServer(),
    async (peer) => {
      for (const uri of NOT_URIS) {
        assert.equal((await peer.request('resources/read', { uri })).error?.code, -32602, uri);
        assert.equal((await peer.modern('resources/read', { uri })).error?.code, -32602, uri);
      }
      const ok = await peer.request('resources/read', { uri: 'test://template/a%20b/data' });
      assert.equal(ok.result?.contents[0].uri, 'test://template/a%20b/data');
    },
    { revision: '2025-11-25', handshake: {} },
  );
});

test('resources/subscribe of a string that is not a URI is -32602; a listen stream leaves such strings out of its acknowledgement', async () => {
  await withMemoryPeer(
    createEverythingServer(),
    async (peer) => {
      assert.equal((await peer.request('resources/subscribe', { uri: 'test://a b' })).error?.code, -32602);
    },
    { revision: '2025-11-25', handshake: {} },
  );
  await withMemoryPeer(
    createEverythingServer(),
    async (peer) => {
      const id = peer.id();
      const resourceSubscriptions = ['test://static-text', ...NOT_URIS];
      peer.sendRaw({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: { notifications: { resourceSubscriptions }, _meta: modernMeta() },
      });
      const ack = await peer.next((m) => m.method === 'notifications/subscriptions/acknowledged');
      assert.deepEqual(ack.params.notifications, { resourceSubscriptions: ['test://static-text'] });
      peer.notify('notifications/cancelled', { requestId: id });
    },
    { revision: MODERN },
  );
});
