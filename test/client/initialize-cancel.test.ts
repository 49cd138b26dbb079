/**
 * basic/utilities/cancellation.mdx (2024-11-05 … 2025-11-25): "The `initialize` request MUST
 * NOT be cancelled by clients." An initialize that times out fails the connection without a
 * `notifications/cancelled`; any other request that times out is still cancelled on the wire.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';
import type { Transport, TransportHandlers } from '../../src/transports/transport.js';
import type { Msg } from '../support/common.js';
import { initializeResult } from './helpers.js';

/** A server end that records every message the client sends, synchronously, and answers with `answer` (undefined: silence). */
function recordingTransport(answer: (msg: Msg) => Msg | undefined): { transport: Transport; sent: Msg[] } {
  const sent: Msg[] = [];
  let handlers: TransportHandlers | undefined;
  const transport: Transport = {
    start: async (h) => {
      handlers = h;
    },
    send: async (m: JsonRpcMessage | JsonRpcMessage[]) => {
      for (const msg of (Array.isArray(m) ? m : [m]) as Msg[]) {
        sent.push(msg);
        const result = msg.id !== undefined && msg.method !== undefined ? answer(msg) : undefined;
        if (result) queueMicrotask(() => handlers?.onMessage({ jsonrpc: '2.0', id: msg.id, result }));
      }
    },
    close: async () => handlers?.onClose?.(),
  };
  return { transport, sent };
}

for (const options of [
  { protocolVersion: '2025-11-25' as const },
  { era: 'legacy' as const },
  { protocolVersion: '2024-11-05' as const },
]) {
  test(`an initialize that times out is not cancelled (${JSON.stringify(options)}): connect fails with TIMEOUT and sends nothing after it`, async () => {
    const { transport, sent } = recordingTransport(() => undefined);
    await assert.rejects(connect(transport, { ...options, timeoutMs: 50 }), { name: 'JanusError', code: 'TIMEOUT' });
    assert.deepEqual(
      sent.map((m) => m.method),
      ['initialize'],
    );
  });
}

test('any other request that times out is cancelled with notifications/cancelled naming its id (cancellation.mdx §Cancellation Flow)', async () => {
  const { transport, sent } = recordingTransport((msg) => (msg.method === 'initialize' ? initializeResult(msg) : undefined));
  const client = await connect(transport, { protocolVersion: '2025-11-25' });
  try {
    await assert.rejects(client.callTool('slow', {}, { timeoutMs: 50 }), { name: 'JanusError', code: 'TIMEOUT' });
    const call = sent.find((m) => m.method === 'tools/call')!;
    assert.deepEqual(
      sent.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params),
      [{ requestId: call.id, reason: 'timeout' }],
    );
  } finally {
    await client.close();
  }
});
